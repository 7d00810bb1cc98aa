// ConsumerGroupHeartbeat and ConsumerGroupDescribe through their handlers: topic names in the
// group, topic ids on the wire both ways, an owned partition of a deleted topic, the request's
// errors with their messages, and ACLs.
#include <gtest/gtest.h>

#include <limits>

#include "broker/topics/topic_ids.h"
#include "group_config_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::ConsumerGroupDescribeRequest;
using protocol::ConsumerGroupHeartbeatRequest;

constexpr int16_t kHeartbeatVersion = 1;
constexpr int16_t kDescribeVersion = 1;

class ConsumerGroupHeartbeatTest : public GroupConfigTest {
  protected:
    void SetUp() override { create_topic("orders", 4); }
    protocol::Uuid id_of(const std::string& topic) {
        auto id = broker().topics().topic_id(topic);
        EXPECT_TRUE(id);
        return to_uuid(id.value_or(storage::TopicId{}));
    }
    static ConsumerGroupHeartbeatRequest join(const std::string& member) {
        ConsumerGroupHeartbeatRequest req;
        req.group_id = "g";
        req.member_id = member;
        req.member_epoch = 0;
        req.rebalance_timeout_ms = 30000;
        req.subscribed_topic_names = std::vector<std::string>{"orders"};
        req.topic_partitions.emplace();
        return req;
    }
};

TEST_F(ConsumerGroupHeartbeatTest, JoinsAndGetsTheTopicsPartitionsByTopicId) {
    auto resp = run(handle_consumer_group_heartbeat, join("m1"), kHeartbeatVersion);
    ASSERT_EQ(resp.error_code, ErrorCode::none) << resp.error_message.value_or("");
    EXPECT_EQ(resp.member_id, "m1");
    EXPECT_EQ(resp.member_epoch, 1);
    ASSERT_TRUE(resp.assignment);
    ASSERT_EQ(resp.assignment->topic_partitions.size(), 1u);
    EXPECT_EQ(resp.assignment->topic_partitions[0].topic_id, id_of("orders"));
    EXPECT_EQ(resp.assignment->topic_partitions[0].partitions, (std::vector<int32_t>{0, 1, 2, 3}));

    ConsumerGroupDescribeRequest d;
    d.group_ids = {"g", "missing"};
    auto described = run(handle_consumer_group_describe, d, kDescribeVersion);
    ASSERT_EQ(described.groups.size(), 2u);
    const auto& g = described.groups[0];
    EXPECT_EQ(g.error_code, ErrorCode::none);
    EXPECT_EQ(g.group_state, "Stable");
    EXPECT_EQ(g.group_epoch, 1);
    EXPECT_EQ(g.assignor_name, "uniform");
    ASSERT_EQ(g.members.size(), 1u);
    EXPECT_EQ(g.members[0].member_id, "m1");
    EXPECT_EQ(g.members[0].subscribed_topic_names, (std::vector<std::string>{"orders"}));
    EXPECT_EQ(g.members[0].member_type,
              protocol::DescribedConsumerGroupMember::kMemberTypeConsumer);
    ASSERT_EQ(g.members[0].assignment.topic_partitions.size(), 1u);
    EXPECT_EQ(g.members[0].assignment.topic_partitions[0].topic_name, "orders");
    EXPECT_EQ(g.members[0].assignment.topic_partitions[0].topic_id, id_of("orders"));
    EXPECT_EQ(g.members[0].target_assignment.topic_partitions[0].partitions.size(), 4u);
    EXPECT_EQ(described.groups[1].error_code, ErrorCode::group_id_not_found);
}

// KIP-430 without an authorizer: every operation of a group (READ 3, DELETE 6, DESCRIBE 8,
// DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11) when asked, for a group described without error.
TEST_F(ConsumerGroupHeartbeatTest, DescribeAnswersAuthorizedOperationsWhenAsked) {
    run(handle_consumer_group_heartbeat, join("m1"), kHeartbeatVersion);
    ConsumerGroupDescribeRequest d;
    d.group_ids = {"g", "missing"};
    auto described = run(handle_consumer_group_describe, d, kDescribeVersion);
    EXPECT_EQ(described.groups.at(0).authorized_operations, std::numeric_limits<int32_t>::min());
    d.include_authorized_operations = true;
    described = run(handle_consumer_group_describe, d, kDescribeVersion);
    EXPECT_EQ(described.groups.at(0).authorized_operations,
              (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11));
    EXPECT_EQ(described.groups.at(1).error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(described.groups.at(1).authorized_operations, std::numeric_limits<int32_t>::min());
}

TEST_F(ConsumerGroupHeartbeatTest, OwnedPartitionsAreReadByTopicId) {
    auto first = run(handle_consumer_group_heartbeat, join("m1"), kHeartbeatVersion);
    run(handle_consumer_group_heartbeat, join("m2"), kHeartbeatVersion);
    // m1 says it owns all four: it must revoke two and stays at epoch 1.
    ConsumerGroupHeartbeatRequest hb;
    hb.group_id = "g";
    hb.member_id = "m1";
    hb.member_epoch = first.member_epoch;
    hb.topic_partitions = first.assignment->topic_partitions;
    auto r = run(handle_consumer_group_heartbeat, hb, kHeartbeatVersion);
    ASSERT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.member_epoch, 1);
    ASSERT_TRUE(r.assignment);
    EXPECT_EQ(r.assignment->topic_partitions[0].partitions.size(), 2u);
    // It owns only those two now: on to epoch 2.
    hb.topic_partitions = r.assignment->topic_partitions;
    EXPECT_EQ(run(handle_consumer_group_heartbeat, hb, kHeartbeatVersion).member_epoch, 2);
}

