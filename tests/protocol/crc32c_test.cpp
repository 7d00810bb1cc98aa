// CRC-32C: published vectors for both implementations, and the three-stream hardware path checked
// against an independent bit-at-a-time reference and the portable tables, for every length up to
// a few KiB and for large inputs, at misaligned starts and continuing from a non-zero CRC.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "protocol/crc32c.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

struct CrcVector {
    std::vector<std::byte> data;
    uint32_t crc;
};

std::vector<CrcVector> crc_vectors() {
    std::vector<std::byte> ascending(32), descending(32);
    for (int i = 0; i < 32; ++i) {
        ascending[i] = static_cast<std::byte>(i);
        descending[i] = static_cast<std::byte>(31 - i);
    }
    return {
        {test::bytes_of("123456789"), 0xE3069283u},
        // RFC 3720 (iSCSI) appendix B.4.
        {std::vector<std::byte>(32, std::byte{0}), 0x8A9136AAu},
        {std::vector<std::byte>(32, std::byte{0xff}), 0x62A8AB43u},
        {ascending, 0x46DD794Eu},
        {descending, 0x113FDB5Cu},
        {{}, 0u},
    };
}

// The definition, one bit at a time: independent of both implementations' tables and blocks.
uint32_t crc32c_bitwise(std::span<const std::byte> data, uint32_t crc) {
    uint32_t c = ~crc;
    for (std::byte b : data) {
        c ^= static_cast<uint8_t>(b);
        for (int i = 0; i < 8; ++i)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
}

std::vector<std::byte> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::byte> out(n);
    for (auto& b : out)
        b = static_cast<std::byte>(rng());
    return out;
}

// Starts at every residue mod 8 would cost 8x the time for no extra path; these cover aligned,
// odd and 4-but-not-8-aligned loads.
constexpr size_t kOffsets[] = {0, 1, 3, 4, 7};
constexpr size_t kMaxOffset = 7;

TEST(Crc32c, PortableKnownVectors) {
    for (const auto& v : crc_vectors())
        EXPECT_EQ(crc32c_portable(v.data), v.crc);
}

TEST(Crc32c, HardwareKnownVectors) {
    if (!crc32c_hardware_available())
        GTEST_SKIP() << "no SSE4.2 crc32 instruction";
    for (const auto& v : crc_vectors())
        EXPECT_EQ(crc32c_hardware(v.data), v.crc);
}

TEST(Crc32c, IncrementalAndUnalignedAgree) {
    std::vector<std::byte> data(1000);
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<std::byte>(i * 31 + 7);
    const uint32_t whole = crc32c_portable(data);
    for (size_t split : {size_t{1}, size_t{3}, size_t{8}, size_t{500}, size_t{999}}) {
        auto s = std::span(data);
        EXPECT_EQ(crc32c(s.subspan(split), crc32c(s.first(split))), whole) << split;
    }
    EXPECT_EQ(crc32c(data), whole);
}

TEST(Crc32c, PortableMatchesBitwiseReference) {
    const auto data = random_bytes(70000 + kMaxOffset, 1);
    std::mt19937 rng(2);
    for (size_t len : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{1000},
                       size_t{65536}, size_t{70000}}) {
        for (size_t off : kOffsets) {
            const uint32_t init = rng();
            auto s = std::span(data).subspan(off, len);
            ASSERT_EQ(crc32c_portable(s, init), crc32c_bitwise(s, init))
                << "len " << len << " offset " << off;
        }
    }
}

// Every length through the short-block threshold (3 x 256 bytes) and several short chunks, so
// each count of whole chunks, leftover quadwords and leftover bytes is taken.
TEST(Crc32c, HardwareMatchesPortableEveryLengthTo5000) {
    if (!crc32c_hardware_available())
        GTEST_SKIP() << "no SSE4.2 crc32 instruction";
    const auto data = random_bytes(5000 + kMaxOffset, 3);
    std::mt19937 rng(4);
    for (size_t len = 0; len <= 5000; ++len) {
        for (size_t off : kOffsets) {
            const uint32_t init = (len % 2 == 0) ? 0 : rng();
            auto s = std::span(data).subspan(off, len);
            ASSERT_EQ(crc32c_hardware(s, init), crc32c_portable(s, init))
                << "len " << len << " offset " << off << " init " << init;
        }
    }
}

// Around the long-block chunk (3 x 8 KiB), a 64 KiB produce batch, and 1 MiB; the large ones are
// also checked against the bitwise definition so the oracle shares no tables with either path.
TEST(Crc32c, HardwareMatchesPortableLargeLengths) {
    if (!crc32c_hardware_available())
        GTEST_SKIP() << "no SSE4.2 crc32 instruction";
    constexpr size_t kMiB = size_t{1} << 20;
    const auto data = random_bytes(kMiB + 3 + kMaxOffset, 5);
    std::mt19937 rng(6);
    std::vector<size_t> lengths;
    for (size_t base :
         {size_t{3 * 8192}, size_t{2 * 3 * 8192}, size_t{65536}, size_t{65536 + 61}}) {
        for (size_t delta = 0; delta <= 9; ++delta) {
            lengths.push_back(base - delta);
            lengths.push_back(base + delta);
        }
    }
    lengths.push_back(kMiB);
    lengths.push_back(kMiB + 3);
    for (size_t len : lengths) {
        for (size_t off : kOffsets) {
            const uint32_t init = rng();
            auto s = std::span(data).subspan(off, len);
            const uint32_t expected = crc32c_portable(s, init);
            ASSERT_EQ(crc32c_hardware(s, init), expected)
                << "len " << len << " offset " << off << " init " << init;
            ASSERT_EQ(crc32c(s, init), expected) << "len " << len << " offset " << off;
        }
    }
    for (size_t len : {size_t{65536 + 5}, kMiB + 3}) {
        auto s = std::span(data).subspan(3, len);
        EXPECT_EQ(crc32c_hardware(s, 0xDEADBEEFu), crc32c_bitwise(s, 0xDEADBEEFu)) << len;
    }
}

// crc32c(b, crc32c(a)) == crc32c(a + b) with the split anywhere relative to the blocks: the
// continuation feeds the first stream of the second call.
TEST(Crc32c, HardwareContinuationAcrossBlocks) {
    if (!crc32c_hardware_available())
        GTEST_SKIP() << "no SSE4.2 crc32 instruction";
    const auto data = random_bytes(3 * 65536 + 11, 7);
    auto all = std::span(data);
    const uint32_t whole = crc32c_hardware(all);
    ASSERT_EQ(whole, crc32c_portable(all));
    for (size_t split :
         {size_t{1}, size_t{767}, size_t{768}, size_t{769}, size_t{8191}, size_t{24575},
          size_t{24576}, size_t{65536}, size_t{65541}, data.size() - 1000, data.size() - 1}) {
        const uint32_t first = crc32c_hardware(all.first(split));
        EXPECT_EQ(crc32c_hardware(all.subspan(split), first), whole) << split;
        EXPECT_EQ(crc32c(all.subspan(split), crc32c(all.first(split))), whole) << split;
    }
}

}  // namespace
}  // namespace skiff::protocol
