// DescribeProducers (KIP-664): the producer state of a partition after idempotent produce (id,
// epoch, last sequence, last timestamp), the transactional producer of a pending TxnOffsetCommit
// on __consumer_offsets (its open transaction's first offset), partitions without producers, and
// unknown topics or partitions.
#include <gtest/gtest.h>

#include "broker/group/group_coordinator.h"
#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::DescribeProducersRequest;

class DescribeProducersTest : public HandlerTest {
  protected:
    protocol::DescribeProducersResponse describe(const std::string& topic,
                                                 std::vector<int32_t> partitions) {
        DescribeProducersRequest req;
        req.topics = {{topic, std::move(partitions)}};
        return run(handle_describe_producers, req, 0);
    }
    void produce(const std::string& topic, int32_t partition, protocol::BatchSpec spec, int count) {
        auto records = make_batch(count, spec);
        auto resp = run(handle_produce, produce_request(topic, partition, records), 9);
        ASSERT_EQ(resp.responses.at(0).partition_responses.at(0).error_code, ErrorCode::none);
    }
    int64_t new_producer_id() {
        auto resp = run(handle_init_producer_id, protocol::InitProducerIdRequest{}, 4);
        EXPECT_EQ(resp.error_code, ErrorCode::none);
        return resp.producer_id;
    }
};

TEST_F(DescribeProducersTest, IdempotentProducersOfAPartition) {
    create_topic("t", 2);
    const int64_t first = new_producer_id();
    const int64_t second = new_producer_id();
    ASSERT_LT(first, second);
    protocol::BatchSpec a;
    a.producer_id = first;
    a.producer_epoch = 0;
    a.base_sequence = 0;
    a.base_timestamp = 1700000000000;
    produce("t", 0, a, 3);
    a.base_sequence = 3;
    a.base_timestamp = 1700000001000;
    produce("t", 0, a, 2);
    protocol::BatchSpec b;
    b.producer_id = second;
    b.producer_epoch = 0;
    b.base_sequence = 0;
    b.base_timestamp = 1700000002000;
    produce("t", 0, b, 1);
    produce("t", 1, {}, 1);  // no producer id: not tracked

    auto resp = describe("t", {0, 1});
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].name, "t");
    ASSERT_EQ(resp.topics[0].partitions.size(), 2u);
    const auto& p0 = resp.topics[0].partitions[0];
    EXPECT_EQ(p0.partition_index, 0);
    EXPECT_EQ(p0.error_code, ErrorCode::none);
    ASSERT_EQ(p0.active_producers.size(), 2u);
    EXPECT_EQ(p0.active_producers[0].producer_id, first);
    EXPECT_EQ(p0.active_producers[0].producer_epoch, 0);
    EXPECT_EQ(p0.active_producers[0].last_sequence, 4);
    EXPECT_EQ(p0.active_producers[0].last_timestamp, 1700000001001);  // base + delta of the last
    EXPECT_EQ(p0.active_producers[0].current_txn_start_offset, -1);
    EXPECT_EQ(p0.active_producers[0].coordinator_epoch, -1);  // no marker yet
    EXPECT_EQ(p0.active_producers[1].producer_id, second);
    EXPECT_EQ(p0.active_producers[1].last_sequence, 0);
    const auto& p1 = resp.topics[0].partitions[1];
    EXPECT_EQ(p1.error_code, ErrorCode::none);
    EXPECT_TRUE(p1.active_producers.empty());
}

TEST_F(DescribeProducersTest, UnknownTopicOrPartition) {
    create_topic("t", 1);
    auto resp = describe("t", {0, 3});
    EXPECT_EQ(resp.topics[0].partitions[0].error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics[0].partitions[1].partition_index, 3);
    EXPECT_EQ(resp.topics[0].partitions[1].error_code, ErrorCode::unknown_topic_or_partition);
    resp = describe("missing", {0});
    EXPECT_EQ(resp.topics[0].name, "missing");
    EXPECT_EQ(resp.topics[0].partitions[0].error_code, ErrorCode::unknown_topic_or_partition);
}

TEST_F(DescribeProducersTest, OpenTransactionOnTheOffsetsTopic) {
    create_topic("t");
    auto init = broker().transactions().init_producer_id("tx", 60000, -1, -1);
    ASSERT_EQ(init.error, ErrorCode::none);
    ASSERT_EQ(broker().transactions().add_partitions("tx", init.producer_id, init.producer_epoch,
                                                     {{"__consumer_offsets", 0}}),
              ErrorCode::none);
    protocol::TxnOffsetCommitRequest req;
    req.transactional_id = "tx";
    req.group_id = "g";
    req.producer_id = init.producer_id;
    req.producer_epoch = init.producer_epoch;
    req.topics = {{"t", {{0, 10, -1, std::nullopt}}}};
    auto committed = run(handle_txn_offset_commit, req, 3);
    ASSERT_EQ(committed.topics.at(0).partitions.at(0).error_code, ErrorCode::none);
    auto* log = broker().logs().get({"__consumer_offsets", 0});
    ASSERT_NE(log, nullptr);
    const int64_t txn_first = log->high_watermark() - 1;

    auto resp = describe("__consumer_offsets", {0});
    const auto& p = resp.topics.at(0).partitions.at(0);
    ASSERT_EQ(p.error_code, ErrorCode::none);
    ASSERT_EQ(p.active_producers.size(), 1u);
    EXPECT_EQ(p.active_producers[0].producer_id, init.producer_id);
    EXPECT_EQ(p.active_producers[0].producer_epoch, init.producer_epoch);
    EXPECT_EQ(p.active_producers[0].current_txn_start_offset, txn_first);

    ASSERT_EQ(
        broker().groups().complete_transaction(init.producer_id, init.producer_epoch, 0, true),
        ErrorCode::none);
    resp = describe("__consumer_offsets", {0});
    const auto& after = resp.topics.at(0).partitions.at(0).active_producers.at(0);
    EXPECT_EQ(after.current_txn_start_offset, -1);
    EXPECT_EQ(after.coordinator_epoch, 0);
}

}  // namespace
}  // namespace skiff::broker::test
