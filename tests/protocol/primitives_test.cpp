#include <gtest/gtest.h>

#include <limits>

#include "protocol/reader.h"
#include "protocol/wire.h"
#include "protocol/writer.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;

TEST(Varint, UnsignedBoundaries) {
    struct Case {
        uint32_t value;
        std::vector<std::byte> encoded;
    };
    const Case cases[] = {
        {0, bytes({0x00})},
        {127, bytes({0x7f})},
        {128, bytes({0x80, 0x01})},
        {16383, bytes({0xff, 0x7f})},
        {16384, bytes({0x80, 0x80, 0x01})},
        {std::numeric_limits<uint32_t>::max(), bytes({0xff, 0xff, 0xff, 0xff, 0x0f})},
    };
    for (const Case& c : cases) {
        OutBuffer out;
        out.put_uvarint(c.value);
        EXPECT_EQ(test::memory_of(out), c.encoded) << c.value;
        Reader r(c.encoded, 0, false);
        EXPECT_EQ(r.read_uvarint("v"), c.value);
        EXPECT_TRUE(r.ok());
        EXPECT_EQ(r.remaining(), 0u);
    }
}

TEST(Varint, ZigZagNegatives) {
    EXPECT_EQ(wire::zigzag32(0), 0u);
    EXPECT_EQ(wire::zigzag32(-1), 1u);
    EXPECT_EQ(wire::zigzag32(1), 2u);
    EXPECT_EQ(wire::zigzag32(-2), 3u);
    EXPECT_EQ(wire::zigzag32(std::numeric_limits<int32_t>::min()), 0xffffffffu);
    EXPECT_EQ(wire::zigzag64(std::numeric_limits<int64_t>::min()), ~uint64_t{0});
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-64}, int64_t{64},
                      std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
        OutBuffer out;
        out.put_varlong(v);
        auto encoded = test::memory_of(out);
        Reader r(encoded, 0, false);
        EXPECT_EQ(r.read_varlong("v"), v);
        EXPECT_TRUE(r.ok());
    }
    for (int32_t v : {0, -1, 1, -64, 63, -65, std::numeric_limits<int32_t>::min(),
                      std::numeric_limits<int32_t>::max()}) {
        OutBuffer out;
        out.put_varint(v);
        auto encoded = test::memory_of(out);
        Reader r(encoded, 0, false);
        EXPECT_EQ(r.read_varint("v"), v);
        EXPECT_TRUE(r.ok());
    }
    OutBuffer out;
    out.put_varint(-1);
    EXPECT_EQ(test::memory_of(out), bytes({0x01}));
}

TEST(Varint, RejectsTooLongAndTruncated) {
    auto six = bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x01});
    Reader r1(six, 0, false);
    r1.read_uvarint("count");
    ASSERT_FALSE(r1.ok());
    EXPECT_EQ(r1.error()->field, "count");

    auto too_big = bytes({0xff, 0xff, 0xff, 0xff, 0x1f});  // 2^33 - 1 does not fit 32 bits
    Reader r2(too_big, 0, false);
    r2.read_uvarint("count");
    EXPECT_FALSE(r2.ok());

    auto truncated = bytes({0x80, 0x80});
    Reader r3(truncated, 0, false);
    r3.read_uvarint("count");
    ASSERT_FALSE(r3.ok());
    EXPECT_NE(r3.error()->message.find("truncated"), std::string::npos);

    auto eleven = bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
    Reader r4(eleven, 0, false);
    r4.read_varlong("v");
    EXPECT_FALSE(r4.ok());
}

TEST(Strings, ClassicAndCompactNullVersusEmpty) {
    OutBuffer out;
    Writer w(out, 0, false);
    w.write_null_string(false);
    w.write_string("", false);
    w.write_null_string(true);
    w.write_string("", true);
    w.write_string("ab", true);
    EXPECT_EQ(test::memory_of(out), bytes({0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x03, 'a', 'b'}));

    auto encoded = test::memory_of(out);
    Reader r(encoded, 0, false);
    EXPECT_EQ(r.read_string("a", true, false), std::nullopt);
    EXPECT_EQ(r.read_string("b", true, false), std::string());
    EXPECT_EQ(r.read_string("c", true, true), std::nullopt);
    EXPECT_EQ(r.read_string("d", true, true), std::string());
    EXPECT_EQ(r.read_string("e", true, true), std::string("ab"));
    EXPECT_TRUE(r.ok());
}

