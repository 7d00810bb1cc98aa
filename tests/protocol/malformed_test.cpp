// Hostile request bodies: each must give a DecodeError naming the field, never a crash or a huge
// allocation. (Truncation at every byte is covered by the round trips in messages_test.cpp.)
#include <gtest/gtest.h>

#include "protocol/protocol.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;

TEST(Malformed, TwoGigabyteStringLengthInFlexibleRequest) {
    // ApiVersions v3: client_software_name with compact length 2^31.
    auto body = bytes({0x81, 0x80, 0x80, 0x80, 0x08, 'l', 'i', 'b'});
    auto d = decode_message<ApiVersionsRequest>(body, 3);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().field, "client_software_name");
    EXPECT_EQ(d.error().position, 0u);
}

TEST(Malformed, TrailingBytesAreIgnoredOnlyWhereAsked) {
    // What librdkafka 2.0.2 sends as ListGroups v4: an empty states_filter, the tagged fields,
    // and one more tagged-field byte. Kafka ignores what follows a request's fields.
    auto body = bytes({0x01, 0x00, 0x00});
    auto strict = decode_message<ListGroupsRequest>(body, 4);
    ASSERT_FALSE(strict);
    EXPECT_EQ(strict.error().field, "(end)");
    auto lenient = decode_message<ListGroupsRequest>(body, 4, TrailingBytes::ignore);
    ASSERT_TRUE(lenient) << lenient.error().message;
    EXPECT_TRUE(lenient->states_filter.empty());
    // A field that is cut short is still an error.
    EXPECT_FALSE(decode_message<ListGroupsRequest>(bytes({0x02}), 4, TrailingBytes::ignore));
}

TEST(Malformed, HugeArrayCountInProduce) {
    // Produce v3: transactional_id null, acks 1, timeout 1000, topic_data count 0x7fffffff.
    auto body = bytes({0xff, 0xff, 0, 1, 0, 0, 3, 0xe8, 0x7f, 0xff, 0xff, 0xff, 0, 1, 'x'});
    auto d = decode_message<ProduceRequest>(body, 3);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().field, "topic_data");
    EXPECT_EQ(d.error().position, 8u);
    EXPECT_NE(d.error().message.find("topic_data"), std::string::npos);
}

TEST(Malformed, NegativeCountsAndLengths) {
    // Produce v3 with topic_data count -2.
    auto body = bytes({0xff, 0xff, 0, 1, 0, 0, 3, 0xe8, 0xff, 0xff, 0xff, 0xfe});
    auto d = decode_message<ProduceRequest>(body, 3);
    ASSERT_FALSE(d);
    EXPECT_NE(d.error().message.find("negative"), std::string::npos);

    // One topic "t", one partition 0, records length -7.
    auto neg_records = bytes({0xff, 0xff, 0, 1, 0, 0, 3, 0xe8, 0, 0,    0,    1,    0,   1,
                              't',  0,    0, 0, 1, 0, 0, 0,    0, 0xff, 0xff, 0xff, 0xf9});
    d = decode_message<ProduceRequest>(neg_records, 3);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().field, "topic_data.partition_data.records");

    // Topic name length -3.
    auto neg_name = bytes({0xff, 0xff, 0, 1, 0, 0, 3, 0xe8, 0, 0, 0, 1, 0xff, 0xfd});
    d = decode_message<ProduceRequest>(neg_name, 3);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().field, "topic_data.name");
}

TEST(Malformed, TaggedFieldSizeBeyondTheBody) {
    // Metadata v9 request: topics null (0), allow_auto 1, include_cluster_ops 0,
    // include_topic_ops 0, then a tag buffer with one field claiming 100 bytes.
    auto body = bytes({0x00, 0x01, 0x00, 0x00, 0x01, 0x05, 0x64, 0x00});
    auto d = decode_message<MetadataRequest>(body, 9);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().field, "tagged_field");
}

TEST(Malformed, UnknownTagsAreSkipped) {
    auto body = bytes({0x00, 0x01, 0x00, 0x00, 0x02, 0x05, 0x01, 0xaa, 0x09, 0x00});
    auto d = decode_message<MetadataRequest>(body, 9);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_FALSE(d->topics);
    EXPECT_TRUE(d->allow_auto_topic_creation);
}

TEST(Malformed, KnownTaggedFieldShorterThanItsSizeIsAnError) {
    // Fetch v12 body beginning with a tag buffer is not possible (tags come last), so check the
    // partition-level tag: current_leader (tag 1) announced with 2 bytes but needing 9.
    FetchResponse m;
    PartitionData p;
    p.current_leader = LeaderIdAndEpoch{1, 2};
    m.responses.push_back({"t", {}, {p}});
    OutBuffer out;
    encode_message(m, 12, out);
    auto body = test::memory_of(out);
    // Find the tag header 0x01 0x09 (tag 1, size 9: two int32 and an empty tag buffer) and
    // shrink the size to 2.
    bool patched = false;
    for (size_t i = 0; i + 1 < body.size(); ++i) {
        if (body[i] == std::byte{1} && body[i + 1] == std::byte{9}) {
            body[i + 1] = std::byte{2};
            patched = true;
            break;
        }
    }
    ASSERT_TRUE(patched);
    auto d = decode_message<FetchResponse>(body, 12);
    ASSERT_FALSE(d);
    EXPECT_NE(d.error().field.find("current_leader"), std::string::npos);
}

TEST(Malformed, RandomGarbageNeverCrashes) {
    // A cheap in-test fuzz pass (the libFuzzer target in tests/fuzz goes much further).
    uint64_t state = 0x9e3779b97f4a7c15u;
    auto next = [&] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    std::vector<std::byte> buf;
    for (int iter = 0; iter < 3000; ++iter) {
        buf.resize(next() % 64);
        for (auto& b : buf)
            b = static_cast<std::byte>(next() % 4 == 0 ? 0xff : next() & 0xff);
        auto v = static_cast<int16_t>(next() % 13);
        (void)decode_message<ProduceRequest>(buf, v);
        (void)decode_message<FetchRequest>(buf, v);
        (void)decode_message<MetadataRequest>(buf, v);
        (void)decode_message<ListOffsetsRequest>(buf, v);
        (void)decode_message<ApiVersionsRequest>(buf, v);
        (void)decode_request_header(buf);
    }
}

}  // namespace
}  // namespace skiff::protocol
