// A group's own configs (broker/group/group_configs.h): Kafka's GroupConfig names and checks for
// consumer and share groups, the broker's values as defaults, the file that keeps them, and the
// control API's clear and snapshot replace.
#include "broker/group/group_configs.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/broker/group/coordinator_fixture.h"

namespace skiff::broker::group {
namespace {

using protocol::ErrorCode;

struct GroupConfigsTest : ::testing::Test {
    TempDir dir;
    config::BrokerConfig broker;
    std::filesystem::path file() const { return dir.path() / kGroupConfigsFile; }
};

TEST_F(GroupConfigsTest, ConsumerAndShareNamesWithTheBrokersValuesAsDefaults) {
    const auto& names = group_config_names();
    for (auto name : {kConsumerSessionTimeoutMs, kConsumerHeartbeatIntervalMs,
                      kShareSessionTimeoutMs, kShareHeartbeatIntervalMs})
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    EXPECT_EQ(names.size(), 8u);
    broker.group_consumer_session_timeout_ms = 50000;
    broker.group_consumer_heartbeat_interval_ms = 6000;
    GroupConfigs configs(file(), broker);
    EXPECT_EQ(configs.default_value("consumer.session.timeout.ms"), "50000");
    EXPECT_EQ(configs.default_value("consumer.heartbeat.interval.ms"), "6000");
    EXPECT_TRUE(is_int_group_config("consumer.session.timeout.ms"));
    EXPECT_FALSE(is_int_group_config("share.auto.offset.reset"));
    EXPECT_EQ(configs.int_value("g", kConsumerSessionTimeoutMs), std::nullopt);
}

TEST_F(GroupConfigsTest, ConsumerValuesAreCheckedAgainstTheBrokersBounds) {
    GroupConfigs configs(file(), broker);  // Kafka's bounds: 45-60 s, 5-15 s
    auto refused = [&](const char* name, const char* value) {
        auto r = configs.set("g", {{name, value}}, false);
        EXPECT_EQ(r.error, ErrorCode::invalid_config) << name << "=" << value;
        return r.message;
    };
    EXPECT_NE(refused("consumer.session.timeout.ms", "44999")
                  .find("group.consumer.min.session.timeout.ms"),
              std::string::npos);
    EXPECT_NE(refused("consumer.session.timeout.ms", "60001")
                  .find("group.consumer.max.session.timeout.ms"),
              std::string::npos);
    EXPECT_NE(refused("consumer.heartbeat.interval.ms", "4999")
                  .find("group.consumer.min.heartbeat.interval.ms"),
              std::string::npos);
    EXPECT_NE(refused("consumer.heartbeat.interval.ms", "15001")
                  .find("group.consumer.max.heartbeat.interval.ms"),
              std::string::npos);
    refused("consumer.heartbeat.interval.ms", "10s");
    refused("consumer.rebalance.timeout.ms", "10000");  // not a group config
    EXPECT_TRUE(configs.values("g").empty()) << "a refusal keeps nothing";

    ASSERT_EQ(configs
                  .set("g",
                       {{"consumer.session.timeout.ms", "60000"},
                        {"consumer.heartbeat.interval.ms", "15000"}},
                       false)
                  .error,
              ErrorCode::none);
    EXPECT_EQ(configs.int_value("g", kConsumerSessionTimeoutMs), 60000);
    EXPECT_EQ(configs.int_value("g", kConsumerHeartbeatIntervalMs), 15000);
    EXPECT_EQ(configs.int_value("other", kConsumerSessionTimeoutMs), std::nullopt);
}

TEST_F(GroupConfigsTest, ASessionTimeoutMustBeAboveTheHeartbeatIntervalWithTheDefaults) {
    broker.group_consumer_min_session_timeout_ms = 1000;
    broker.group_share_min_session_timeout_ms = 1000;
    GroupConfigs configs(file(), broker);
    // The group's timeout under the broker's interval (5000), its interval not set: Kafka checks
    // the group's values over the defaults, so this is refused.
    auto r = configs.set("g", {{"consumer.session.timeout.ms", "4000"}}, false);
    EXPECT_EQ(r.error, ErrorCode::invalid_config);
    EXPECT_EQ(r.message,
              "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
    r = configs.set("g", {{"share.session.timeout.ms", "5000"}}, false);
    EXPECT_EQ(r.error, ErrorCode::invalid_config);
    EXPECT_EQ(r.message,
              "share.session.timeout.ms must be greater than share.heartbeat.interval.ms");
    EXPECT_TRUE(configs.values("g").empty());
    // Validate-only checks the same and keeps nothing either way.
    EXPECT_EQ(configs.set("g", {{"consumer.session.timeout.ms", "4000"}}, true).error,
              ErrorCode::invalid_config);
    EXPECT_EQ(configs.set("g", {{"consumer.session.timeout.ms", "6000"}}, true).error,
              ErrorCode::none);
    EXPECT_TRUE(configs.values("g").empty());
    EXPECT_EQ(configs.set("g", {{"consumer.session.timeout.ms", "6000"}}, false).error,
              ErrorCode::none);
}

TEST_F(GroupConfigsTest, KeptInTheFileAcrossARestartAndClearedByAReset) {
    broker.group_consumer_min_session_timeout_ms = 1000;
    {
        GroupConfigs configs(file(), broker);
        ASSERT_EQ(configs.set("g 1", {{"consumer.session.timeout.ms", "6000"}}, false).error,
                  ErrorCode::none);
        ASSERT_EQ(configs.set("h", {{"share.isolation.level", "read_committed"}}, false).error,
                  ErrorCode::none);
    }
    GroupConfigs reread(file(), broker);
    EXPECT_EQ(reread.int_value("g 1", kConsumerSessionTimeoutMs), 6000);
    EXPECT_EQ(reread.values("h").at("share.isolation.level"), "read_committed");

    // A snapshot's copy replaces all of them; a snapshot without the file leaves none.
    const auto copy = dir.path() / "snapshot-copy";
    std::filesystem::copy_file(file(), copy);
    ASSERT_TRUE(reread.set("h", {}, false).error == ErrorCode::none);
    ASSERT_TRUE(reread.set("new", {{"consumer.heartbeat.interval.ms", "6000"}}, false).error ==
                ErrorCode::none);
    ASSERT_TRUE(reread.replace_all_from(copy));
    EXPECT_EQ(reread.values("h").at("share.isolation.level"), "read_committed");
    EXPECT_TRUE(reread.values("new").empty());
    EXPECT_EQ(GroupConfigs(file(), broker).values("h").size(), 1u) << "the file follows";

    ASSERT_TRUE(reread.clear());
    EXPECT_TRUE(reread.values("g 1").empty());
    EXPECT_TRUE(GroupConfigs(file(), broker).values("g 1").empty()) << "the file follows";
    ASSERT_TRUE(reread.set("g 1", {{"consumer.session.timeout.ms", "6000"}}, false).error ==
                ErrorCode::none);
    ASSERT_TRUE(reread.replace_all_from(dir.path() / "no-such-file"));
    EXPECT_TRUE(reread.values("g 1").empty());
}

}  // namespace
}  // namespace skiff::broker::group