TEST(Strings, MaxLengthClassicString) {
    std::string s(32767, 'x');
    OutBuffer out;
    Writer w(out, 0, false);
    w.write_string(s, false);
    auto encoded = test::memory_of(out);
    ASSERT_EQ(encoded.size(), 2u + 32767u);
    Reader r(encoded, 0, false);
    EXPECT_EQ(r.read_string("s", false, false), s);
    EXPECT_TRUE(r.ok());
}

TEST(Strings, NullInNonNullableFieldIsAnError) {
    auto encoded = bytes({0xff, 0xff});
    Reader r(encoded, 0, false);
    r.read_string("topic", false, false);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error()->field, "topic");
    EXPECT_EQ(r.error()->position, 0u);
}

TEST(Strings, HugeLengthDoesNotAllocate) {
    // Compact length 2^31: would be a 2 GB string. Must fail on the length check.
    auto encoded = bytes({0x81, 0x80, 0x80, 0x80, 0x08, 'a'});
    Reader r(encoded, 0, true);
    r.read_string("client_software_name", false, true);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error()->message.find("remain"), std::string::npos);

    auto bytes_field = bytes({0x7f, 0xff, 0xff, 0xff, 0x00});
    Reader r2(bytes_field, 0, false);
    r2.read_bytes("records", true);
    ASSERT_FALSE(r2.ok());
    EXPECT_EQ(r2.error()->field, "records");
}

TEST(Arrays, CountCheckedAgainstRemainingBytes) {
    auto encoded = bytes({0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1});
    Reader r(encoded, 0, false);
    EXPECT_EQ(r.read_array_length("partitions", false, 4), std::nullopt);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error()->message.find("cannot fit"), std::string::npos);

    auto negative = bytes({0xff, 0xff, 0xff, 0xfe});
    Reader r2(negative, 0, false);
    r2.read_array_length("topics", true, 1);
    ASSERT_FALSE(r2.ok());
    EXPECT_NE(r2.error()->message.find("negative"), std::string::npos);

    auto compact_null = bytes({0x00});
    Reader r3(compact_null, 0, true);
    EXPECT_EQ(r3.read_array_length("topics", true, 1), std::nullopt);
    EXPECT_TRUE(r3.ok());
}

TEST(Errors, StickyFirstFailureWins) {
    auto encoded = bytes({0x00});
    Reader r(encoded, 0, false);
    r.read_int<int32_t>("first");
    r.read_int<int8_t>("second");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error()->field, "first");
}

TEST(Uuid, RoundTrip) {
    Uuid u;
    for (size_t i = 0; i < 16; ++i)
        u.bytes[i] = static_cast<uint8_t>(i * 17);
    OutBuffer out;
    out.put_bytes(std::as_bytes(std::span(u.bytes)));
    auto encoded = test::memory_of(out);
    Reader r(encoded, 0, false);
    EXPECT_EQ(r.read_uuid("topic_id"), u);
}

TEST(OutBuffer, SplicesCountInTotalSizeAndClearKeepsCapacity) {
    OutBuffer out;
    out.put_int<int32_t>(7);
    out.put_file_range(FileRange{3, 100, 50, nullptr});
    out.put_int<int16_t>(1);
    EXPECT_EQ(out.total_size(), 4 + 50 + 2);
    ASSERT_EQ(out.splices().size(), 1u);
    EXPECT_EQ(out.splices()[0].memory_offset, 4u);
    const std::byte* before = out.bytes().data();
    out.clear();
    EXPECT_EQ(out.total_size(), 0);
    out.put_int<int32_t>(1);
    EXPECT_EQ(out.bytes().data(), before);
}

}  // namespace
}  // namespace skiff::protocol
