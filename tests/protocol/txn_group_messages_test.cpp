// Round trips for the group side of transactions (TxnOffsetCommit 0-4, DescribeProducers 0) at
// every served version, plus byte-level checks of the fields whose wire types are easy to get
// wrong (DescribeProducers' int32 epoch, TxnOffsetCommit v3's group identity and tag buffers).
#include <gtest/gtest.h>

#include "protocol/api_table.h"
#include "protocol/protocol.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;
using test::for_each_version;
using test::memory_of;
using test::round_trip;

TEST(TxnGroupApis, VersionRanges) {
    const ApiSupport* commit = find_api(static_cast<int16_t>(ApiKey::txn_offset_commit));
    ASSERT_NE(commit, nullptr);
    EXPECT_EQ(commit->min_version, 0);  // librdkafka sends 0-3
    EXPECT_EQ(commit->max_version, 5);  // v5 is transactions V2 (KIP-890)
    EXPECT_EQ(commit->first_flexible_version, 3);
    const ApiSupport* producers = find_api(static_cast<int16_t>(ApiKey::describe_producers));
    ASSERT_NE(producers, nullptr);
    EXPECT_EQ(producers->min_version, 0);
    EXPECT_EQ(producers->max_version, 0);
    EXPECT_EQ(producers->first_flexible_version, 0);
}

TEST(TxnGroupRoundTrip, TxnOffsetCommit) {
    TxnOffsetCommitRequest req;
    req.transactional_id = "txn";
    req.group_id = "g";
    req.producer_id = 1234567890123;
    req.producer_epoch = 7;
    req.generation_id = 3;
    req.member_id = "m";
    req.group_instance_id = "i";
    TxnOffsetCommitRequestPartition p;
    p.partition_index = 2;
    p.committed_offset = 42;
    p.committed_leader_epoch = 5;
    p.committed_metadata = "meta";
    TxnOffsetCommitRequestPartition q;
    q.partition_index = 3;
    q.committed_offset = 7;
    req.topics = {{"t", {p, q}}};
    TxnOffsetCommitResponse resp;
    resp.throttle_time_ms = 4;
    resp.topics = {{"t", {{2, ErrorCode::none}, {3, ErrorCode::unknown_topic_or_partition}}}};
    for_each_version(ApiKey::txn_offset_commit, [&](int16_t v) {
        round_trip(req, v, [&](const TxnOffsetCommitRequest& d) {
            EXPECT_EQ(d.transactional_id, "txn");
            EXPECT_EQ(d.group_id, "g");
            EXPECT_EQ(d.producer_id, 1234567890123);
            EXPECT_EQ(d.producer_epoch, 7);
            EXPECT_EQ(d.generation_id, v >= 3 ? 3 : -1);
            EXPECT_EQ(d.member_id, v >= 3 ? "m" : "");
            EXPECT_EQ(d.group_instance_id.has_value(), v >= 3);
            const auto& dp = d.topics.at(0).partitions.at(0);
            EXPECT_EQ(dp.partition_index, 2);
            EXPECT_EQ(dp.committed_offset, 42);
            EXPECT_EQ(dp.committed_leader_epoch, v >= 2 ? 5 : -1);
            EXPECT_EQ(dp.committed_metadata, "meta");
            EXPECT_FALSE(d.topics.at(0).partitions.at(1).committed_metadata.has_value());
        });
        round_trip(resp, v, [&](const TxnOffsetCommitResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, 4);
            ASSERT_EQ(d.topics.at(0).partitions.size(), 2u);
            EXPECT_EQ(d.topics.at(0).partitions[1].error_code,
                      ErrorCode::unknown_topic_or_partition);
        });
    });
}

