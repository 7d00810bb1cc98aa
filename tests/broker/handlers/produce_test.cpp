// Produce: offsets assigned, acks, the per-partition refusals (unknown partition, corrupt or
// oversized batch, several batches at v3+, the internal topic, producer ids never issued,
// transactional batches) and idempotent duplicates. A refused batch stores nothing. Topics with
// a compression.type other than producer: batches rebuilt in the topic's codec, corrupt
// compressed input refused, size and idempotence checks on the rebuilt batch.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "broker/handlers/leader_hints.h"
#include "broker/topics/topic_ids.h"
#include "handler_fixture.h"
#include "protocol/compression/batch_recompress.h"
#include "protocol/crc32c.h"
#include "protocol/produce.h"
#include "protocol/wire.h"

namespace skiff::broker::test {
namespace {

using protocol::ProduceRequest;
using protocol::ProduceResponse;

constexpr int16_t kLatestProduce = 9;

const protocol::PartitionProduceResponse& only_partition(const ProduceResponse& resp) {
    if (resp.responses.size() != 1 || resp.responses[0].partition_responses.size() != 1)
        throw std::runtime_error("expected one topic with one partition in the response");
    return resp.responses[0].partition_responses[0];
}

class ProduceTest : public HandlerTest {
  protected:
    int64_t high_watermark(const std::string& topic, int32_t partition = 0) {
        auto* log = broker().logs().get({topic, partition});
        return log ? log->high_watermark() : -1;
    }
    protocol::PartitionProduceResponse produce(const std::string& topic, int32_t partition,
                                               const std::vector<std::byte>& records,
                                               int16_t acks = -1,
                                               int16_t version = kLatestProduce) {
        return only_partition(
            run(handle_produce, produce_request(topic, partition, records, acks), version));
    }
    int64_t new_producer_id() {
        auto resp = run(handle_init_producer_id, protocol::InitProducerIdRequest{}, 4);
        EXPECT_EQ(resp.error_code, ErrorCode::none);
        return resp.producer_id;
    }
};

TEST_F(ProduceTest, AssignsConsecutiveBaseOffsets) {
    create_topic("t");
    auto first = produce("t", 0, make_batch(3));
    EXPECT_EQ(first.error_code, ErrorCode::none);
    EXPECT_EQ(first.index, 0);
    EXPECT_EQ(first.base_offset, 0);
    EXPECT_EQ(first.log_start_offset, 0);
    EXPECT_EQ(first.log_append_time_ms, -1);  // CreateTime
    EXPECT_FALSE(first.error_message.has_value());
    EXPECT_FALSE(suppressed);

    auto second = produce("t", 0, make_batch(2));
    EXPECT_EQ(second.error_code, ErrorCode::none);
    EXPECT_EQ(second.base_offset, 3);
    EXPECT_EQ(high_watermark("t"), 5);
}

TEST_F(ProduceTest, EveryPartitionOfARequestIsAnsweredInOrder) {
    create_topic("a", 2);
    auto batch = make_batch(1);
    ProduceRequest req = produce_request("a", 0, batch);
    req.topic_data[0].partition_data.push_back({1, std::span<const std::byte>(batch)});
    req.topic_data[0].partition_data.push_back({7, std::span<const std::byte>(batch)});
    auto resp = run(handle_produce, req, kLatestProduce);
    ASSERT_EQ(resp.responses.size(), 1u);
    const auto& parts = resp.responses[0].partition_responses;
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].index, 0);
    EXPECT_EQ(parts[0].error_code, ErrorCode::none);
    EXPECT_EQ(parts[1].index, 1);
    EXPECT_EQ(parts[1].error_code, ErrorCode::none);
    EXPECT_EQ(parts[2].index, 7);
    EXPECT_EQ(parts[2].error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(high_watermark("a", 0), 1);
    EXPECT_EQ(high_watermark("a", 1), 1);
}

TEST_F(ProduceTest, AcksZeroStoresButSuppressesTheResponse) {
    create_topic("t");
    produce("t", 0, make_batch(2), /*acks=*/0);
    EXPECT_TRUE(suppressed);
    EXPECT_FALSE(closed);
    EXPECT_EQ(high_watermark("t"), 2);

    // Not even an error is answered: the connection is closed instead, as Kafka does, so the
    // client notices and refreshes its metadata.
    auto err = produce("missing", 0, make_batch(1), /*acks=*/0);
    EXPECT_TRUE(suppressed);
    EXPECT_TRUE(closed);
    EXPECT_EQ(err.error_code, ErrorCode::unknown_topic_or_partition);
}

TEST_F(ProduceTest, AcksOneIsAnswered) {
    create_topic("t");
    auto r = produce("t", 0, make_batch(1), /*acks=*/1);
    EXPECT_FALSE(suppressed);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.base_offset, 0);
}

