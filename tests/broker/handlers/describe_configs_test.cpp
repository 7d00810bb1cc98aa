// DescribeConfigs: a topic's values and where they come from (override, operator-set broker
// setting, built-in default), key filters, synonyms, broker resources (read-only), unknown
// topics, other broker ids and unsupported resource types.
#include <gtest/gtest.h>

#include "broker/topics/topic_config.h"
#include "handler_fixture.h"
#include "protocol/describe_configs.h"

namespace skiff::broker::test {
namespace {

using protocol::ConfigSource;
using protocol::DescribeConfigsRequest;
using protocol::DescribeConfigsResourceResult;
using protocol::DescribeConfigsResult;

constexpr int16_t kLatestDescribeConfigs = 3;

class DescribeConfigsTest : public HandlerTest {
  protected:
    DescribeConfigsResult describe(int8_t type, const std::string& name,
                                   std::optional<std::vector<std::string>> keys = std::nullopt,
                                   bool synonyms = false,
                                   int16_t version = kLatestDescribeConfigs) {
        DescribeConfigsRequest req;
        req.resources.push_back({type, name, std::move(keys)});
        req.include_synonyms = synonyms;
        auto resp = run(handle_describe_configs, req, version);
        if (resp.results.size() != 1)
            throw std::runtime_error("expected one result");
        EXPECT_EQ(resp.results[0].resource_type, type);
        EXPECT_EQ(resp.results[0].resource_name, name);
        return resp.results[0];
    }
    static const DescribeConfigsResourceResult* find(const DescribeConfigsResult& r,
                                                     const std::string& key) {
        for (const auto& c : r.configs)
            if (c.name == key)
                return &c;
        return nullptr;
    }
};

TEST_F(DescribeConfigsTest, TopicValuesAndTheirSources) {
    config.log_retention_bytes = 5000;  // set by the operator
    create_topic("t", 1, {{"retention.ms", "1000"}});
    auto r = describe(protocol::kResourceTypeTopic, "t");
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_FALSE(r.error_message.has_value());

    const auto* overridden = find(r, "retention.ms");
    ASSERT_NE(overridden, nullptr);
    EXPECT_EQ(overridden->value, "1000");
    EXPECT_EQ(overridden->config_source, static_cast<int8_t>(ConfigSource::dynamic_topic_config));
    EXPECT_FALSE(overridden->is_default);
    EXPECT_FALSE(overridden->read_only);

    const auto* from_broker = find(r, "retention.bytes");
    ASSERT_NE(from_broker, nullptr);
    EXPECT_EQ(from_broker->value, "5000");
    EXPECT_EQ(from_broker->config_source, static_cast<int8_t>(ConfigSource::static_broker_config));
    EXPECT_FALSE(from_broker->is_default);

    const auto* builtin = find(r, "segment.bytes");
    ASSERT_NE(builtin, nullptr);
    EXPECT_EQ(builtin->value, "1073741824");
    EXPECT_EQ(builtin->config_source, static_cast<int8_t>(ConfigSource::default_config));
    EXPECT_TRUE(builtin->is_default);

    const auto* policy = find(r, "cleanup.policy");
    ASSERT_NE(policy, nullptr);
    EXPECT_EQ(policy->value, "delete");
    EXPECT_EQ(r.configs.size(), topic_config_keys().size());
}

TEST_F(DescribeConfigsTest, OnlyTheRequestedKeys) {
    create_topic("t");
    auto r = describe(protocol::kResourceTypeTopic, "t",
                      std::vector<std::string>{"max.message.bytes", "no.such.key"});
    EXPECT_EQ(r.error_code, ErrorCode::none);
    ASSERT_EQ(r.configs.size(), 1u);
    EXPECT_EQ(r.configs[0].name, "max.message.bytes");
    EXPECT_EQ(r.configs[0].value, "1048588");
}

TEST_F(DescribeConfigsTest, SynonymsListTheOverrideThenTheBrokerSetting) {
    create_topic("t", 1, {{"retention.ms", "1000"}});
    auto r = describe(protocol::kResourceTypeTopic, "t", std::vector<std::string>{"retention.ms"},
                      /*synonyms=*/true);
    ASSERT_EQ(r.configs.size(), 1u);
    const auto& s = r.configs[0].synonyms;
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].name, "retention.ms");
    EXPECT_EQ(s[0].value, "1000");
    EXPECT_EQ(s[0].source, static_cast<int8_t>(ConfigSource::dynamic_topic_config));
    EXPECT_EQ(s[1].name, "log.retention.ms");
    EXPECT_EQ(s[1].value, "604800000");
    EXPECT_EQ(s[1].source, static_cast<int8_t>(ConfigSource::default_config));

    auto without = describe(protocol::kResourceTypeTopic, "t",
                            std::vector<std::string>{"retention.ms"}, false);
    EXPECT_TRUE(without.configs[0].synonyms.empty());
}

