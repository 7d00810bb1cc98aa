// ListOffsets: earliest (-2), latest (-1), the first offset at or after a timestamp, the max
// timestamp (-3, v7), earliest local (-4, v8), latest tiered (-5, v9), earliest pending upload
// (-6, v11), special timestamps in versions before theirs, and unknown partitions.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/compression/batch_recompress.h"
#include "protocol/compression/compression.h"
#include "protocol/list_offsets.h"
#include "protocol/produce.h"
#include "protocol/record_builder.h"

namespace skiff::broker::test {
namespace {

using protocol::ListOffsetsPartitionResponse;
using protocol::ListOffsetsRequest;

constexpr int16_t kLatestListOffsets = 10;

class ListOffsetsTest : public HandlerTest {
  protected:
    void produce(const std::string& topic, int records, int64_t base_timestamp) {
        protocol::BatchSpec spec;
        spec.base_timestamp = base_timestamp;
        auto batch = make_batch(records, spec);  // record i at base_timestamp + i
        protocol::ProduceRequest req;
        req.acks = -1;
        req.topic_data.push_back({topic, {}, {{0, std::span<const std::byte>(batch)}}});
        auto resp = run(handle_produce, req, 9);
        ASSERT_EQ(resp.responses[0].partition_responses[0].error_code, ErrorCode::none);
    }
    ListOffsetsPartitionResponse list(const std::string& topic, int32_t partition,
                                      int64_t timestamp, int16_t version = kLatestListOffsets) {
        ListOffsetsRequest req;
        req.topics.push_back({topic, {{partition, -1, timestamp, 1}}});
        auto resp = run(handle_list_offsets, req, version);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1)
            throw std::runtime_error("expected one topic with one partition");
        EXPECT_EQ(resp.topics[0].name, topic);
        EXPECT_EQ(resp.topics[0].partitions[0].partition_index, partition);
        return resp.topics[0].partitions[0];
    }
    // Offsets 0-1 at 1000-1001, 2-4 at 2000-2002, 5 at 1500 (timestamps need not grow).
    void three_batches() {
        create_topic("t");
        produce("t", 2, 1000);
        produce("t", 3, 2000);
        produce("t", 1, 1500);
    }
};

TEST_F(ListOffsetsTest, EarliestAndLatest) {
    three_batches();
    auto earliest = list("t", 0, protocol::kListOffsetsEarliest);
    EXPECT_EQ(earliest.error_code, ErrorCode::none);
    EXPECT_EQ(earliest.offset, 0);
    EXPECT_EQ(earliest.timestamp, -1);
    auto latest = list("t", 0, protocol::kListOffsetsLatest);
    EXPECT_EQ(latest.error_code, ErrorCode::none);
    EXPECT_EQ(latest.offset, 6);
    EXPECT_EQ(latest.timestamp, -1);
}

TEST_F(ListOffsetsTest, EmptyPartition) {
    create_topic("t");
    EXPECT_EQ(list("t", 0, protocol::kListOffsetsEarliest).offset, 0);
    EXPECT_EQ(list("t", 0, protocol::kListOffsetsLatest).offset, 0);
    auto by_time = list("t", 0, 0);
    EXPECT_EQ(by_time.error_code, ErrorCode::none);
    EXPECT_EQ(by_time.offset, -1);
    auto max = list("t", 0, protocol::kListOffsetsMaxTimestamp);
    EXPECT_EQ(max.error_code, ErrorCode::none);
    EXPECT_EQ(max.offset, -1);
    EXPECT_EQ(max.timestamp, -1);
}

TEST_F(ListOffsetsTest, EarliestFollowsTheLogStartAfterRetention) {
    create_topic("t", 1, {{"segment.bytes", "100"}, {"retention.bytes", "1"}});
    produce("t", 2, 1000);
    produce("t", 2, 1000);
    broker().logs().run_retention();
    EXPECT_EQ(list("t", 0, protocol::kListOffsetsEarliest).offset, 2);
    EXPECT_EQ(list("t", 0, protocol::kListOffsetsLatest).offset, 4);
}

TEST_F(ListOffsetsTest, ByTimestampFindsTheFirstRecordAtOrAfterIt) {
    three_batches();
    auto exact = list("t", 0, 1000);
    EXPECT_EQ(exact.error_code, ErrorCode::none);
    EXPECT_EQ(exact.offset, 0);
    EXPECT_EQ(exact.timestamp, 1000);

    auto within_batch = list("t", 0, 1001);
    EXPECT_EQ(within_batch.offset, 1);
    EXPECT_EQ(within_batch.timestamp, 1001);

    auto between = list("t", 0, 1900);
    EXPECT_EQ(between.offset, 2);
    EXPECT_EQ(between.timestamp, 2000);

    // 1500 is at offset 5, but offset 2 (2000) comes first in the log.
    auto out_of_order = list("t", 0, 1500);
    EXPECT_EQ(out_of_order.offset, 2);
    EXPECT_EQ(out_of_order.timestamp, 2000);

    auto before_all = list("t", 0, 1);
    EXPECT_EQ(before_all.offset, 0);
    EXPECT_EQ(before_all.timestamp, 1000);

    auto after_all = list("t", 0, 5000);
    EXPECT_EQ(after_all.error_code, ErrorCode::none);
    EXPECT_EQ(after_all.offset, -1);
    EXPECT_EQ(after_all.timestamp, -1);
}

TEST_F(ListOffsetsTest, MaxTimestamp) {
    three_batches();
    auto max = list("t", 0, protocol::kListOffsetsMaxTimestamp);
    EXPECT_EQ(max.error_code, ErrorCode::none);
    EXPECT_EQ(max.timestamp, 2002);
    EXPECT_EQ(max.offset, 4);
}

// Kafka answers the earliest record carrying the max timestamp (RecordBatch.offsetOfMaxTimestamp),
// not the last offset of its batch: here offset 1 of the batch 0-2, compressed or not.
TEST_F(ListOffsetsTest, MaxTimestampIsTheRecordInsideItsBatch) {
    for (auto codec : {protocol::Compression::none, protocol::Compression::gzip}) {
        SCOPED_TRACE(protocol::compression_name(codec));
        const std::string topic = std::string("t-") + protocol::compression_name(codec);
        create_topic(topic);
        std::vector<protocol::RecordSpec> records(3);
        const int64_t deltas[] = {0, 50, 10};  // 1000, 1050, 1010
        for (size_t i = 0; i < records.size(); ++i) {
            records[i].value = "v" + std::to_string(i);
            records[i].timestamp_delta = deltas[i];
        }
        protocol::BatchSpec spec;
        spec.base_timestamp = 1000;
        auto batch = protocol::build_record_batch(spec, records);
        if (codec != protocol::Compression::none) {
            std::vector<std::byte> scratch, compressed;
            ASSERT_TRUE(protocol::compression::recompress_batches(batch, codec, 1 << 20, scratch,
                                                                  compressed));
            batch = std::move(compressed);
        }
        protocol::ProduceRequest req;
        req.acks = -1;
        req.topic_data.push_back({topic, {}, {{0, std::span<const std::byte>(batch)}}});
        auto produced = run(handle_produce, req, 9);
        ASSERT_EQ(produced.responses[0].partition_responses[0].error_code, ErrorCode::none);

        auto max = list(topic, 0, protocol::kListOffsetsMaxTimestamp);
        EXPECT_EQ(max.error_code, ErrorCode::none);
        EXPECT_EQ(max.timestamp, 1050);
        EXPECT_EQ(max.offset, 1);
    }
}

TEST_F(ListOffsetsTest, EarliestLocalIsTheLogStartWithoutTieredStorage) {
    create_topic("t", 1, {{"segment.bytes", "100"}, {"retention.bytes", "1"}});
    produce("t", 2, 1000);
    produce("t", 2, 1000);
    broker().logs().run_retention();
    for (int16_t v : {8, 9, 10}) {
        auto r = list("t", 0, protocol::kListOffsetsEarliestLocal, v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.offset, 2) << "v" << v;
        EXPECT_EQ(r.timestamp, -1) << "v" << v;
    }
}

TEST_F(ListOffsetsTest, LatestTieredIsNothingWithoutTieredStorage) {
    three_batches();
    for (int16_t v : {9, 10}) {
        auto r = list("t", 0, protocol::kListOffsetsLatestTiered, v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.offset, -1) << "v" << v;
        EXPECT_EQ(r.timestamp, -1) << "v" << v;
        EXPECT_EQ(r.leader_epoch, -1) << "v" << v;
    }
}

TEST_F(ListOffsetsTest, EarliestPendingUploadIsNothingWithoutRemoteStorage) {
    three_batches();
    auto r = list("t", 0, protocol::kListOffsetsEarliestPendingUpload, 11);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.offset, -1);
    EXPECT_EQ(r.timestamp, -1);
    EXPECT_EQ(r.leader_epoch, -1);
}