TEST_F(ProduceTest, InvalidAcksIsRefusedWithNothingStored) {
    create_topic("t");
    for (int16_t acks : {int16_t{2}, int16_t{-2}}) {
        auto r = produce("t", 0, make_batch(1), acks);
        EXPECT_EQ(r.error_code, ErrorCode::invalid_required_acks) << acks;
        EXPECT_EQ(r.base_offset, -1);
        EXPECT_FALSE(suppressed);
    }
    EXPECT_EQ(high_watermark("t"), 0);
}

TEST_F(ProduceTest, UnknownTopicOrPartition) {
    create_topic("t", 1);
    EXPECT_EQ(produce("missing", 0, make_batch(1)).error_code,
              ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(produce("t", 1, make_batch(1)).error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(produce("t", -1, make_batch(1)).error_code, ErrorCode::unknown_topic_or_partition);
    // Produce never creates topics (only Metadata auto-creates).
    EXPECT_FALSE(broker().topics().partition_count("missing"));
}

TEST_F(ProduceTest, BadCrcIsCorruptMessageWithNothingStored) {
    create_topic("t");
    auto batch = make_batch(2);
    batch.back() ^= std::byte{0x01};  // in the last record: covered by the CRC
    auto r = produce("t", 0, batch);
    EXPECT_EQ(r.error_code, ErrorCode::corrupt_message);
    EXPECT_EQ(r.base_offset, -1);
    ASSERT_TRUE(r.error_message.has_value());  // v8+ carries the reason
    EXPECT_EQ(high_watermark("t"), 0);
}

TEST_F(ProduceTest, TruncatedOrMissingRecordsAreCorruptMessage) {
    create_topic("t");
    auto batch = make_batch(2);
    batch.resize(batch.size() - 3);
    EXPECT_EQ(produce("t", 0, batch).error_code, ErrorCode::corrupt_message);

    ProduceRequest null_records = produce_request("t", 0, {});
    null_records.topic_data[0].partition_data[0].records.reset();
    EXPECT_EQ(only_partition(run(handle_produce, null_records, kLatestProduce)).error_code,
              ErrorCode::corrupt_message);
    EXPECT_EQ(high_watermark("t"), 0);
}

TEST_F(ProduceTest, EmptyRecordsAreCorruptMessage) {
    create_topic("t");
    // Zero bytes (not null) at v3+: skiff answers CORRUPT_MESSAGE where Kafka answers
    // INVALID_RECORD ("must have at least one record batch").
    EXPECT_EQ(produce("t", 0, {}).error_code, ErrorCode::corrupt_message);
    EXPECT_EQ(high_watermark("t"), 0);
}

TEST_F(ProduceTest, PreV2MessageFormatIsUnsupportedForMessageFormat) {
    create_topic("t");
    auto batch = make_batch(1);
    batch[protocol::kBatchMagicOffset] = std::byte{1};
    EXPECT_EQ(produce("t", 0, batch).error_code, ErrorCode::unsupported_for_message_format);
    EXPECT_EQ(high_watermark("t"), 0);
}

TEST_F(ProduceTest, BatchOverTopicMaxMessageBytesIsMessageTooLarge) {
    auto small = make_batch(1);
    auto big = make_batch(20);
    ASSERT_LT(small.size(), big.size());
    create_topic("t", 1, {{"max.message.bytes", std::to_string(small.size())}});
    EXPECT_EQ(produce("t", 0, big).error_code, ErrorCode::message_too_large);
    EXPECT_EQ(high_watermark("t"), 0);
    // The limit itself is allowed.
    EXPECT_EQ(produce("t", 0, small).error_code, ErrorCode::none);
}

TEST_F(ProduceTest, BatchOverBrokerMessageMaxBytesIsMessageTooLarge) {
    auto big = make_batch(20);
    config.message_max_bytes = static_cast<int32_t>(big.size()) - 1;
    create_topic("t");
    EXPECT_EQ(produce("t", 0, big).error_code, ErrorCode::message_too_large);
    // A topic override above the broker setting wins.
    create_topic("raised", 1, {{"max.message.bytes", std::to_string(big.size())}});
    EXPECT_EQ(produce("raised", 0, big).error_code, ErrorCode::none);
}

TEST_F(ProduceTest, TwoBatchesAreInvalidRecordFromV3) {
    create_topic("t");
    auto two = make_batch(2);
    auto second = make_batch(3);
    two.insert(two.end(), second.begin(), second.end());

    auto r = produce("t", 0, two, -1, /*version=*/3);
    EXPECT_EQ(r.error_code, ErrorCode::invalid_record);
    EXPECT_EQ(high_watermark("t"), 0);

    // Before v3 a partition may carry several batches: stored together.
    auto v2 = produce("t", 0, two, -1, /*version=*/2);
    EXPECT_EQ(v2.error_code, ErrorCode::none);
    EXPECT_EQ(v2.base_offset, 0);
    EXPECT_EQ(high_watermark("t"), 5);
}

TEST_F(ProduceTest, InternalOffsetsTopicIsRefused) {
    auto r = produce("__consumer_offsets", 0, make_batch(1));
    EXPECT_EQ(r.error_code, ErrorCode::invalid_topic_exception);
}

// The share-partitions' state topic exists once a share group wrote its state; clients never
// write to it.
TEST_F(ProduceTest, InternalShareGroupStateTopicIsRefused) {
    create_topic("t");
    auto* shares = broker().share_partitions();
    ASSERT_NE(shares, nullptr);
    auto id = broker().topics().topic_id("t");
    ASSERT_TRUE(id);
    share::SharePartitionKey key{"g", {"t", 0}, to_uuid(*id)};
    ASSERT_EQ(shares->next_fetch_offset(key, {}, {0, 0, {}}, 0), std::nullopt);
    const std::string topic = share::kShareGroupStateTopic;
    EXPECT_EQ(broker().topics().partition_count(topic), 50);
    auto overrides = broker().topics().overrides(topic).value_or(TopicOverrides{});
    EXPECT_EQ(overrides["cleanup.policy"], "delete");
    EXPECT_EQ(overrides["retention.ms"], "-1");
    int64_t records = 0;
    for (int32_t p = 0; p < 50; ++p)
        records += high_watermark(topic, p);
    EXPECT_EQ(records, 1);  // the share-partition's initial ShareSnapshot
    for (int32_t p : {0, 49}) {
        auto r = produce(topic, p, make_batch(1));
        EXPECT_EQ(r.error_code, ErrorCode::invalid_topic_exception);
    }
    records = 0;
    for (int32_t p = 0; p < 50; ++p)
        records += high_watermark(topic, p);
    EXPECT_EQ(records, 1);
}

TEST_F(ProduceTest, ProducerIdNeverIssuedIsUnknownProducerId) {
    create_topic("t");
    protocol::BatchSpec spec;
    spec.producer_id = 4242;
    spec.producer_epoch = 0;
    spec.base_sequence = 0;
    auto r = produce("t", 0, make_batch(1, spec));
    EXPECT_EQ(r.error_code, ErrorCode::unknown_producer_id);
    EXPECT_EQ(high_watermark("t"), 0);

    // The same id once InitProducerId has handed it out is accepted.
    int64_t id = new_producer_id();
    spec.producer_id = id + 1;  // the next one: not issued yet
    EXPECT_EQ(produce("t", 0, make_batch(1, spec)).error_code, ErrorCode::unknown_producer_id);
    spec.producer_id = id;
    EXPECT_EQ(produce("t", 0, make_batch(1, spec)).error_code, ErrorCode::none);
}

TEST_F(ProduceTest, IdempotentRetryIsAcknowledgedWithTheOriginalOffset) {
    create_topic("t");
    produce("t", 0, make_batch(4));  // offsets 0-3 from a plain producer
    protocol::BatchSpec spec;
    spec.producer_id = new_producer_id();
    spec.producer_epoch = 0;
    spec.base_sequence = 0;
    auto batch = make_batch(2, spec);

    auto first = produce("t", 0, batch);
    ASSERT_EQ(first.error_code, ErrorCode::none);
    EXPECT_EQ(first.base_offset, 4);
    auto retry = produce("t", 0, batch);
    EXPECT_EQ(retry.error_code, ErrorCode::none);
    EXPECT_EQ(retry.base_offset, 4);
    EXPECT_EQ(high_watermark("t"), 6);  // stored once

    spec.base_sequence = 2;
    EXPECT_EQ(produce("t", 0, make_batch(1, spec)).base_offset, 6);

    spec.base_sequence = 10;  // a gap
    EXPECT_EQ(produce("t", 0, make_batch(1, spec)).error_code,
              ErrorCode::out_of_order_sequence_number);
    EXPECT_EQ(high_watermark("t"), 7);
}

TEST_F(ProduceTest, AnOlderProducerEpochIsRefused) {
    create_topic("t");
    protocol::BatchSpec spec;
    spec.producer_id = new_producer_id();
    spec.producer_epoch = 1;
    spec.base_sequence = 0;
    ASSERT_EQ(produce("t", 0, make_batch(1, spec)).error_code, ErrorCode::none);
    spec.producer_epoch = 0;
    spec.base_sequence = 1;
    EXPECT_EQ(produce("t", 0, make_batch(1, spec)).error_code, ErrorCode::invalid_producer_epoch);
    // A new epoch starts again at sequence 0.
    spec.producer_epoch = 2;
    spec.base_sequence = 0;
    EXPECT_EQ(produce("t", 0, make_batch(1, spec)).error_code, ErrorCode::none);
    EXPECT_EQ(high_watermark("t"), 2);
}

TEST_F(ProduceTest, AcknowledgedRecordsAndIssuedIdsSurviveARestart) {
    create_topic("t");
    protocol::BatchSpec spec;
    spec.producer_id = new_producer_id();
    spec.producer_epoch = 0;
    spec.base_sequence = 0;
    auto batch = make_batch(2, spec);
    ASSERT_EQ(produce("t", 0, batch).base_offset, 0);
    restart();
    EXPECT_EQ(high_watermark("t"), 2);
    // The retry after the restart is still recognised as a duplicate.
    auto retry = produce("t", 0, batch);
    EXPECT_EQ(retry.error_code, ErrorCode::none);
    EXPECT_EQ(retry.base_offset, 0);
    EXPECT_EQ(high_watermark("t"), 2);
    // A new producer never gets the old id.
    EXPECT_GT(new_producer_id(), spec.producer_id);
}

TEST_F(ProduceTest, TransactionalBatchIsRefused) {
    create_topic("t");
    protocol::BatchSpec spec;
    spec.producer_id = new_producer_id();
    spec.producer_epoch = 0;
    spec.base_sequence = 0;
    spec.attributes = 0x10;  // transactional
    EXPECT_EQ(produce("t", 0, make_batch(1, spec)).error_code,
              ErrorCode::transactional_id_authorization_failed);
    EXPECT_EQ(high_watermark("t"), 0);
}

TEST_F(ProduceTest, EveryVersionDecodesAndIsAnswered) {
    create_topic("t");
    int64_t expected = 0;
    for (int16_t v = 0; v <= kLatestProduce; ++v) {
        auto r = produce("t", 0, make_batch(1), -1, v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.base_offset, expected++) << "v" << v;
    }
}

// KIP-951: Produce v10+ partitions answered NOT_LEADER_OR_FOLLOWER (on skiff, from the control
// API's fault rules) name this broker as the leader, and the response its endpoint; a success
// carries neither; before v10 nothing.
TEST_F(ProduceTest, LeaderHintsNameThisBrokerFromV10) {
    create_topic("t");
    auto resp = run(handle_produce, produce_request("t", 0, make_batch(1), -1), 10);
    ASSERT_EQ(only_partition(resp).error_code, ErrorCode::none);
    EXPECT_FALSE(only_partition(resp).current_leader);
    EXPECT_TRUE(resp.node_endpoints.empty());

    resp.responses[0].partition_responses[0].error_code = ErrorCode::not_leader_or_follower;
    protocol::RequestHeader header;
    header.api_version = 9;
    const std::string peer = "127.0.0.1:1";
    RequestContext v9{.broker = broker(), .header = header, .peer = peer};
    auto old = resp;
    add_leader_hints(v9, old);
    EXPECT_FALSE(only_partition(old).current_leader);
    EXPECT_TRUE(old.node_endpoints.empty());

    header.api_version = 10;
    RequestContext v10{.broker = broker(), .header = header, .peer = peer};
    add_leader_hints(v10, resp);
    protocol::OutBuffer out;
    protocol::encode_message(resp, 10, out);
    auto decoded = protocol::decode_message<ProduceResponse>(out.bytes(), 10);
    ASSERT_TRUE(decoded);
    const auto& leader = only_partition(*decoded).current_leader;
    ASSERT_TRUE(leader);
    EXPECT_EQ(leader->leader_id, broker().node_id());
    EXPECT_EQ(leader->leader_epoch, 0);
    ASSERT_EQ(decoded->node_endpoints.size(), 1u);
    EXPECT_EQ(decoded->node_endpoints[0].node_id, broker().node_id());
    EXPECT_EQ(decoded->node_endpoints[0].port, broker().advertised("").port);
}

}  // namespace
}  // namespace skiff::broker::test

