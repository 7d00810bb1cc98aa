// AlterConfigs (replaces a topic's whole override set) and IncrementalAlterConfigs (SET and
// DELETE per key): valid changes applied to the running topic, unknown keys and bad values,
// unknown topics, validate_only, static broker settings and the internal topic refused.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/alter_configs.h"
#include "protocol/produce.h"

namespace skiff::broker::test {
namespace {

using protocol::AlterConfigsRequest;
using protocol::AlterConfigsResourceResponse;
using protocol::IncrementalAlterConfigsRequest;

constexpr int16_t kLatestAlterConfigs = 1;

class AlterConfigsTest : public HandlerTest {
  protected:
    AlterConfigsResourceResponse alter(const std::string& topic,
                                       std::vector<protocol::AlterableConfig> configs,
                                       bool validate_only = false,
                                       int16_t version = kLatestAlterConfigs,
                                       int8_t type = protocol::kResourceTypeTopic) {
        AlterConfigsRequest req;
        req.resources.push_back({type, topic, std::move(configs)});
        req.validate_only = validate_only;
        auto resp = run(handle_alter_configs, req, version);
        if (resp.responses.size() != 1)
            throw std::runtime_error("expected one result");
        EXPECT_EQ(resp.responses[0].resource_name, topic);
        EXPECT_EQ(resp.responses[0].resource_type, type);
        return resp.responses[0];
    }
    AlterConfigsResourceResponse incremental(const std::string& topic,
                                             std::vector<protocol::AlterableConfigOp> ops,
                                             bool validate_only = false,
                                             int16_t version = kLatestAlterConfigs,
                                             int8_t type = protocol::kResourceTypeTopic) {
        IncrementalAlterConfigsRequest req;
        req.resources.push_back({type, topic, std::move(ops)});
        req.validate_only = validate_only;
        auto resp = run(handle_incremental_alter_configs, req, version);
        if (resp.responses.size() != 1)
            throw std::runtime_error("expected one result");
        EXPECT_EQ(resp.responses[0].resource_name, topic);
        return resp.responses[0];
    }
    TopicOverrides overrides(const std::string& topic) {
        return broker().topics().overrides(topic).value_or(TopicOverrides{{"<unknown>", ""}});
    }
    ErrorCode produce(const std::string& topic, const std::vector<std::byte>& batch) {
        protocol::ProduceRequest req;
        req.acks = -1;
        req.topic_data.push_back({topic, {}, {{0, std::span<const std::byte>(batch)}}});
        return run(handle_produce, req, 9).responses[0].partition_responses[0].error_code;
    }
};

TEST_F(AlterConfigsTest, ReplacesTheOverridesAndAppliesThemAtOnce) {
    create_topic("t", 1, {{"retention.ms", "1000"}});
    auto batch = make_batch(10);
    ASSERT_EQ(produce("t", batch), ErrorCode::none);

    auto r = alter("t", {{"max.message.bytes", std::to_string(batch.size() - 1)}});
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_FALSE(r.error_message.has_value());
    // retention.ms was not listed: back to the default.
    EXPECT_EQ(overrides("t"),
              (TopicOverrides{{"max.message.bytes", std::to_string(batch.size() - 1)}}));
    EXPECT_EQ(produce("t", batch), ErrorCode::message_too_large);
}

TEST_F(AlterConfigsTest, UnknownKeyOrBadValueIsInvalidConfig) {
    create_topic("t", 1, {{"retention.ms", "1000"}});
    auto unknown = alter("t", {{"no.such.config", "1"}});
    EXPECT_EQ(unknown.error_code, ErrorCode::invalid_config);
    EXPECT_TRUE(unknown.error_message.has_value());
    EXPECT_EQ(alter("t", {{"segment.bytes", "1"}}).error_code, ErrorCode::invalid_config);
    EXPECT_EQ(alter("t", {{"cleanup.policy", "compacted"}}).error_code, ErrorCode::invalid_config);
    EXPECT_EQ(overrides("t"), (TopicOverrides{{"retention.ms", "1000"}}));  // unchanged
}

TEST_F(AlterConfigsTest, NullValuesAreDropped) {
    create_topic("t", 1, {{"retention.ms", "1000"}});
    EXPECT_EQ(alter("t", {{"retention.ms", std::nullopt}, {"segment.ms", "60000"}}).error_code,
              ErrorCode::none);
    EXPECT_EQ(overrides("t"), (TopicOverrides{{"segment.ms", "60000"}}));
}

TEST_F(AlterConfigsTest, UnknownTopic) {
    EXPECT_EQ(alter("missing", {{"retention.ms", "1000"}}).error_code,
              ErrorCode::unknown_topic_or_partition);
    // As in Kafka, the topic's absence is reported before its configs are validated.
    EXPECT_EQ(alter("missing", {{"offset.metadata.max.bytes", "12345"}}).error_code,
              ErrorCode::unknown_topic_or_partition);
}

TEST_F(AlterConfigsTest, DeleteRetentionIsAcceptedWithKafkasRange) {
    create_topic("t");
    EXPECT_EQ(alter("t", {{"delete.retention.ms", "900"}}).error_code, ErrorCode::none);
    EXPECT_EQ(overrides("t"), (TopicOverrides{{"delete.retention.ms", "900"}}));
    EXPECT_EQ(alter("t", {{"delete.retention.ms", "-1"}}).error_code, ErrorCode::invalid_config);
}

TEST_F(AlterConfigsTest, ValidateOnlyChangesNothing) {
    create_topic("t");
    EXPECT_EQ(alter("t", {{"retention.ms", "1000"}}, true).error_code, ErrorCode::none);
    EXPECT_EQ(overrides("t"), TopicOverrides{});
    EXPECT_EQ(alter("t", {{"retention.ms", "x"}}, true).error_code, ErrorCode::invalid_config);
}

TEST_F(AlterConfigsTest, StaticBrokerSettingsAndTheInternalTopicAreRefused) {
    // Dynamic broker configs: broker_configs_test.cpp.
    EXPECT_EQ(alter("1", {{"num.partitions", "3"}}, false, kLatestAlterConfigs,
                    protocol::kResourceTypeBroker)
                  .error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(alter("__consumer_offsets", {{"retention.ms", "1000"}}).error_code,
              ErrorCode::invalid_request);
}

TEST_F(AlterConfigsTest, IncrementalSetAddsAndDeleteRemoves) {
    create_topic("t", 1, {{"retention.ms", "1000"}});
    auto r = incremental("t", {{"segment.ms", protocol::kConfigOpSet, "60000"}});
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(overrides("t"), (TopicOverrides{{"retention.ms", "1000"}, {"segment.ms", "60000"}}));

    EXPECT_EQ(
        incremental("t", {{"retention.ms", protocol::kConfigOpDelete, std::nullopt}}).error_code,
        ErrorCode::none);
    EXPECT_EQ(overrides("t"), (TopicOverrides{{"segment.ms", "60000"}}));
    // Deleting a key that is not overridden is fine.
    EXPECT_EQ(
        incremental("t", {{"retention.bytes", protocol::kConfigOpDelete, std::nullopt}}).error_code,
        ErrorCode::none);
}

TEST_F(AlterConfigsTest, IncrementalRefusals) {
    create_topic("t", 1, {{"retention.ms", "1000"}});
    EXPECT_EQ(incremental("t", {{"no.such.config", protocol::kConfigOpSet, "1"}}).error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(incremental("t", {{"retention.ms", protocol::kConfigOpSet, "-5"}}).error_code,
              ErrorCode::invalid_config);
    // APPEND / SUBTRACT: only on list-valued configs (cleanup.policy; see
    // compaction_config_test.cpp), and never down to an empty cleanup.policy.
    EXPECT_EQ(incremental("t", {{"retention.ms", protocol::kConfigOpAppend, "5"}}).error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(
        incremental("t", {{"cleanup.policy", protocol::kConfigOpSubtract, "delete"}}).error_code,
        ErrorCode::invalid_config);
    // SET without a value.
    EXPECT_EQ(incremental("t", {{"retention.ms", protocol::kConfigOpSet, std::nullopt}}).error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(overrides("t"), (TopicOverrides{{"retention.ms", "1000"}}));

    EXPECT_EQ(incremental("missing", {{"retention.ms", protocol::kConfigOpSet, "1"}}).error_code,
              ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(incremental("1", {{"num.partitions", protocol::kConfigOpSet, "3"}}, false,
                          kLatestAlterConfigs, protocol::kResourceTypeBroker)
                  .error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(incremental("__consumer_offsets", {{"retention.ms", protocol::kConfigOpSet, "1"}})
                  .error_code,
              ErrorCode::invalid_request);
}

TEST_F(AlterConfigsTest, IncrementalValidateOnlyChangesNothing) {
    create_topic("t");
    EXPECT_EQ(incremental("t", {{"retention.ms", protocol::kConfigOpSet, "1000"}}, true).error_code,
              ErrorCode::none);
    EXPECT_EQ(overrides("t"), TopicOverrides{});
}

TEST_F(AlterConfigsTest, EverySupportedVersion) {
    create_topic("t");
    for (int16_t v = 0; v <= kLatestAlterConfigs; ++v) {
        const std::string ms = std::to_string(1000 + v);
        EXPECT_EQ(alter("t", {{"retention.ms", ms}}, false, v).error_code, ErrorCode::none);
        EXPECT_EQ(
            incremental("t", {{"segment.ms", protocol::kConfigOpSet, ms}}, false, v).error_code,
            ErrorCode::none);
        EXPECT_EQ(overrides("t"), (TopicOverrides{{"retention.ms", ms}, {"segment.ms", ms}}))
            << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
