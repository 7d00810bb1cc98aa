#include "protocol/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

namespace skiff::protocol {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
    Tables t{};
    for (uint32_t b = 0; b < 256; ++b) {
        uint32_t c = b;
        for (int i = 0; i < 8; ++i)
            c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
        t[0][b] = c;
    }
    for (uint32_t b = 0; b < 256; ++b) {
        for (size_t k = 1; k < 8; ++k)
            t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
    }
    return t;
}

constexpr Tables kTables = make_tables();

uint64_t load_le64(const std::byte* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;  // x86 and the other targets we build for are little-endian
}

}  // namespace

uint32_t crc32c_portable(std::span<const std::byte> data, uint32_t crc) {
    uint32_t c = ~crc;
    const std::byte* p = data.data();
    size_t n = data.size();
    while (n >= 8) {
        uint64_t w = load_le64(p) ^ c;
        c = kTables[7][w & 0xff] ^ kTables[6][(w >> 8) & 0xff] ^ kTables[5][(w >> 16) & 0xff] ^
            kTables[4][(w >> 24) & 0xff] ^ kTables[3][(w >> 32) & 0xff] ^
            kTables[2][(w >> 40) & 0xff] ^ kTables[1][(w >> 48) & 0xff] ^ kTables[0][w >> 56];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ kTables[0][(c ^ static_cast<uint8_t>(*p++)) & 0xff];
    return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_hardware(std::span<const std::byte> data,
                                                           uint32_t crc) {
    uint64_t c = ~crc;
    const std::byte* p = data.data();
    size_t n = data.size();
    while (n >= 8) {
        c = _mm_crc32_u64(c, load_le64(p));
        p += 8;
        n -= 8;
    }
    uint32_t c32 = static_cast<uint32_t>(c);
    while (n--)
        c32 = _mm_crc32_u8(c32, static_cast<uint8_t>(*p++));
    return ~c32;
}

bool crc32c_hardware_available() {
    static const bool available = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
            return false;
        return (ecx & bit_SSE4_2) != 0;
    }();
    return available;
}
#else
uint32_t crc32c_hardware(std::span<const std::byte> data, uint32_t crc) {
    return crc32c_portable(data, crc);
}
bool crc32c_hardware_available() {
    return false;
}
#endif

uint32_t crc32c(std::span<const std::byte> data, uint32_t crc) {
    return crc32c_hardware_available() ? crc32c_hardware(data, crc) : crc32c_portable(data, crc);
}

}  // namespace skiff::protocol