namespace skiff::broker::test {
namespace {

using protocol::Compression;

// `plain` (an uncompressed batch) with its records compressed by `codec`.
std::vector<std::byte> in_codec(const std::vector<std::byte>& plain, Compression codec) {
    std::vector<std::byte> scratch;
    std::vector<std::byte> out;
    auto r = protocol::compression::recompress_batch(plain, codec, 1 << 30, scratch, out);
    if (!r)
        throw std::runtime_error(r.error().message);
    return out;
}

class CompressionTypeTest : public ProduceTest {
  protected:
    // The bytes of partition 0's first segment.
    std::vector<std::byte> segment(const std::string& topic) {
        std::ifstream in(
            std::filesystem::path(config.log_dir) / (topic + "-0") / "00000000000000000000.log",
            std::ios::binary);
        std::vector<char> chars((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
        std::vector<std::byte> out(chars.size());
        std::memcpy(out.data(), chars.data(), chars.size());
        return out;
    }
    // Every batch of the segment, checked (CRC), with its records decompressed.
    std::vector<std::pair<protocol::BatchHeader, std::vector<std::byte>>> stored(
        const std::string& topic) {
        std::vector<std::pair<protocol::BatchHeader, std::vector<std::byte>>> out;
        const auto bytes = segment(topic);
        std::span<const std::byte> rest(bytes);
        while (!rest.empty()) {
            auto h = protocol::check_batch(rest);
            EXPECT_TRUE(h) << h.error().message;
            if (!h)
                break;
            std::vector<std::byte> plain;
            std::vector<std::byte> rebuilt;
            EXPECT_TRUE(protocol::compression::recompress_batch(rest, Compression::none, 1 << 30,
                                                                plain, rebuilt));
            out.emplace_back(*h, rebuilt);
            rest = rest.subspan(h->size_bytes());
        }
        return out;
    }
};

TEST_F(CompressionTypeTest, BatchesInAnotherCodecAreStoredInTheTopics) {
    create_topic("z", 1, {{"compression.type", "zstd"}});
    const auto plain = make_batch(5);
    for (Compression sent : {Compression::lz4, Compression::gzip, Compression::snappy,
                             Compression::none, Compression::zstd})
        ASSERT_EQ(produce("z", 0, in_codec(plain, sent)).error_code, ErrorCode::none);
    auto batches = stored("z");
    ASSERT_EQ(batches.size(), 5u);
    for (size_t i = 0; i < batches.size(); ++i) {
        const auto& [h, records] = batches[i];
        EXPECT_EQ(h.compression(), Compression::zstd);
        EXPECT_EQ(h.base_offset, static_cast<int64_t>(5 * i));
        // Same records as sent: the uncompressed form differs only in BaseOffset (and CRC-free
        // fields), so compare from the CRC-covered part on.
        EXPECT_TRUE(std::equal(records.begin() + protocol::kBatchAttributesOffset, records.end(),
                               plain.begin() + protocol::kBatchAttributesOffset, plain.end()));
    }
}

TEST_F(CompressionTypeTest, UncompressedAndProducer) {
    create_topic("u", 1, {{"compression.type", "uncompressed"}});
    create_topic("p");
    const auto sent = in_codec(make_batch(3), Compression::snappy);
    ASSERT_EQ(produce("u", 0, sent).error_code, ErrorCode::none);
    ASSERT_EQ(produce("p", 0, sent).error_code, ErrorCode::none);
    EXPECT_EQ(stored("u").at(0).first.compression(), Compression::none);
    EXPECT_EQ(stored("p").at(0).first.compression(), Compression::snappy);
    auto p = segment("p");
    // As sent, from Magic on (BaseOffset and PartitionLeaderEpoch are the broker's).
    EXPECT_TRUE(std::equal(p.begin() + 16, p.end(), sent.begin() + 16, sent.end()));
}

TEST_F(CompressionTypeTest, BrokerSettingIsTheDefault) {
    config.compression_type = "gzip";
    create_topic("d");
    create_topic("own", 1, {{"compression.type", "producer"}});
    const auto sent = in_codec(make_batch(3), Compression::lz4);
    ASSERT_EQ(produce("d", 0, sent).error_code, ErrorCode::none);
    ASSERT_EQ(produce("own", 0, sent).error_code, ErrorCode::none);
    EXPECT_EQ(stored("d").at(0).first.compression(), Compression::gzip);
    EXPECT_EQ(stored("own").at(0).first.compression(), Compression::lz4);
}

TEST_F(CompressionTypeTest, CorruptCompressedBatchIsCorruptMessageWithNothingStored) {
    create_topic("z", 1, {{"compression.type", "zstd"}});
    ASSERT_EQ(produce("z", 0, make_batch(2)).error_code, ErrorCode::none);
    // Records replaced by bytes that are no lz4 frame, CRC recomputed: a valid batch header.
    auto bad = make_batch(2);
    bad.resize(protocol::kBatchHeaderSize);
    const std::string junk = "this is not an lz4 frame at all";
    for (char c : junk)
        bad.push_back(static_cast<std::byte>(c));
    protocol::wire::store_be<int32_t>(bad.data() + 8, static_cast<int32_t>(bad.size() - 12));
    bad[22] = static_cast<std::byte>(Compression::lz4);
    protocol::wire::store_be<uint32_t>(bad.data() + protocol::kBatchCrcOffset,
                                       protocol::crc32c(std::span<const std::byte>(bad).subspan(
                                           protocol::kBatchAttributesOffset)));
    ASSERT_TRUE(protocol::check_batch(bad));
    EXPECT_EQ(produce("z", 0, bad).error_code, ErrorCode::corrupt_message);
    EXPECT_EQ(high_watermark("z"), 2);
    // A topic storing as sent does not look inside: the same batch is accepted there.
    create_topic("p");
    EXPECT_EQ(produce("p", 0, bad).error_code, ErrorCode::none);
}

TEST_F(CompressionTypeTest, RebuiltBatchOverMaxMessageBytesIsMessageTooLarge) {
    protocol::RecordSpec big;
    big.value = std::string(200000, 'x');
    const auto plain = protocol::build_record_batch({}, {big});
    const auto sent = in_codec(plain, Compression::zstd);
    ASSERT_LT(sent.size(), 10000u);
    create_topic("u", 1, {{"compression.type", "uncompressed"}, {"max.message.bytes", "10000"}});
    EXPECT_EQ(produce("u", 0, sent).error_code, ErrorCode::message_too_large);
    EXPECT_EQ(high_watermark("u"), 0);
    // Stored as sent on a topic in the producer's codec: the batch itself is small enough.
    create_topic("z", 1, {{"compression.type", "zstd"}, {"max.message.bytes", "10000"}});
    EXPECT_EQ(produce("z", 0, sent).error_code, ErrorCode::none);
}

TEST_F(CompressionTypeTest, IdempotenceChecksSeeTheRebuiltBatch) {
    create_topic("z", 1, {{"compression.type", "zstd"}});
    protocol::BatchSpec spec;
    spec.producer_id = new_producer_id();
    spec.producer_epoch = 0;
    spec.base_sequence = 0;
    const auto batch = in_codec(make_batch(3, spec), Compression::lz4);
    auto first = produce("z", 0, batch);
    ASSERT_EQ(first.error_code, ErrorCode::none);
    auto retry = produce("z", 0, batch);
    EXPECT_EQ(retry.error_code, ErrorCode::none);
    EXPECT_EQ(retry.base_offset, first.base_offset);
    EXPECT_EQ(high_watermark("z"), 3);  // stored once
    spec.base_sequence = 7;             // a gap
    EXPECT_EQ(produce("z", 0, in_codec(make_batch(1, spec), Compression::gzip)).error_code,
              ErrorCode::out_of_order_sequence_number);
    spec.base_sequence = 3;
    EXPECT_EQ(produce("z", 0, in_codec(make_batch(1, spec), Compression::gzip)).base_offset, 3);
    const auto batches = stored("z");
    ASSERT_EQ(batches.size(), 2u);
    EXPECT_EQ(batches[1].first.producer_id, spec.producer_id);
    EXPECT_EQ(batches[1].first.base_sequence, 3);
    EXPECT_EQ(batches[1].first.compression(), Compression::zstd);
}

}  // namespace
}  // namespace skiff::broker::test