TEST(TxnGroupBytes, TxnOffsetCommitV3RequestIsCompactWithGroupIdentity) {
    TxnOffsetCommitRequest req;
    req.transactional_id = "x";
    req.group_id = "g";
    req.producer_id = 1;
    req.producer_epoch = 2;
    req.generation_id = 3;
    req.member_id = "m";
    req.group_instance_id = std::nullopt;
    req.topics = {{"t", {{0, 5, -1, std::nullopt}}}};
    OutBuffer out;
    encode_message(req, 3, out);
    auto want = bytes({
        2,    'x',                           // transactional_id (compact: length + 1)
        2,    'g',                           // group_id
        0,    0,    0,    0,    0, 0, 0, 1,  // producer_id
        0,    2,                             // producer_epoch
        0,    0,    0,    3,                 // generation_id
        2,    'm',                           // member_id
        0,                                   // group_instance_id null
        2,                                   // one topic
        2,    't',                           // name
        2,                                   // one partition
        0,    0,    0,    0,                 // partition_index
        0,    0,    0,    0,    0, 0, 0, 5,  // committed_offset
        0xff, 0xff, 0xff, 0xff,              // committed_leader_epoch
        0,                                   // committed_metadata null
        0,                                   // partition tags
        0,                                   // topic tags
        0,                                   // request tags
    });
    EXPECT_EQ(memory_of(out), want);
}

TEST(TxnGroupRoundTrip, DescribeProducers) {
    DescribeProducersRequest req;
    req.topics = {{"t", {0, 1, 2}}, {"u", {}}};
    DescribeProducersResponse resp;
    resp.throttle_time_ms = 1;
    DescribedProducer prod;
    prod.producer_id = 9000;
    prod.producer_epoch = 32767;
    prod.last_sequence = 99;
    prod.last_timestamp = 1700000000000;
    prod.coordinator_epoch = 0;
    prod.current_txn_start_offset = 17;
    DescribeProducersResponsePartition ok;
    ok.partition_index = 0;
    ok.active_producers = {prod};
    DescribeProducersResponsePartition bad;
    bad.partition_index = 5;
    bad.error_code = ErrorCode::unknown_topic_or_partition;
    bad.error_message = "no such partition";
    resp.topics = {{"t", {ok, bad}}};
    for_each_version(ApiKey::describe_producers, [&](int16_t v) {
        round_trip(req, v, [&](const DescribeProducersRequest& d) {
            ASSERT_EQ(d.topics.size(), 2u);
            EXPECT_EQ(d.topics[0].partition_indexes, (std::vector<int32_t>{0, 1, 2}));
            EXPECT_TRUE(d.topics[1].partition_indexes.empty());
        });
        round_trip(resp, v, [&](const DescribeProducersResponse& d) {
            const auto& p = d.topics.at(0).partitions.at(0);
            ASSERT_EQ(p.active_producers.size(), 1u);
            EXPECT_EQ(p.active_producers[0].producer_id, 9000);
            EXPECT_EQ(p.active_producers[0].producer_epoch, 32767);
            EXPECT_EQ(p.active_producers[0].last_sequence, 99);
            EXPECT_EQ(p.active_producers[0].last_timestamp, 1700000000000);
            EXPECT_EQ(p.active_producers[0].coordinator_epoch, 0);
            EXPECT_EQ(p.active_producers[0].current_txn_start_offset, 17);
            EXPECT_EQ(d.topics.at(0).partitions.at(1).error_message, "no such partition");
        });
    });
}

TEST(TxnGroupBytes, DescribeProducersEpochIsInt32) {
    DescribeProducersResponse resp;
    DescribedProducer prod;
    prod.producer_id = 1;
    prod.producer_epoch = 2;
    prod.last_sequence = 3;
    prod.last_timestamp = 4;
    prod.coordinator_epoch = 5;
    prod.current_txn_start_offset = -1;
    DescribeProducersResponsePartition p;
    p.partition_index = 0;
    p.active_producers = {prod};
    resp.topics = {{"t", {p}}};
    OutBuffer out;
    encode_message(resp, 0, out);
    auto want = bytes({
        0,    0,    0,    0,                             // throttle_time_ms
        2,                                               // one topic
        2,    't',                                       // name
        2,                                               // one partition
        0,    0,    0,    0,                             // partition_index
        0,    0,                                         // error_code
        0,                                               // error_message null
        2,                                               // one producer
        0,    0,    0,    0,    0,    0,    0,    1,     // producer_id
        0,    0,    0,    2,                             // producer_epoch (int32)
        0,    0,    0,    3,                             // last_sequence
        0,    0,    0,    0,    0,    0,    0,    4,     // last_timestamp
        0,    0,    0,    5,                             // coordinator_epoch
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // current_txn_start_offset
        0,                                               // producer tags
        0,                                               // partition tags
        0,                                               // topic tags
        0,                                               // response tags
    });
    EXPECT_EQ(memory_of(out), want);
}

}  // namespace
}  // namespace skiff::protocol
