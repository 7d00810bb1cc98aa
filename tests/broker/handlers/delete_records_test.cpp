// DeleteRecords: the log start offset moves to the offset asked for (-1: the high watermark),
// never back; fetches below it are OFFSET_OUT_OF_RANGE, ListOffsets EARLIEST answers it; sealed
// segments wholly below it are deleted; an offset beyond the high watermark and an unknown
// partition get Kafka's errors (internal topics: INVALID_TOPIC_EXCEPTION); the new start survives a
// crash (restart without close).
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/fetch.h"
#include "protocol/list_offsets.h"
#include "protocol/produce.h"

namespace skiff::broker::test {
namespace {

using protocol::DeleteRecordsPartitionResult;
using protocol::DeleteRecordsRequest;

class DeleteRecordsTest : public HandlerTest {
  protected:
    void produce(int records) {
        auto batch = make_batch(records);
        protocol::ProduceRequest req;
        req.acks = -1;
        req.topic_data.push_back({"t", {}, {{0, std::span<const std::byte>(batch)}}});
        auto resp = run(handle_produce, req, 9);
        ASSERT_EQ(resp.responses[0].partition_responses[0].error_code, ErrorCode::none);
    }
    DeleteRecordsPartitionResult remove(const std::string& topic, int32_t partition, int64_t offset,
                                        int16_t version = 2) {
        DeleteRecordsRequest req;
        req.timeout_ms = 1000;
        req.topics.push_back({topic, {{partition, offset}}});
        auto resp = run(handle_delete_records, req, version);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1)
            throw std::runtime_error("expected one topic with one partition");
        EXPECT_EQ(resp.topics[0].name, topic);
        EXPECT_EQ(resp.topics[0].partitions[0].partition_index, partition);
        return resp.topics[0].partitions[0];
    }
    int64_t earliest() {
        protocol::ListOffsetsRequest req;
        req.topics.push_back({"t", {{0, -1, protocol::kListOffsetsEarliest, 1}}});
        return run(handle_list_offsets, req, 7).topics[0].partitions[0].offset;
    }
    ErrorCode fetch_error(int64_t offset) {
        protocol::FetchRequest req;
        req.max_wait_ms = 0;
        protocol::FetchTopic topic;
        topic.topic = "t";
        protocol::FetchPartition partition;
        partition.fetch_offset = offset;
        partition.partition_max_bytes = 1 << 20;
        topic.partitions.push_back(partition);
        req.topics.push_back(topic);
        return run(handle_fetch, req, 12).responses[0].partitions[0].error_code;
    }
    size_t segment_files() {
        size_t n = 0;
        for (const auto& e : fs::directory_iterator(broker().logs().get({"t", 0})->dir()))
            n += e.path().extension() == ".log";
        return n;
    }
};

TEST_F(DeleteRecordsTest, MovesTheLogStartOffsetEveryVersion) {
    create_topic("t");
    produce(10);
    for (int16_t v = 0; v <= 2; ++v) {
        auto r = remove("t", 0, 3 + v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.low_watermark, 3 + v) << "v" << v;
    }
    EXPECT_EQ(earliest(), 5);
    EXPECT_EQ(fetch_error(4), ErrorCode::offset_out_of_range);
    EXPECT_EQ(fetch_error(5), ErrorCode::none);
}

TEST_F(DeleteRecordsTest, NeverMovesBackAndMinusOneMeansTheHighWatermark) {
    create_topic("t");
    produce(10);
    EXPECT_EQ(remove("t", 0, 6).low_watermark, 6);
    auto back = remove("t", 0, 2);
    EXPECT_EQ(back.error_code, ErrorCode::none);
    EXPECT_EQ(back.low_watermark, 6);
    auto all = remove("t", 0, -1);
    EXPECT_EQ(all.error_code, ErrorCode::none);
    EXPECT_EQ(all.low_watermark, 10);
    EXPECT_EQ(earliest(), 10);
    produce(2);  // appends go on at the log end
    EXPECT_EQ(fetch_error(10), ErrorCode::none);
}

TEST_F(DeleteRecordsTest, ErrorsAsKafkaAnswersThem) {
    create_topic("t");
    produce(4);
    EXPECT_EQ(remove("t", 0, 5).error_code, ErrorCode::offset_out_of_range);
    EXPECT_EQ(remove("t", 0, -7).error_code, ErrorCode::offset_out_of_range);
    EXPECT_EQ(remove("t", 3, 1).error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(remove("missing", 0, 1).error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(remove("__consumer_offsets", 0, 0).error_code, ErrorCode::invalid_topic_exception);
    EXPECT_EQ(earliest(), 0);
}

TEST_F(DeleteRecordsTest, DeletesSegmentsWhollyBelowTheNewStart) {
    // A tiny segment size: every produce of 5 records rolls a new segment. No time retention:
    // the test batches carry old timestamps.
    create_topic("t", 1, {{"segment.bytes", "100"}, {"retention.ms", "-1"}});
    for (int i = 0; i < 4; ++i)
        produce(5);
    const size_t before = segment_files();
    ASSERT_EQ(before, 4u);
    EXPECT_EQ(remove("t", 0, 12).low_watermark, 12);
    EXPECT_EQ(segment_files(), 2u);  // [0-4] and [5-9] are gone, [10-14] holds 12
    EXPECT_EQ(fetch_error(12), ErrorCode::none);
    EXPECT_EQ(fetch_error(11), ErrorCode::offset_out_of_range);
}

TEST_F(DeleteRecordsTest, TheNewStartSurvivesACrash) {
    create_topic("t");
    produce(10);
    ASSERT_EQ(remove("t", 0, 7).low_watermark, 7);
    restart();  // no clean close: only what was written before the answer counts
    EXPECT_EQ(earliest(), 7);
    EXPECT_EQ(fetch_error(6), ErrorCode::offset_out_of_range);
}

}  // namespace
}  // namespace skiff::broker::test
