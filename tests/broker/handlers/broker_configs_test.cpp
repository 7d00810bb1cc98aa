// Dynamic broker configs through AlterConfigs / IncrementalAlterConfigs on BROKER resources and
// DescribeConfigs: this broker's scope (its node.id) and the cluster default (""), Kafka's
// refusals (another broker id, a setting that is not dynamic, a bad value), keys skiff has no
// setting for kept as Kafka keeps them, validate_only, and everything still there after a restart.
#include <gtest/gtest.h>

#include "config/settings.h"
#include "handler_fixture.h"
#include "protocol/alter_configs.h"
#include "protocol/describe_configs.h"

namespace skiff::broker::test {
namespace {

using protocol::ConfigSource;

class BrokerConfigsTest : public HandlerTest {
  protected:
    protocol::AlterConfigsResourceResponse alter(const std::string& name,
                                                 std::vector<protocol::AlterableConfig> configs,
                                                 bool validate_only = false) {
        protocol::AlterConfigsRequest req;
        req.resources.push_back({protocol::kResourceTypeBroker, name, std::move(configs)});
        req.validate_only = validate_only;
        auto resp = run(handle_alter_configs, req, 1);
        if (resp.responses.size() != 1)
            throw std::runtime_error("expected one result");
        EXPECT_EQ(resp.responses[0].resource_type, protocol::kResourceTypeBroker);
        return resp.responses[0];
    }
    protocol::AlterConfigsResourceResponse incremental(
        const std::string& name, std::vector<protocol::AlterableConfigOp> ops) {
        protocol::IncrementalAlterConfigsRequest req;
        req.resources.push_back({protocol::kResourceTypeBroker, name, std::move(ops)});
        auto resp = run(handle_incremental_alter_configs, req, 1);
        if (resp.responses.size() != 1)
            throw std::runtime_error("expected one result");
        return resp.responses[0];
    }
    protocol::DescribeConfigsResult describe(const std::string& name) {
        protocol::DescribeConfigsRequest req;
        req.resources.push_back({protocol::kResourceTypeBroker, name, std::nullopt});
        req.include_synonyms = true;
        auto resp = run(handle_describe_configs, req, 3);
        if (resp.results.size() != 1)
            throw std::runtime_error("expected one result");
        return resp.results[0];
    }
    static const protocol::DescribeConfigsResourceResult* find(
        const protocol::DescribeConfigsResult& r, const std::string& name) {
        for (const auto& c : r.configs)
            if (c.name == name)
                return &c;
        return nullptr;
    }
    BrokerConfigValues stored(DynamicBrokerConfigs::Scope scope) {
        return broker().dynamic_configs().values(scope);
    }
};

TEST_F(BrokerConfigsTest, ThisBrokersDynamicValueIsStoredAndDescribedAboveTheStaticOne) {
    config.log_retention_ms = 7200000;  // as if from the config file
    // The value librdkafka's 0081_admin sets: a Kafka SASL/GSSAPI setting skiff has no use for,
    // accepted and kept as Kafka keeps it.
    auto r = alter(
        "1", {{"log.retention.ms", "3600000"}, {"sasl.kerberos.min.time.before.relogin", "58000"}});
    EXPECT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(stored(DynamicBrokerConfigs::Scope::this_broker),
              (BrokerConfigValues{{"log.retention.ms", "3600000"},
                                  {"sasl.kerberos.min.time.before.relogin", "58000"}}));

    auto d = describe("1");
    ASSERT_EQ(d.error_code, ErrorCode::none);
    const auto* retention = find(d, "log.retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, "3600000");
    EXPECT_FALSE(retention->read_only);
    EXPECT_EQ(retention->config_source, static_cast<int8_t>(ConfigSource::dynamic_broker_config));
    ASSERT_EQ(retention->synonyms.size(), 2u);  // dynamic first, then the static value under it
    EXPECT_EQ(retention->synonyms[1].value, "7200000");
    EXPECT_EQ(retention->synonyms[1].source,
              static_cast<int8_t>(ConfigSource::static_broker_config));
    const auto* kerberos = find(d, "sasl.kerberos.min.time.before.relogin");
    ASSERT_NE(kerberos, nullptr);
    EXPECT_EQ(kerberos->value, "58000");
    ASSERT_NE(find(d, "node.id"), nullptr);
    EXPECT_TRUE(find(d, "node.id")->read_only);

    // AlterConfigs replaces the scope's whole set.
    EXPECT_EQ(alter("1", {{"log.retention.bytes", "1048576"}}).error_code, ErrorCode::none);
    EXPECT_EQ(stored(DynamicBrokerConfigs::Scope::this_broker),
              (BrokerConfigValues{{"log.retention.bytes", "1048576"}}));
    restart();
    EXPECT_EQ(stored(DynamicBrokerConfigs::Scope::this_broker),
              (BrokerConfigValues{{"log.retention.bytes", "1048576"}}));
}

TEST_F(BrokerConfigsTest, ClusterDefaultScopeIsTheEmptyName) {
    EXPECT_EQ(alter("", {{"log.segment.bytes", "1048576"}}).error_code, ErrorCode::none);
    auto d = describe("");
    ASSERT_EQ(d.error_code, ErrorCode::none);
    ASSERT_EQ(d.configs.size(), 1u);  // only the dynamic defaults, as Kafka answers for ""
    EXPECT_EQ(d.configs[0].name, "log.segment.bytes");
    EXPECT_EQ(d.configs[0].config_source,
              static_cast<int8_t>(ConfigSource::dynamic_default_broker_config));
    const auto mine = describe("1");
    const auto* segment = find(mine, "log.segment.bytes");
    ASSERT_NE(segment, nullptr);
    EXPECT_EQ(segment->value, "1048576");
    EXPECT_EQ(segment->config_source,
              static_cast<int8_t>(ConfigSource::dynamic_default_broker_config));
}

TEST_F(BrokerConfigsTest, RefusalsStoreNothing) {
    auto other = alter("2", {{"log.retention.ms", "1"}});
    EXPECT_EQ(other.error_code, ErrorCode::invalid_request);
    EXPECT_EQ(other.error_message,
              "Unexpected broker id, expected 1 or empty string, but received 2");
    auto fixed = alter("1", {{"num.partitions", "3"}, {"log.dirs", "/x"}});
    EXPECT_EQ(fixed.error_code, ErrorCode::invalid_config);
    EXPECT_EQ(fixed.error_message,
              "Cannot update these configs dynamically: [log.dirs, num.partitions]");
    EXPECT_EQ(alter("1", {{"log.retention.ms", "soon"}}).error_code, ErrorCode::invalid_config);
    EXPECT_EQ(alter("1", {{"log.retention.ms", "1000"}}, /*validate_only=*/true).error_code,
              ErrorCode::none);
    EXPECT_TRUE(stored(DynamicBrokerConfigs::Scope::this_broker).empty());
}

TEST_F(BrokerConfigsTest, IncrementalSetAndDelete) {
    EXPECT_EQ(incremental("1", {{"log.retention.ms", protocol::kConfigOpSet, "1000"},
                                {"log.cleaner.threads", protocol::kConfigOpSet, "2"}})
                  .error_code,
              ErrorCode::none);
    EXPECT_EQ(incremental("1", {{"log.cleaner.threads", protocol::kConfigOpDelete, std::nullopt}})
                  .error_code,
              ErrorCode::none);
    EXPECT_EQ(stored(DynamicBrokerConfigs::Scope::this_broker),
              (BrokerConfigValues{{"log.retention.ms", "1000"}}));
    EXPECT_EQ(
        incremental("1", {{"log.cleanup.policy", protocol::kConfigOpAppend, "compact"}}).error_code,
        ErrorCode::invalid_config);
    EXPECT_EQ(incremental("1", {{"log.dirs", protocol::kConfigOpSet, "/x"}}).error_code,
              ErrorCode::invalid_config);
}

TEST_F(BrokerConfigsTest, StoredValuesApplyToTheConfigurationAtStart) {
    EXPECT_EQ(
        alter("", {{"log.retention.ms", "1000"}, {"log.segment.bytes", "2000000"}}).error_code,
        ErrorCode::none);
    EXPECT_EQ(alter("1", {{"log.retention.ms", "5000"}, {"custom.key", "x"}}).error_code,
              ErrorCode::none);
    auto loaded = DynamicBrokerConfigs::load(config.log_dir, 1);
    ASSERT_TRUE(loaded) << loaded.error();
    config::BrokerConfig started = config;
    auto applied = loaded->apply_to(started);
    EXPECT_EQ(started.log_retention_ms, 5000);  // this broker's value beats the default's
    EXPECT_EQ(started.log_segment_bytes, 2000000);
    EXPECT_EQ(applied.size(), 3u);  // custom.key is kept, but is no setting of skiff's
    // Another node id reads only the cluster default.
    auto other = DynamicBrokerConfigs::load(config.log_dir, 2);
    ASSERT_TRUE(other);
    EXPECT_TRUE(other->values(DynamicBrokerConfigs::Scope::this_broker).empty());
}

}  // namespace
}  // namespace skiff::broker::test