TEST_F(ListOffsetsTest, ASpecialTimestampBeforeItsVersionIsUnsupportedVersion) {
    three_batches();
    struct Case {
        int64_t timestamp;
        int16_t version;
    };
    for (auto c :
         {Case{protocol::kListOffsetsMaxTimestamp, 6}, Case{protocol::kListOffsetsEarliestLocal, 7},
          Case{protocol::kListOffsetsLatestTiered, 8},
          Case{protocol::kListOffsetsEarliestPendingUpload, 10}}) {
        auto r = list("t", 0, c.timestamp, c.version);
        EXPECT_EQ(r.error_code, ErrorCode::unsupported_version) << c.timestamp;
        EXPECT_EQ(r.offset, -1) << c.timestamp;
    }
    // One version later each is answered.
    EXPECT_EQ(list("t", 0, protocol::kListOffsetsMaxTimestamp, 7).offset, 4);
    EXPECT_EQ(list("t", 0, protocol::kListOffsetsEarliestLocal, 8).offset, 0);
    EXPECT_EQ(list("t", 0, protocol::kListOffsetsLatestTiered, 9).error_code, ErrorCode::none);
}

TEST_F(ListOffsetsTest, UnknownTopicOrPartition) {
    create_topic("t", 1);
    for (auto [topic, partition] : {std::pair<std::string, int32_t>{"missing", 0}, {"t", 1}}) {
        auto r = list(topic, partition, protocol::kListOffsetsLatest);
        EXPECT_EQ(r.error_code, ErrorCode::unknown_topic_or_partition) << topic << partition;
        EXPECT_EQ(r.offset, -1);
        EXPECT_EQ(r.timestamp, -1);
    }
}