TEST_F(DescribeConfigsTest, UnknownTopic) {
    auto r = describe(protocol::kResourceTypeTopic, "missing");
    EXPECT_EQ(r.error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_TRUE(r.error_message.has_value());
    EXPECT_TRUE(r.configs.empty());
}

TEST_F(DescribeConfigsTest, StaticBrokerSettingsAreReadOnly) {
    config.num_partitions = 4;
    // "" (the cluster-wide dynamic defaults): broker_configs_test.cpp.
    for (const std::string name : {"1"}) {
        auto r = describe(protocol::kResourceTypeBroker, name);
        EXPECT_EQ(r.error_code, ErrorCode::none) << name;
        const auto* partitions = find(r, "num.partitions");
        ASSERT_NE(partitions, nullptr);
        EXPECT_EQ(partitions->value, "4");
        EXPECT_TRUE(partitions->read_only);
        EXPECT_EQ(partitions->config_source,
                  static_cast<int8_t>(ConfigSource::static_broker_config));
        const auto* builtin = find(r, "message.max.bytes");
        ASSERT_NE(builtin, nullptr);
        EXPECT_TRUE(builtin->is_default);
        EXPECT_EQ(builtin->config_source, static_cast<int8_t>(ConfigSource::default_config));
    }
}

TEST_F(DescribeConfigsTest, SecretsAreSensitiveWithoutAValue) {
    config.ssl_key_password = "hunter2";
    config.ssl_keystore_location = "/etc/skiff/broker.pem";
    auto r = describe(protocol::kResourceTypeBroker, "1", std::nullopt, true);
    const auto* password = find(r, "ssl.key.password");
    ASSERT_NE(password, nullptr);
    EXPECT_TRUE(password->is_sensitive);
    EXPECT_FALSE(password->value);
    for (const auto& synonym : password->synonyms)
        EXPECT_FALSE(synonym.value);
    const auto* location = find(r, "ssl.keystore.location");
    ASSERT_NE(location, nullptr);
    EXPECT_FALSE(location->is_sensitive);
    EXPECT_EQ(location->value, "/etc/skiff/broker.pem");
}

TEST_F(DescribeConfigsTest, AnotherBrokerOrResourceTypeIsInvalidRequest) {
    EXPECT_EQ(describe(protocol::kResourceTypeBroker, "2").error_code, ErrorCode::invalid_request);
    EXPECT_EQ(describe(/*group=*/3, "g").error_code, ErrorCode::invalid_request);
}

TEST_F(DescribeConfigsTest, EverySupportedVersion) {
    create_topic("t", 1, {{"retention.ms", "1000"}});
    for (int16_t v = 0; v <= kLatestDescribeConfigs; ++v) {
        auto r = describe(protocol::kResourceTypeTopic, "t",
                          std::vector<std::string>{"retention.ms"}, v >= 1, v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        ASSERT_EQ(r.configs.size(), 1u) << "v" << v;
        EXPECT_EQ(r.configs[0].value, "1000") << "v" << v;
    }
}

TEST_F(DescribeConfigsTest, DocumentationAndTypesFromV3) {
    create_topic("t", 1, {{"message.format.version", "0.10.0"}, {"compression.type", "zstd"}});
    DescribeConfigsRequest req;
    req.resources.push_back({protocol::kResourceTypeTopic, "t", std::nullopt});
    req.include_documentation = true;
    auto r = run(handle_describe_configs, req, 3).results.at(0);
    const auto* format = find(r, "message.format.version");
    ASSERT_NE(format, nullptr);
    EXPECT_EQ(format->value, "0.10.0");
    ASSERT_TRUE(format->documentation.has_value());
    EXPECT_NE(format->documentation->find("DEPRECATED"), std::string::npos);
    EXPECT_EQ(format->config_type, static_cast<int8_t>(protocol::ConfigType::string));
    const auto* codec = find(r, "compression.type");
    ASSERT_NE(codec, nullptr);
    ASSERT_TRUE(codec->documentation.has_value());
    EXPECT_NE(codec->documentation->find("producer"), std::string::npos);
    EXPECT_EQ(find(r, "segment.bytes")->config_type,
              static_cast<int8_t>(protocol::ConfigType::int_type));
    EXPECT_EQ(find(r, "retention.ms")->config_type,
              static_cast<int8_t>(protocol::ConfigType::long_type));

    req.resources[0] = {protocol::kResourceTypeBroker, "1", std::nullopt};
    auto b = run(handle_describe_configs, req, 3).results.at(0);
    const auto* broker_format = find(b, "log.message.format.version");
    ASSERT_NE(broker_format, nullptr);
    EXPECT_NE(broker_format->documentation->find("Deprecated"), std::string::npos);
    EXPECT_EQ(find(b, "auto.create.topics.enable")->config_type,
              static_cast<int8_t>(protocol::ConfigType::boolean));

    // Not asked for: no documentation.
    req.include_documentation = false;
    auto plain = run(handle_describe_configs, req, 3).results.at(0);
    EXPECT_FALSE(find(plain, "log.message.format.version")->documentation.has_value());
}

TEST_F(DescribeConfigsTest, FileDeleteDelayIsAcceptedAndSaysItHasNoDelay) {
    // librdkafka's 0077_compaction creates its topic with file.delete.delay.ms; Kafka's range.
    create_topic("t", 1, {{"file.delete.delay.ms", "10000"}});
    DescribeConfigsRequest req;
    req.resources.push_back({protocol::kResourceTypeTopic, "t", std::nullopt});
    req.include_documentation = true;
    auto r = run(handle_describe_configs, req, 3).results.at(0);
    const auto* delay = find(r, "file.delete.delay.ms");
    ASSERT_NE(delay, nullptr);
    EXPECT_EQ(delay->value, "10000");
    EXPECT_EQ(delay->config_type, static_cast<int8_t>(protocol::ConfigType::long_type));
    ASSERT_TRUE(delay->documentation.has_value());
    EXPECT_NE(delay->documentation->find("at once"), std::string::npos);
    EXPECT_TRUE(invalid_topic_config("file.delete.delay.ms", "-1").has_value());

    req.resources[0] = {protocol::kResourceTypeBroker, "1", std::nullopt};
    auto b = run(handle_describe_configs, req, 3).results.at(0);
    ASSERT_NE(find(b, "log.segment.delete.delay.ms"), nullptr);
    EXPECT_EQ(find(b, "log.segment.delete.delay.ms")->value, "60000");
}

}  // namespace
}  // namespace skiff::broker::test
