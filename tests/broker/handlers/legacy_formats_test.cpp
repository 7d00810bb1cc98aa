// Message formats v0/v1 through the handlers: Produce v0-v2 carrying v0/v1 message sets is
// up-converted and stored as record batch v2; Fetch v0-v3 answers in the message format of its
// version (v0/v1: magic 0, v2/v3: magic 1), from the fetch offset, within partition_max_bytes
// (at least one whole message); ListOffsets v0 answers in old_style_offsets.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/compression/compression.h"
#include "protocol/fetch.h"
#include "protocol/legacy/down_convert.h"
#include "protocol/legacy/message_set.h"
#include "protocol/list_offsets.h"
#include "protocol/produce.h"
#include "protocol/wire.h"

namespace skiff::broker::test {
namespace {

using Bytes = std::vector<std::byte>;
using OptBytes = std::optional<std::span<const std::byte>>;

Bytes bytes_of(const std::string& s) {
    auto b = std::as_bytes(std::span(s.data(), s.size()));
    return {b.begin(), b.end()};
}

// `count` messages "<prefix>0".. with keys "k0".., timestamps 1000 + i (magic 1).
Bytes message_set(int8_t magic, int count, const std::string& prefix) {
    Bytes out;
    for (int i = 0; i < count; ++i) {
        Bytes k = bytes_of("k" + std::to_string(i));
        Bytes v = bytes_of(prefix + std::to_string(i));
        protocol::legacy::append_message(out, magic, i, 0, 1000 + i, OptBytes(k), OptBytes(v));
    }
    return out;
}

Bytes gzip_wrapper(int8_t magic, const Bytes& inner) {
    Bytes z;
    EXPECT_TRUE(protocol::compression::compress(protocol::Compression::gzip, inner, z));
    Bytes out;
    protocol::legacy::append_message(out, magic, 0, 1, 2000, std::nullopt, OptBytes(z));
    return out;
}

struct Message {
    int64_t offset;
    int8_t magic;
    int64_t timestamp;
    std::string key;
    std::string value;
};

std::vector<Message> messages_in(const protocol::RecordSet& records) {
    EXPECT_TRUE(records.file_ranges.empty());  // converted answers are inline bytes
    std::vector<Message> out;
    std::span<const std::byte> rest(records.inline_bytes);
    while (!rest.empty()) {
        size_t consumed = 0;
        auto m = protocol::legacy::parse_entry(rest, consumed);
        if (!m) {
            ADD_FAILURE() << m.error().message;
            break;
        }
        auto str = [](const OptBytes& b) {
            return b ? std::string(reinterpret_cast<const char*>(b->data()), b->size())
                     : std::string("<null>");
        };
        out.push_back({protocol::wire::load_be<int64_t>(rest.data()), m->magic, m->timestamp,
                       str(m->key), str(m->value)});
        rest = rest.subspan(consumed);
    }
    return out;
}

class LegacyFormatsTest : public HandlerTest {
  protected:
    protocol::PartitionProduceResponse produce(const Bytes& records, int16_t version) {
        protocol::ProduceRequest req;
        req.acks = 1;
        req.timeout_ms = 1000;
        req.topic_data.push_back({"t", {}, {{0, std::span<const std::byte>(records)}}});
        auto resp = run(handle_produce, req, version);
        return resp.responses.at(0).partition_responses.at(0);
    }
    protocol::PartitionData fetch(int16_t version, int64_t offset, int32_t partition_max_bytes,
                                  int32_t max_bytes = 1 << 20) {
        protocol::FetchRequest req;
        req.max_bytes = max_bytes;
        protocol::FetchTopic t;
        t.topic = "t";
        protocol::FetchPartition p;
        p.fetch_offset = offset;
        p.partition_max_bytes = partition_max_bytes;
        t.partitions.push_back(p);
        req.topics.push_back(t);
        auto resp = run(handle_fetch, req, version);
        return resp.responses.at(0).partitions.at(0);
    }
};

TEST_F(LegacyFormatsTest, ProduceV0ToV2StoresOneBatchPerSetAndFetchDownConverts) {
    create_topic("t");
    auto r = produce(message_set(0, 3, "a"), 0);  // offsets 0-2
    ASSERT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(r.base_offset, 0);
    r = produce(gzip_wrapper(1, message_set(1, 2, "b")), 2);  // offsets 3-4
    ASSERT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(r.base_offset, 3);
    r = produce(message_set(1, 1, "c"), 1);  // offset 5
    ASSERT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(r.base_offset, 5);
    r = produce(make_batch(2, {}, "d"), 2);  // a v2 batch through Produce v2: offsets 6-7
    ASSERT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(r.base_offset, 6);

    // Stored as v2: one batch per produced set.
    auto v4 = fetch(4, 0, 1 << 20);
    std::vector<int64_t> bases;
    for (const auto& h : batches_in(v4.records)) {
        EXPECT_EQ(h.magic, 2);
        bases.push_back(h.base_offset);
    }
    EXPECT_EQ(bases, (std::vector<int64_t>{0, 3, 5, 6}));

    const std::vector<std::string> values = {"a0", "a1", "a2", "b0", "b1", "c0", "d0", "d1"};
    for (int16_t version = 0; version <= 3; ++version) {
        SCOPED_TRACE("Fetch v" + std::to_string(version));
        auto p = fetch(version, 0, 1 << 20);
        ASSERT_EQ(p.error_code, ErrorCode::none);
        EXPECT_EQ(p.high_watermark, 8);
        auto msgs = messages_in(p.records);
        ASSERT_EQ(msgs.size(), values.size());
        for (size_t i = 0; i < msgs.size(); ++i) {
            EXPECT_EQ(msgs[i].offset, static_cast<int64_t>(i));
            EXPECT_EQ(msgs[i].magic, version >= 2 ? 1 : 0);
            EXPECT_EQ(msgs[i].value, values[i]);
        }
        if (version >= 2) {
            EXPECT_EQ(msgs[0].timestamp, -1);    // v0 messages have no timestamp
            EXPECT_EQ(msgs[3].timestamp, 1000);  // inner timestamps of a CreateTime wrapper
            EXPECT_EQ(msgs[4].timestamp, 1001);
            EXPECT_EQ(msgs[5].timestamp, 1000);
        }
    }
    // From an offset inside a stored batch: only what was asked for.
    auto msgs = messages_in(fetch(1, 4, 1 << 20).records);
    ASSERT_EQ(msgs.size(), 4u);
    EXPECT_EQ(msgs[0].offset, 4);
    EXPECT_EQ(msgs[0].value, "b1");
}

TEST_F(LegacyFormatsTest, CorruptMessageSetStoresNothing) {
    create_topic("t");
    Bytes set = message_set(1, 3, "x");
    set[set.size() - 1] ^= std::byte{0x20};  // the last message's CRC no longer matches
    auto r = produce(set, 2);
    EXPECT_EQ(r.error_code, ErrorCode::corrupt_message);
    EXPECT_EQ(fetch(4, 0, 1 << 20).high_watermark, 0);
    // Message sets are not converted for Produce v3+ (which requires record batch v2).
    r = produce(message_set(1, 1, "y"), 3);
    EXPECT_NE(r.error_code, ErrorCode::none);
    EXPECT_EQ(fetch(4, 0, 1 << 20).high_watermark, 0);
}

TEST_F(LegacyFormatsTest, PartitionMaxBytesBoundsTheConvertedOutput) {
    create_topic("t");
    ASSERT_EQ(produce(message_set(0, 10, "value-"), 0).error_code, ErrorCode::none);
    // Smaller than one message: still one whole message.
    auto one = messages_in(fetch(0, 0, 5).records);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].value, "value-0");
    // One v0 message here is 12 + 14 + 2 + 7 = 35 bytes: room for three.
    auto p = fetch(0, 0, 3 * 35 + 10);
    EXPECT_EQ(messages_in(p.records).size(), 3u);
    EXPECT_LE(p.records.size_bytes(), 3 * 35 + 10);
}