TEST_F(ListOffsetsTest, EverySupportedVersion) {
    three_batches();
    for (int16_t v = 1; v <= kLatestListOffsets; ++v) {
        EXPECT_EQ(list("t", 0, protocol::kListOffsetsLatest, v).offset, 6) << "v" << v;
        EXPECT_EQ(list("t", 0, protocol::kListOffsetsEarliest, v).offset, 0) << "v" << v;
        EXPECT_EQ(list("t", 0, 1900, v).offset, 2) << "v" << v;
    }
}

// read_committed (v2+): LATEST is the last stable offset, and a timestamp lookup finds nothing
// at or past it; read_uncommitted and v0-1 answer the high watermark.
TEST_F(ListOffsetsTest, ReadCommittedLatestIsTheLastStableOffset) {
    three_batches();  // 0-5
    protocol::BatchSpec spec;
    spec.producer_id = 3;
    spec.producer_epoch = 0;
    spec.base_sequence = 0;
    spec.base_timestamp = 5000;
    spec.attributes = 0x10;  // transactional, left open: 6-7
    auto batch = make_batch(2, spec);
    auto summaries = protocol::validate_batches(batch);
    ASSERT_TRUE(summaries);
    auto& log = *broker().logs().get({"t", 0});
    ASSERT_TRUE(log.append(batch, *summaries));
    auto ask = [&](int64_t timestamp, int8_t isolation, int16_t version) {
        ListOffsetsRequest req;
        req.isolation_level = isolation;
        req.topics.push_back({"t", {{0, -1, timestamp, 1}}});
        return run(handle_list_offsets, req, version).topics.at(0).partitions.at(0);
    };
    EXPECT_EQ(ask(protocol::kListOffsetsLatest, 1, kLatestListOffsets).offset, 6);
    EXPECT_EQ(ask(protocol::kListOffsetsLatest, 0, kLatestListOffsets).offset, 8);
    EXPECT_EQ(ask(protocol::kListOffsetsLatest, 1, 1).offset, 8);  // v1 has no isolation level
    EXPECT_EQ(ask(5000, 1, kLatestListOffsets).offset, -1);        // only in the open txn
    EXPECT_EQ(ask(5000, 0, kLatestListOffsets).offset, 6);
    // The max timestamp (5001) is in the open transaction: not found, as in Kafka.
    EXPECT_EQ(ask(protocol::kListOffsetsMaxTimestamp, 1, kLatestListOffsets).offset, -1);
    ASSERT_TRUE(log.append_marker({3, 0, 0, true, -1}));
    EXPECT_EQ(ask(protocol::kListOffsetsLatest, 1, kLatestListOffsets).offset, 9);
    EXPECT_EQ(ask(5000, 1, kLatestListOffsets).offset, 6);
}

}  // namespace
}  // namespace skiff::broker::test
