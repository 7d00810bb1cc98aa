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

// One step of the reflected CRC register with a zero data bit.
constexpr uint32_t shift_one_bit(uint32_t c) {
    return (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
}

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
    Tables t{};
    for (uint32_t b = 0; b < 256; ++b) {
        uint32_t c = b;
        for (int i = 0; i < 8; ++i)
            c = shift_one_bit(c);
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
namespace {

// Why three streams: crc32q has a latency of 3 cycles but a throughput of one per cycle, so one
// dependent chain leaves the unit idle two cycles out of three. The input is cut into chunks of
// three equal blocks A|B|C; three independent chains compute the raw register over each block
// (A continuing from the running CRC, B and C starting from zero) and are then joined.
//
// Joining works because the raw register update (no pre/post inversion) is linear over GF(2):
// feeding block X to state s gives Z^|X| * s  xor  crc_from_zero(X), where Z^n is the fixed 32x32
// bit matrix "feed n zero bytes". So state(A|B|C) = Z^L * (Z^L * a xor b) xor c for blocks of
// L bytes. Z^L is applied with four 256-entry tables (one per byte of the state), computed at
// compile time for each block size; a join costs two table shifts, which is small next to the
// L / 8 crc32q of each block.

// A linear map on 32-bit register states: column i is the image of the state with only bit i set.
using Gf2Matrix = std::array<uint32_t, 32>;

constexpr uint32_t apply(const Gf2Matrix& m, uint32_t v) {
    uint32_t r = 0;
    for (int i = 0; v != 0; ++i, v >>= 1) {
        if (v & 1)
            r ^= m[i];
    }
    return r;
}

constexpr Gf2Matrix compose(const Gf2Matrix& outer, const Gf2Matrix& inner) {
    Gf2Matrix r{};
    for (int i = 0; i < 32; ++i)
        r[i] = apply(outer, inner[i]);
    return r;
}

// Z^n: the effect on the raw register of feeding n zero bytes, by repeated squaring.
constexpr Gf2Matrix zero_bytes_operator(size_t n) {
    Gf2Matrix power{};  // Z^1, then Z^2, Z^4, ...
    Gf2Matrix result{};
    for (int i = 0; i < 32; ++i) {
        uint32_t c = 1u << i;
        for (int k = 0; k < 8; ++k)
            c = shift_one_bit(c);
        power[i] = c;
        result[i] = 1u << i;  // identity
    }
    for (; n != 0; n >>= 1) {
        if (n & 1)
            result = compose(power, result);
        power = compose(power, power);
    }
    return result;
}

// shift[k][b] = Z^n applied to the state (b << 8k); Z^n(s) is the xor over the four bytes of s.
using ShiftTable = std::array<std::array<uint32_t, 256>, 4>;

constexpr ShiftTable make_shift_table(size_t n) {
    const Gf2Matrix m = zero_bytes_operator(n);
    ShiftTable t{};
    for (uint32_t k = 0; k < 4; ++k) {
        for (uint32_t b = 0; b < 256; ++b)
            t[k][b] = apply(m, b << (8 * k));
    }
    return t;
}

uint32_t shift(const ShiftTable& t, uint32_t c) {
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}

// Block sizes, bytes per stream. The long block makes the join cost negligible on large inputs
// while three streams of 8 KiB stay well inside L1; the short one carries the three streams down
// to inputs of 768 bytes and handles what the long chunks leave. Below that, one chain.
constexpr size_t kLongBlock = 8192;
constexpr size_t kShortBlock = 256;
constexpr ShiftTable kLongShift = make_shift_table(kLongBlock);
constexpr ShiftTable kShortShift = make_shift_table(kShortBlock);

// Consumes whole chunks of 3 * Block bytes from p / n, updating the raw register c.
template <size_t Block>
__attribute__((target("sse4.2"))) inline void three_streams(uint64_t& c, const std::byte*& p,
                                                            size_t& n, const ShiftTable& t) {
    static_assert(Block % 8 == 0);
    while (n >= 3 * Block) {
        uint64_t a = c, b = 0, d = 0;
        for (size_t i = 0; i < Block; i += 8) {
            a = _mm_crc32_u64(a, load_le64(p + i));
            b = _mm_crc32_u64(b, load_le64(p + Block + i));
            d = _mm_crc32_u64(d, load_le64(p + 2 * Block + i));
        }
        uint32_t joined = shift(t, static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b);
        c = shift(t, joined) ^ static_cast<uint32_t>(d);
        p += 3 * Block;
        n -= 3 * Block;
    }
}

}  // namespace

__attribute__((target("sse4.2"))) uint32_t crc32c_hardware(std::span<const std::byte> data,
                                                           uint32_t crc) {
    uint64_t c = ~crc;
    const std::byte* p = data.data();
    size_t n = data.size();
    three_streams<kLongBlock>(c, p, n, kLongShift);
    three_streams<kShortBlock>(c, p, n, kShortShift);
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
    // Chosen once, on first use (a function-local static, so safe from other static initialisers).
    using Impl = uint32_t (*)(std::span<const std::byte>, uint32_t);
    static const Impl impl = crc32c_hardware_available() ? &crc32c_hardware : &crc32c_portable;
    return impl(data, crc);
}

}  // namespace skiff::protocol
