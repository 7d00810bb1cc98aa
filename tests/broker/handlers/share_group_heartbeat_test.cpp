// ShareGroupHeartbeat and ShareGroupDescribe through their handlers (topic ids on the wire, the
// group's own configs applied), share.version gating the APIs in ApiVersions, and the GROUP
// config resource through IncrementalAlterConfigs, AlterConfigs and DescribeConfigs (Kafka's
// INVALID_CONFIG for a bad name or value, the values kept across a restart of the broker).
#include <gtest/gtest.h>

#include "broker/topics/topic_ids.h"
#include "group_config_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::ShareGroupDescribeRequest;
using protocol::ShareGroupHeartbeatRequest;

class ShareGroupHeartbeatTest : public GroupConfigTest {
  protected:
    void SetUp() override { create_topic("jobs", 3); }
    static ShareGroupHeartbeatRequest join(const std::string& member) {
        ShareGroupHeartbeatRequest req;
        req.group_id = "g";
        req.member_id = member;
        req.member_epoch = 0;
        req.subscribed_topic_names = std::vector<std::string>{"jobs"};
        return req;
    }
};

TEST_F(ShareGroupHeartbeatTest, JoinsAndGetsThePartitionsByTopicIdThenDescribes) {
    auto resp = run(handle_share_group_heartbeat, join("m1"), 1);
    ASSERT_EQ(resp.error_code, ErrorCode::none) << resp.error_message.value_or("");
    EXPECT_EQ(resp.member_id, "m1");
    EXPECT_EQ(resp.member_epoch, 1);
    EXPECT_EQ(resp.heartbeat_interval_ms, 5000);
    ASSERT_TRUE(resp.assignment);
    ASSERT_EQ(resp.assignment->topic_partitions.size(), 1u);
    EXPECT_EQ(resp.assignment->topic_partitions[0].topic_id,
              to_uuid(*broker().topics().topic_id("jobs")));
    EXPECT_EQ(resp.assignment->topic_partitions[0].partitions, (std::vector<int32_t>{0, 1, 2}));
    EXPECT_EQ(broker().share_membership()->check_member("g", "m1"), ErrorCode::none);

    ShareGroupDescribeRequest d;
    d.group_ids = {"g", "missing"};
    d.include_authorized_operations = true;
    auto described = run(handle_share_group_describe, d, 1);
    ASSERT_EQ(described.groups.size(), 2u);
    const auto& g = described.groups[0];
    EXPECT_EQ(g.error_code, ErrorCode::none);
    EXPECT_EQ(g.group_state, "Stable");
    EXPECT_EQ(g.assignor_name, "simple");
    ASSERT_EQ(g.members.size(), 1u);
    EXPECT_EQ(g.members[0].member_epoch, 1);
    EXPECT_EQ(g.members[0].subscribed_topic_names, std::vector<std::string>{"jobs"});
    ASSERT_EQ(g.members[0].assignment.topic_partitions.size(), 1u);
    EXPECT_EQ(g.members[0].assignment.topic_partitions[0].topic_name, "jobs");
    EXPECT_NE(g.authorized_operations, std::numeric_limits<int32_t>::min());
    EXPECT_EQ(described.groups[1].error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(described.groups[1].group_state, "Dead");
}

TEST_F(ShareGroupHeartbeatTest, ErrorsComeWithAMessage) {
    auto bad = join("");
    auto resp = run(handle_share_group_heartbeat, bad, 1);
    EXPECT_EQ(resp.error_code, ErrorCode::invalid_request);
    EXPECT_TRUE(resp.error_message);
    ASSERT_EQ(run(handle_share_group_heartbeat, join("m"), 1).error_code, ErrorCode::none);
    auto fenced = join("m");
    fenced.member_epoch = 5;
    resp = run(handle_share_group_heartbeat, fenced, 1);
    EXPECT_EQ(resp.error_code, ErrorCode::fenced_member_epoch);
    EXPECT_FALSE(resp.assignment);
}

TEST_F(ShareGroupHeartbeatTest, GroupConfigsAreValidatedKeptAndApplied) {
    // Unknown names and bad values: INVALID_CONFIG, nothing kept.
    EXPECT_EQ(alter_group("share.nope", "1").responses.at(0).error_code, ErrorCode::invalid_config);
    EXPECT_EQ(alter_group("share.auto.offset.reset", "middle").responses.at(0).error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(alter_group("share.auto.offset.reset", "by_duration:1h").responses.at(0).error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(alter_group("share.record.lock.duration.ms", "5000").responses.at(0).error_code,
              ErrorCode::invalid_config);  // below group.share.min.record.lock.duration.ms
    EXPECT_EQ(alter_group("share.delivery.count.limit", "11").responses.at(0).error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(alter_group("share.isolation.level", "dirty").responses.at(0).error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(describe_group()["share.auto.offset.reset"],
              (std::pair<std::string, int8_t>{"latest", 5}));
    // Good values: kept, shown with source GROUP_CONFIG (8), applied to the share-partitions'
    // settings and to the heartbeat.
    ASSERT_EQ(alter_group("share.auto.offset.reset", "earliest").responses.at(0).error_code,
              ErrorCode::none);
    ASSERT_EQ(alter_group("share.isolation.level", "read_committed").responses.at(0).error_code,
              ErrorCode::none);
    ASSERT_EQ(alter_group("share.delivery.count.limit", "3").responses.at(0).error_code,
              ErrorCode::none);
    ASSERT_EQ(alter_group("share.heartbeat.interval.ms", "6000").responses.at(0).error_code,
              ErrorCode::none);
    auto described = describe_group();
    EXPECT_EQ(described["share.auto.offset.reset"],
              (std::pair<std::string, int8_t>{"earliest", 8}));
    EXPECT_EQ(described["share.record.lock.duration.ms"],
              (std::pair<std::string, int8_t>{"30000", 5}));
    auto c = broker().share_membership()->config("g");
    EXPECT_EQ(c.auto_offset_reset, share::ShareAutoOffsetReset::earliest);
    EXPECT_TRUE(c.read_committed);
    EXPECT_EQ(c.delivery_count_limit, 3);
    EXPECT_EQ(c.record_lock_duration_ms, 30000);
    EXPECT_EQ(run(handle_share_group_heartbeat, join("m"), 1).heartbeat_interval_ms, 6000);
    // by_duration with an ISO-8601 duration.
    ASSERT_EQ(
        alter_group("share.auto.offset.reset", "by_duration:PT1H30M").responses.at(0).error_code,
        ErrorCode::none);
    c = broker().share_membership()->config("g");
    EXPECT_EQ(c.auto_offset_reset, share::ShareAutoOffsetReset::by_duration);
    EXPECT_EQ(c.by_duration_ms, 5400000);
    // DELETE goes back to the default.
    ASSERT_EQ(alter_group("share.delivery.count.limit", std::nullopt, protocol::kConfigOpDelete)
                  .responses.at(0)
                  .error_code,
              ErrorCode::none);
    EXPECT_EQ(broker().share_membership()->config("g").delivery_count_limit, 5);
    // Kept in the log directory: a new GroupConfigs over the file reads the same.
    group::GroupConfigs reread(std::filesystem::path(config.log_dir) / "group-configs", config);
    EXPECT_EQ(reread.values("g").at("share.isolation.level"), "read_committed");
    EXPECT_EQ(reread.values("g").count("share.delivery.count.limit"), 0u);
}

TEST_F(ShareGroupHeartbeatTest, AdvertisedAtShareVersionOneOnly) {
    auto count_share_apis = [this] {
        auto versions = run(handle_api_versions, protocol::ApiVersionsRequest{}, 3);
        int found = 0;
        for (const auto& v : versions.api_keys)
            if (v.api_key == 76 || v.api_key == 77)
                ++found;
        return found;
    };
    EXPECT_EQ(count_share_apis(), 2);
}

class ShareVersionZeroTest : public HandlerTest {};

TEST_F(ShareVersionZeroTest, NotAdvertisedAndRefused) {
    config.share_version = 0;
    auto versions = run(handle_api_versions, protocol::ApiVersionsRequest{}, 3);
    for (const auto& v : versions.api_keys) {
        EXPECT_NE(v.api_key, 76);
        EXPECT_NE(v.api_key, 77);
    }
    for (const auto& f : versions.finalized_features)
        EXPECT_NE(f.name, "share.version");
    ShareGroupHeartbeatRequest req;
    req.group_id = "g";
    req.member_id = "m";
    req.subscribed_topic_names = std::vector<std::string>{"t"};
    EXPECT_EQ(run(handle_share_group_heartbeat, req, 1).error_code, ErrorCode::unsupported_version);
    EXPECT_FALSE(broker().groups().contains("g"));
}

}  // namespace
}  // namespace skiff::broker::test