TEST_F(LegacyFormatsTest, ListOffsetsV0AnswersInOldStyleOffsets) {
    create_topic("t");
    ASSERT_EQ(produce(message_set(0, 4, "v"), 0).error_code, ErrorCode::none);
    auto ask = [&](int64_t timestamp, int32_t max_num_offsets) {
        protocol::ListOffsetsRequest req;
        protocol::ListOffsetsTopic t;
        t.name = "t";
        protocol::ListOffsetsPartition p;
        p.timestamp = timestamp;
        p.max_num_offsets = max_num_offsets;
        t.partitions.push_back(p);
        req.topics.push_back(t);
        auto resp = run(handle_list_offsets, req, 0);
        return resp.topics.at(0).partitions.at(0);
    };
    auto latest = ask(protocol::kListOffsetsLatest, 1);
    EXPECT_EQ(latest.error_code, ErrorCode::none);
    EXPECT_EQ(latest.old_style_offsets, (std::vector<int64_t>{4}));
    EXPECT_EQ(ask(protocol::kListOffsetsEarliest, 1).old_style_offsets, (std::vector<int64_t>{0}));
    EXPECT_TRUE(ask(protocol::kListOffsetsLatest, 0).old_style_offsets.empty());
}

}  // namespace
}  // namespace skiff::broker::test
