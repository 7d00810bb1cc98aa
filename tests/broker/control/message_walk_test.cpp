// The generic walks over requests and responses (broker/control/message_walk.h): the topics,
// partitions, groups and transactional ids real requests name, and error codes written where a
// rule targets them, for the message shapes Kafka has (Metadata puts the error before the name).
#include <gtest/gtest.h>

#include "broker/control/fault_responses.h"
#include "broker/control/message_walk.h"

namespace skiff::broker::control {
namespace {

using protocol::ErrorCode;

TEST(MessageWalkTest, ProduceRequestNamesTopicsPartitionsAcksAndTransactionalId) {
    protocol::ProduceRequest req;
    req.acks = -1;
    req.transactional_id = "tx-1";
    req.topic_data.push_back({"a", {}, {{0, std::nullopt}, {2, std::nullopt}}});
    req.topic_data.push_back({"b", {}, {{1, std::nullopt}}});
    auto facts = request_facts(req, 9);
    ASSERT_EQ(facts.topics.size(), 2u);
    EXPECT_EQ(facts.topics[0].name, "a");
    EXPECT_EQ(facts.topics[0].partitions, (std::vector<int32_t>{0, 2}));
    EXPECT_EQ(facts.topics[1].partitions, (std::vector<int32_t>{1}));
    EXPECT_EQ(facts.acks, -1);
    EXPECT_EQ(facts.transactional_ids, (std::vector<std::string>{"tx-1"}));
}

TEST(MessageWalkTest, FetchOffsetFetchFindCoordinatorAndDescribeGroups) {
    protocol::FetchRequest fetch;
    fetch.isolation_level = 1;
    protocol::FetchTopic topic;
    topic.topic = "t";
    topic.partitions.resize(2);
    topic.partitions[1].partition = 3;
    fetch.topics.push_back(topic);
    fetch.forgotten_topics_data.push_back({"gone", {}, {5}});
    auto facts = request_facts(fetch, 11);
    ASSERT_EQ(facts.topics.size(), 1u);  // forgotten topics are not fetched
    EXPECT_EQ(facts.topics[0].partitions, (std::vector<int32_t>{0, 3}));
    EXPECT_EQ(facts.isolation_level, 1);

    protocol::OffsetFetchRequest offsets;
    offsets.group_id = "g";
    offsets.topics = std::vector<protocol::OffsetFetchRequestTopic>{{"t", {}, {0, 1}}};
    auto of = request_facts(offsets, 7);
    EXPECT_EQ(of.groups, (std::vector<std::string>{"g"}));
    ASSERT_EQ(of.topics.size(), 1u);
    EXPECT_EQ(of.topics[0].partitions, (std::vector<int32_t>{0, 1}));

    protocol::FindCoordinatorRequest txn;
    txn.key_type = 1;
    txn.coordinator_keys = {"tx"};
    auto fc = request_facts(txn, 4);
    EXPECT_TRUE(fc.groups.empty());
    EXPECT_EQ(fc.transactional_ids, (std::vector<std::string>{"tx"}));

    protocol::DescribeGroupsRequest dg;
    dg.groups = {"g1", "g2"};
    EXPECT_EQ(request_facts(dg, 5).groups, (std::vector<std::string>{"g1", "g2"}));
}

TEST(MessageWalkTest, ErrorsGoIntoTheTargetedPartitionOnly) {
    protocol::FetchResponse resp;
    protocol::FetchableTopicResponse t;
    t.topic = "t";
    t.partitions.resize(2);
    t.partitions[1].partition_index = 1;
    resp.responses.push_back(t);
    Fired fired;
    fired.topic = "t";
    fired.partition = 1;
    overwrite_errors(resp, 12, ErrorCode::not_leader_or_follower, false,
                     [&](std::string_view name, const protocol::Uuid& id,
                         std::optional<int32_t> p) { return fired.targets(name, id, p); });
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    EXPECT_EQ(resp.responses[0].partitions[0].error_code, ErrorCode::none);
    EXPECT_EQ(resp.responses[0].partitions[1].error_code, ErrorCode::not_leader_or_follower);
}

TEST(MessageWalkTest, MetadataErrorBeforeNameStillFindsItsTopic) {
    protocol::MetadataResponse resp;
    protocol::MetadataResponseTopic a, b;
    a.name = "a";
    b.name = "b";
    a.partitions.resize(1);
    b.partitions.resize(1);
    resp.topics = {a, b};
    Fired fired;
    fired.topic = "b";
    overwrite_errors(resp, 9, ErrorCode::leader_not_available, false,
                     [&](std::string_view name, const protocol::Uuid& id,
                         std::optional<int32_t> p) { return fired.targets(name, id, p); });
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics[1].error_code, ErrorCode::leader_not_available);
    EXPECT_EQ(resp.topics[1].partitions[0].error_code, ErrorCode::leader_not_available);
}

TEST(MessageWalkTest, TopLevelAnswerAndProduceSplit) {
    protocol::HeartbeatResponse hb;
    overwrite_errors(
        hb, 4, ErrorCode::rebalance_in_progress, true,
        [](std::string_view, const protocol::Uuid&, std::optional<int32_t>) { return true; });
    EXPECT_EQ(hb.error_code, ErrorCode::rebalance_in_progress);

    protocol::ProduceRequest req;
    req.acks = 1;
    req.topic_data.push_back({"t", {}, {{0, std::nullopt}, {1, std::nullopt}}});
    Fired fired;
    fired.topic = "t";
    fired.partition = 0;
    fired.error = ErrorCode::not_enough_replicas;
    auto split = split_produce(req, fired);
    ASSERT_EQ(split.rest.topic_data.size(), 1u);
    ASSERT_EQ(split.rest.topic_data[0].partition_data.size(), 1u);
    EXPECT_EQ(split.rest.topic_data[0].partition_data[0].index, 1);
    protocol::ProduceResponse resp;
    resp.responses.push_back({"t", {}, {}});
    resp.responses[0].partition_responses.push_back({});
    resp.responses[0].partition_responses[0].index = 1;
    merge_produce(resp, std::move(split.refused));
    ASSERT_EQ(resp.responses.size(), 1u);
    ASSERT_EQ(resp.responses[0].partition_responses.size(), 2u);
    EXPECT_EQ(resp.responses[0].partition_responses[1].index, 0);
    EXPECT_EQ(resp.responses[0].partition_responses[1].error_code, ErrorCode::not_enough_replicas);
}

}  // namespace
}  // namespace skiff::broker::control