TEST_F(ConsumerGroupHeartbeatTest, ErrorsComeWithAMessage) {
    auto req = join("m1");
    req.topic_partitions.reset();
    auto r = run(handle_consumer_group_heartbeat, req, kHeartbeatVersion);
    EXPECT_EQ(r.error_code, ErrorCode::invalid_request);
    ASSERT_TRUE(r.error_message);
    EXPECT_NE(r.error_message->find("TopicPartitions"), std::string::npos);
    EXPECT_FALSE(r.assignment);
    auto unknown = join("m1");
    unknown.member_epoch = 3;
    EXPECT_EQ(run(handle_consumer_group_heartbeat, unknown, kHeartbeatVersion).error_code,
              ErrorCode::unknown_member_id);
}

// consumer.heartbeat.interval.ms and consumer.session.timeout.ms on the GROUP resource (KIP-848's
// group configs): described with the broker's values until set, refused outside the broker's
// bounds, and the interval the heartbeat answers once set (the session timeout's effect is in
// tests/broker/group/consumer/consumer_protocol_test.cpp, on a fake clock).
TEST_F(ConsumerGroupHeartbeatTest, TheGroupsOwnHeartbeatIntervalIsAnswered) {
    auto described = describe_group();
    EXPECT_EQ(described["consumer.heartbeat.interval.ms"],
              (std::pair<std::string, int8_t>{"5000", 5}));
    EXPECT_EQ(described["consumer.session.timeout.ms"],
              (std::pair<std::string, int8_t>{"45000", 5}));
    EXPECT_EQ(
        run(handle_consumer_group_heartbeat, join("m1"), kHeartbeatVersion).heartbeat_interval_ms,
        5000);
    auto refused = alter_group("consumer.heartbeat.interval.ms", "4000").responses.at(0);
    EXPECT_EQ(refused.error_code, ErrorCode::invalid_config);
    EXPECT_NE(refused.error_message.value_or("").find("group.consumer.min.heartbeat.interval.ms"),
              std::string::npos);
    EXPECT_EQ(alter_group("consumer.session.timeout.ms", "61000").responses.at(0).error_code,
              ErrorCode::invalid_config);

    ASSERT_EQ(alter_group("consumer.heartbeat.interval.ms", "8000").responses.at(0).error_code,
              ErrorCode::none);
    EXPECT_EQ(describe_group()["consumer.heartbeat.interval.ms"],
              (std::pair<std::string, int8_t>{"8000", 8}));
    ConsumerGroupHeartbeatRequest hb;
    hb.group_id = "g";
    hb.member_id = "m1";
    hb.member_epoch = 1;
    EXPECT_EQ(run(handle_consumer_group_heartbeat, hb, kHeartbeatVersion).heartbeat_interval_ms,
              8000)
        << "a member already in the group gets it at its next heartbeat";
    // Another group keeps the broker's; DELETE gives it back.
    auto other = join("o1");
    other.group_id = "other";
    EXPECT_EQ(run(handle_consumer_group_heartbeat, other, kHeartbeatVersion).heartbeat_interval_ms,
              5000);
    ASSERT_EQ(alter_group("consumer.heartbeat.interval.ms", std::nullopt, protocol::kConfigOpDelete)
                  .responses.at(0)
                  .error_code,
              ErrorCode::none);
    EXPECT_EQ(run(handle_consumer_group_heartbeat, hb, kHeartbeatVersion).heartbeat_interval_ms,
              5000);
}

class ConsumerProtocolDisabledTest : public HandlerTest {};

// group.coordinator.rebalance.protocols=classic: the APIs are not advertised, and a client that
// sends one anyway is told UNSUPPORTED_VERSION.
TEST_F(ConsumerProtocolDisabledTest, NotAdvertisedAndRefused) {
    config.group_coordinator_rebalance_protocols = "classic";
    auto versions = run(handle_api_versions, protocol::ApiVersionsRequest{}, 3);
    for (const auto& v : versions.api_keys) {
        EXPECT_NE(v.api_key, static_cast<int16_t>(protocol::ApiKey::consumer_group_heartbeat));
        EXPECT_NE(v.api_key, static_cast<int16_t>(protocol::ApiKey::consumer_group_describe));
    }
    EXPECT_GT(versions.api_keys.size(), 40u);
    ConsumerGroupHeartbeatRequest req;
    req.group_id = "g";
    req.member_id = "m";
    EXPECT_EQ(run(handle_consumer_group_heartbeat, req, kHeartbeatVersion).error_code,
              ErrorCode::unsupported_version);
}

TEST_F(ConsumerProtocolDisabledTest, AdvertisedByDefault) {
    auto versions = run(handle_api_versions, protocol::ApiVersionsRequest{}, 3);
    int found = 0;
    for (const auto& v : versions.api_keys)
        if (v.api_key == static_cast<int16_t>(protocol::ApiKey::consumer_group_heartbeat) ||
            v.api_key == static_cast<int16_t>(protocol::ApiKey::consumer_group_describe))
            ++found;
    EXPECT_EQ(found, 2);
}

}  // namespace
}  // namespace skiff::broker::test
