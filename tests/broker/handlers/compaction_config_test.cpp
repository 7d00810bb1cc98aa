// Compaction's configuration side (issue 18): the topic configs cleanup.policy,
// delete.retention.ms, min/max.compaction.lag.ms and min.cleanable.dirty.ratio at CreateTopics,
// AlterConfigs, IncrementalAlterConfigs (APPEND / SUBTRACT on cleanup.policy) and
// DescribeConfigs; their mapping onto storage::LogConfig (seen through retention, which a
// compact-only topic does not apply); and Produce refusing records without a key to a compacted
// topic (INVALID_RECORD), compressed batches included, without touching other partitions.
#include <gtest/gtest.h>

#include <algorithm>

#include "broker/topics/topic_config.h"
#include "handler_fixture.h"
#include "protocol/alter_configs.h"
#include "protocol/compression/batch_recompress.h"
#include "protocol/compression/compression.h"
#include "protocol/create_topics.h"
#include "protocol/describe_configs.h"
#include "protocol/legacy/down_convert.h"
#include "protocol/produce.h"

namespace skiff::broker::test {
namespace {

using protocol::Compression;
using protocol::ConfigSource;

// `count` records "k0".."k{count-1}"; the record at `keyless` (if >= 0) has a null key.
std::vector<std::byte> batch_with_keyless(int count, int keyless,
                                          Compression codec = Compression::none) {
    std::vector<protocol::RecordSpec> records;
    for (int i = 0; i < count; ++i) {
        protocol::RecordSpec r;
        if (i != keyless)
            r.key = "k" + std::to_string(i);
        r.value = "v" + std::to_string(i);
        r.timestamp_delta = i;
        records.push_back(std::move(r));
    }
    auto plain = protocol::build_record_batch({}, records);
    if (codec == Compression::none)
        return plain;
    std::vector<std::byte> scratch;
    std::vector<std::byte> out;
    auto r = protocol::compression::recompress_batch(plain, codec, 1 << 30, scratch, out);
    if (!r)
        throw std::runtime_error(r.error().message);
    return out;
}

class CompactionConfigTest : public HandlerTest {
  protected:
    protocol::PartitionProduceResponse produce(const std::string& topic, int32_t partition,
                                               const std::vector<std::byte>& batch,
                                               int16_t version = 9) {
        protocol::ProduceRequest req;
        req.acks = -1;
        req.timeout_ms = 1000;
        req.topic_data.push_back({topic, {}, {{partition, std::span<const std::byte>(batch)}}});
        return run(handle_produce, req, version).responses.at(0).partition_responses.at(0);
    }
    int64_t end_offset(const std::string& topic, int32_t partition = 0) {
        return broker().logs().get({topic, partition})->log_end_offset();
    }
    protocol::AlterConfigsResourceResponse alter(const std::string& topic,
                                                 std::vector<protocol::AlterableConfig> configs) {
        protocol::AlterConfigsRequest req;
        req.resources.push_back({protocol::kResourceTypeTopic, topic, std::move(configs)});
        return run(handle_alter_configs, req, 1).responses.at(0);
    }
    protocol::AlterConfigsResourceResponse incremental(
        const std::string& topic, std::vector<protocol::AlterableConfigOp> ops) {
        protocol::IncrementalAlterConfigsRequest req;
        req.resources.push_back({protocol::kResourceTypeTopic, topic, std::move(ops)});
        return run(handle_incremental_alter_configs, req, 1).responses.at(0);
    }
    protocol::CreatableTopicResult create(const std::string& topic,
                                          std::vector<protocol::CreatableTopicConfig> configs) {
        protocol::CreateTopicsRequest req;
        protocol::CreatableTopic t;
        t.name = topic;
        t.num_partitions = 1;
        t.replication_factor = 1;
        t.configs = std::move(configs);
        req.topics.push_back(std::move(t));
        req.timeout_ms = 1000;
        return run(handle_create_topics, req, 7).topics.at(0);
    }
    // DescribeConfigs v4 of one topic key.
    protocol::DescribeConfigsResourceResult describe(const std::string& topic,
                                                     const std::string& key) {
        protocol::DescribeConfigsRequest req;
        req.resources.push_back(
            {protocol::kResourceTypeTopic, topic, std::vector<std::string>{key}});
        req.include_synonyms = true;
        auto resp = run(handle_describe_configs, req, 4);
        const auto& result = resp.results.at(0);
        EXPECT_EQ(result.error_code, ErrorCode::none);
        if (result.configs.size() != 1)
            throw std::runtime_error("expected exactly " + key);
        return result.configs[0];
    }
    std::string policy(const std::string& topic) {
        auto o = broker().topics().overrides(topic);
        auto it = o->find("cleanup.policy");
        return it == o->end() ? "<none>" : it->second;
    }
};

// ---- validation ------------------------------------------------------------------------------

TEST_F(CompactionConfigTest, CleanupPolicyAcceptsKafkasValuesAndListForms) {
    for (const std::string ok :
         {"delete", "compact", "compact,delete", "delete,compact", "compact, delete"})
        EXPECT_EQ(invalid_topic_config("cleanup.policy", ok), std::nullopt) << ok;
    for (const std::string bad : {"", "compacted", "Compact", "delete,", ",compact", "none",
                                  "compact;delete", "delete,compact,foo"}) {
        auto why = invalid_topic_config("cleanup.policy", bad);
        ASSERT_TRUE(why.has_value()) << bad;
        EXPECT_NE(why->find("expected delete, compact"), std::string::npos) << *why;
    }
}

TEST_F(CompactionConfigTest, CompactionKnobsHaveKafkasRanges) {
    EXPECT_EQ(invalid_topic_config("delete.retention.ms", "0"), std::nullopt);
    EXPECT_NE(invalid_topic_config("delete.retention.ms", "-1"), std::nullopt);
    EXPECT_EQ(invalid_topic_config("min.compaction.lag.ms", "0"), std::nullopt);
    EXPECT_NE(invalid_topic_config("min.compaction.lag.ms", "-1"), std::nullopt);
    EXPECT_EQ(invalid_topic_config("max.compaction.lag.ms", "1"), std::nullopt);
    EXPECT_NE(invalid_topic_config("max.compaction.lag.ms", "0"), std::nullopt);
    for (const std::string ok : {"0", "1", "0.5", "0.01", "1.0", "1e-2"})
        EXPECT_EQ(invalid_topic_config("min.cleanable.dirty.ratio", ok), std::nullopt) << ok;
    for (const std::string bad : {"-0.1", "1.01", "x", "", "NaN", "0.5x"})
        EXPECT_NE(invalid_topic_config("min.cleanable.dirty.ratio", bad), std::nullopt) << bad;
    EXPECT_EQ(topic_config_type("min.cleanable.dirty.ratio"),
              static_cast<int8_t>(protocol::ConfigType::double_type));
    EXPECT_EQ(topic_config_type("cleanup.policy"), static_cast<int8_t>(protocol::ConfigType::list));
    EXPECT_EQ(topic_config_type("max.compaction.lag.ms"),
              static_cast<int8_t>(protocol::ConfigType::long_type));
}

TEST_F(CompactionConfigTest, OverridesMapOntoTheLogConfig) {
    storage::LogConfig defaults;
    auto c = apply_overrides(defaults, {{"cleanup.policy", "compact"},
                                        {"delete.retention.ms", "1000"},
                                        {"min.compaction.lag.ms", "20"},
                                        {"max.compaction.lag.ms", "3000"},
                                        {"min.cleanable.dirty.ratio", "0.25"}});
    EXPECT_FALSE(c.cleanup_delete);
    EXPECT_TRUE(c.cleanup_compact);
    EXPECT_EQ(c.delete_retention_ms, 1000);
    EXPECT_EQ(c.min_compaction_lag_ms, 20);
    EXPECT_EQ(c.max_compaction_lag_ms, 3000);
    EXPECT_DOUBLE_EQ(c.min_cleanable_dirty_ratio, 0.25);

    c = apply_overrides(defaults, {{"cleanup.policy", "delete, compact"}});
    EXPECT_TRUE(c.cleanup_delete);
    EXPECT_TRUE(c.cleanup_compact);
    c = apply_overrides(c, {});  // no overrides: the defaults as given
    EXPECT_TRUE(c.cleanup_compact);
    c = apply_overrides(defaults, {{"retention.ms", "5"}});
    EXPECT_TRUE(c.cleanup_delete);
    EXPECT_FALSE(c.cleanup_compact);
}

TEST_F(CompactionConfigTest, BrokerSettingsAreTheTopicDefaults) {
    config.log_cleanup_policy = "compact,delete";
    config.log_cleaner_delete_retention_ms = 5;
    config.log_cleaner_min_compaction_lag_ms = 6;
    config.log_cleaner_max_compaction_lag_ms = 7;
    config.log_cleaner_min_cleanable_ratio = 0.75;
    auto c = log_config_from(config);
    EXPECT_TRUE(c.cleanup_delete);
    EXPECT_TRUE(c.cleanup_compact);
    EXPECT_EQ(c.delete_retention_ms, 5);
    EXPECT_EQ(c.min_compaction_lag_ms, 6);
    EXPECT_EQ(c.max_compaction_lag_ms, 7);
    EXPECT_DOUBLE_EQ(c.min_cleanable_dirty_ratio, 0.75);

    create_topic("t");
    auto policy = describe("t", "cleanup.policy");
    EXPECT_EQ(policy.value, "compact,delete");
    EXPECT_EQ(policy.config_source, static_cast<int8_t>(ConfigSource::static_broker_config));
    ASSERT_EQ(policy.synonyms.size(), 1u);
    EXPECT_EQ(policy.synonyms[0].name, "log.cleanup.policy");
    auto ratio = describe("t", "min.cleanable.dirty.ratio");
    EXPECT_EQ(ratio.value, "0.75");
    EXPECT_EQ(ratio.synonyms.at(0).name, "log.cleaner.min.cleanable.ratio");

    // The broker resource: Kafka's types for the list and the doubles.
    protocol::DescribeConfigsRequest req;
    req.resources.push_back(
        {protocol::kResourceTypeBroker, "1",
         std::vector<std::string>{"log.cleanup.policy", "log.cleaner.min.cleanable.ratio",
                                  "log.cleaner.io.max.bytes.per.second"}});
    auto resp = run(handle_describe_configs, req, 4);
    const auto& configs = resp.results.at(0).configs;
    ASSERT_EQ(configs.size(), 3u);
    for (const auto& c : configs) {
        if (c.name == "log.cleanup.policy") {
            EXPECT_EQ(c.value, "compact,delete");
            EXPECT_EQ(c.config_type, static_cast<int8_t>(protocol::ConfigType::list));
        } else {
            EXPECT_EQ(c.config_type, static_cast<int8_t>(protocol::ConfigType::double_type))
                << c.name;
        }
    }
    auto rate = std::find_if(configs.begin(), configs.end(), [](const auto& c) {
        return c.name == "log.cleaner.io.max.bytes.per.second";
    });
    ASSERT_NE(rate, configs.end());
    EXPECT_EQ(rate->value, "1.7976931348623157E308");
}

// ---- CreateTopics / AlterConfigs / IncrementalAlterConfigs / DescribeConfigs -----------------

TEST_F(CompactionConfigTest, CreateTopicsTakesAndValidatesTheCompactionConfigs) {
    auto r = create("c", {{"cleanup.policy", "compact"},
                          {"delete.retention.ms", "100"},
                          {"min.compaction.lag.ms", "10"},
                          {"max.compaction.lag.ms", "20000"},
                          {"min.cleanable.dirty.ratio", "0.1"}});
    ASSERT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(policy("c"), "compact");

    auto bad = create("d", {{"cleanup.policy", "compress"}});
    EXPECT_EQ(bad.error_code, ErrorCode::invalid_config);
    EXPECT_NE(bad.error_message.value_or("").find("cleanup.policy"), std::string::npos);
    EXPECT_FALSE(broker().topics().partition_count("d").has_value());

    EXPECT_EQ(create("e", {{"min.cleanable.dirty.ratio", "2"}}).error_code,
              ErrorCode::invalid_config);
    // Each valid alone, not together (Kafka's LogConfig.validateValues).
    auto conflict =
        create("f", {{"min.compaction.lag.ms", "5000"}, {"max.compaction.lag.ms", "10"}});
    EXPECT_EQ(conflict.error_code, ErrorCode::invalid_config);
    EXPECT_NE(conflict.error_message.value_or("").find("min.compaction.lag.ms"), std::string::npos);
    EXPECT_FALSE(broker().topics().partition_count("f").has_value());
}

TEST_F(CompactionConfigTest, DescribeShowsDefaultsAndOverridesWithTheirSource) {
    create_topic("t", 1,
                 {{"cleanup.policy", "compact,delete"}, {"min.cleanable.dirty.ratio", "0.2"}});
    auto p = describe("t", "cleanup.policy");
    EXPECT_EQ(p.value, "compact,delete");
    EXPECT_EQ(p.config_source, static_cast<int8_t>(ConfigSource::dynamic_topic_config));
    EXPECT_EQ(p.config_type, static_cast<int8_t>(protocol::ConfigType::list));
    auto r = describe("t", "min.cleanable.dirty.ratio");
    EXPECT_EQ(r.value, "0.2");
    EXPECT_EQ(r.config_type, static_cast<int8_t>(protocol::ConfigType::double_type));

    create_topic("plain");
    const std::vector<std::pair<std::string, std::string>> defaults = {
        {"cleanup.policy", "delete"},
        {"delete.retention.ms", "86400000"},
        {"min.compaction.lag.ms", "0"},
        {"max.compaction.lag.ms", "9223372036854775807"},
        {"min.cleanable.dirty.ratio", "0.5"}};
    for (const auto& [key, value] : defaults) {
        auto e = describe("plain", key);
        EXPECT_EQ(e.value, value) << key;
        EXPECT_TRUE(e.is_default) << key;
        EXPECT_EQ(e.config_source, static_cast<int8_t>(ConfigSource::default_config)) << key;
    }
}

TEST_F(CompactionConfigTest, AlterConfigsSetsAndRefusesCleanupPolicy) {
    create_topic("t");
    EXPECT_EQ(alter("t", {{"cleanup.policy", "compact"}}).error_code, ErrorCode::none);
    EXPECT_EQ(policy("t"), "compact");
    auto bad = alter("t", {{"cleanup.policy", "compact,purge"}});
    EXPECT_EQ(bad.error_code, ErrorCode::invalid_config);
    EXPECT_NE(bad.error_message.value_or("").find("compact,purge"), std::string::npos);
    EXPECT_EQ(policy("t"), "compact");  // unchanged
    auto conflict = alter("t", {{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "9"}});
    EXPECT_EQ(conflict.error_code, ErrorCode::invalid_config);
    EXPECT_EQ(policy("t"), "compact");
}

TEST_F(CompactionConfigTest, IncrementalAppendAndSubtractOnCleanupPolicy) {
    create_topic("t");
    using protocol::kConfigOpAppend;
    using protocol::kConfigOpSubtract;
    // From the default (delete), as Kafka starts from the current value.
    EXPECT_EQ(incremental("t", {{"cleanup.policy", kConfigOpAppend, "compact"}}).error_code,
              ErrorCode::none);
    EXPECT_EQ(policy("t"), "delete,compact");
    // Appending what is there changes nothing.
    EXPECT_EQ(incremental("t", {{"cleanup.policy", kConfigOpAppend, "delete"}}).error_code,
              ErrorCode::none);
    EXPECT_EQ(policy("t"), "delete,compact");
    EXPECT_EQ(incremental("t", {{"cleanup.policy", kConfigOpSubtract, "delete"}}).error_code,
              ErrorCode::none);
    EXPECT_EQ(policy("t"), "compact");
    // Subtracting the last item leaves an empty policy: refused, nothing changed.
    auto empty = incremental("t", {{"cleanup.policy", kConfigOpSubtract, "compact"}});
    EXPECT_EQ(empty.error_code, ErrorCode::invalid_config);
    EXPECT_EQ(policy("t"), "compact");
    // An unknown item appended is refused like a SET of it.
    EXPECT_EQ(incremental("t", {{"cleanup.policy", kConfigOpAppend, "purge"}}).error_code,
              ErrorCode::invalid_config);
    EXPECT_EQ(policy("t"), "compact");
    // APPEND / SUBTRACT on a key that is not a list.
    auto not_list = incremental("t", {{"retention.ms", kConfigOpAppend, "5"}});
    EXPECT_EQ(not_list.error_code, ErrorCode::invalid_config);
    EXPECT_NE(not_list.error_message.value_or("").find("list"), std::string::npos);
    EXPECT_EQ(
        incremental("t", {{"min.cleanable.dirty.ratio", protocol::kConfigOpSet, "0.9"}}).error_code,
        ErrorCode::none);
    EXPECT_EQ(describe("t", "min.cleanable.dirty.ratio").value, "0.9");
}

// The new config reaches the open partition: seen through retention, which a compact-only log
// does not apply by age, and a compact,delete one does.
TEST_F(CompactionConfigTest, AnUpdateReachesTheOpenPartition) {
    create_topic(
        "t", 1,
        {{"segment.bytes", "100"}, {"retention.ms", "1000"}, {"cleanup.policy", "compact"}});
    for (int i = 0; i < 4; ++i)  // timestamps near 0: older than any retention.ms
        ASSERT_EQ(produce("t", 0, make_batch(2)).error_code, ErrorCode::none);
    auto* log = broker().logs().get({"t", 0});
    ASSERT_GE(log->segment_count(), 4u);
    const size_t segments = log->segment_count();
    EXPECT_EQ(log->apply_retention(), 0u);
    EXPECT_EQ(log->segment_count(), segments);
    EXPECT_EQ(log->log_start_offset(), 0);

    ASSERT_EQ(
        incremental("t", {{"cleanup.policy", protocol::kConfigOpAppend, "delete"}}).error_code,
        ErrorCode::none);
    EXPECT_EQ(policy("t"), "compact,delete");
    EXPECT_GT(log->apply_retention(), 0u);
    EXPECT_EQ(log->segment_count(), 1u);
    EXPECT_EQ(log->log_start_offset(), 6);  // the active segment: the last batch, offsets 6-7
}

// ---- Produce to a compacted topic ------------------------------------------------------------

TEST_F(CompactionConfigTest, KeylessRecordToACompactedTopicIsInvalidRecord) {
    create_topic("c", 1, {{"cleanup.policy", "compact"}});
    ASSERT_EQ(produce("c", 0, batch_with_keyless(3, -1)).error_code, ErrorCode::none);
    EXPECT_EQ(end_offset("c"), 3);

    auto r = produce("c", 0, batch_with_keyless(3, 1));
    EXPECT_EQ(r.error_code, ErrorCode::invalid_record);
    // Kafka's LogValidator wording: the count, then the first three record errors.
    EXPECT_EQ(r.error_message,
              "One or more records have been rejected due to 1 record errors in total, and only "
              "showing the first three errors at most: [RecordError(batchIndex=1, "
              "message='Compacted topic cannot accept message without key in topic partition "
              "c-0.')]");
    ASSERT_EQ(r.record_errors.size(), 1u);
    EXPECT_EQ(r.record_errors[0].batch_index, 1);
    EXPECT_EQ(end_offset("c"), 3);  // nothing of the batch stored

    // The log goes on: a keyed batch is stored right after.
    auto ok = produce("c", 0, batch_with_keyless(2, -1));
    EXPECT_EQ(ok.error_code, ErrorCode::none);
    EXPECT_EQ(ok.base_offset, 3);
    EXPECT_EQ(end_offset("c"), 5);
}

TEST_F(CompactionConfigTest, NullValuesWithKeysAreTombstonesAndAccepted) {
    create_topic("c", 1, {{"cleanup.policy", "compact,delete"}});
    protocol::RecordSpec tombstone;
    tombstone.key = "k";
    auto batch = protocol::build_record_batch({}, {tombstone});
    EXPECT_EQ(produce("c", 0, batch).error_code, ErrorCode::none);
    EXPECT_EQ(produce("c", 0, batch_with_keyless(1, 0)).error_code, ErrorCode::invalid_record);
}

TEST_F(CompactionConfigTest, CompressedBatchesAreDecompressedForTheCheck) {
    create_topic("c", 1, {{"cleanup.policy", "compact"}});
    for (Compression codec :
         {Compression::gzip, Compression::snappy, Compression::lz4, Compression::zstd}) {
        SCOPED_TRACE(protocol::compression_name(codec));
        const int64_t before = end_offset("c");
        auto refused = produce("c", 0, batch_with_keyless(50, 37, codec));
        EXPECT_EQ(refused.error_code, ErrorCode::invalid_record);
        ASSERT_EQ(refused.record_errors.size(), 1u);
        EXPECT_EQ(refused.record_errors[0].batch_index, 37);
        EXPECT_EQ(end_offset("c"), before);
        auto ok = produce("c", 0, batch_with_keyless(50, -1, codec));
        EXPECT_EQ(ok.error_code, ErrorCode::none);
        EXPECT_EQ(end_offset("c"), before + 50);
    }
}

TEST_F(CompactionConfigTest, OtherPartitionsOfTheRequestAreUnaffected) {
    create_topic("c", 2, {{"cleanup.policy", "compact"}});
    create_topic("d", 1);
    const auto keyless = batch_with_keyless(2, 0);
    const auto keyed = batch_with_keyless(2, -1);
    protocol::ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 1000;
    req.topic_data.push_back(
        {"c",
         {},
         {{0, std::span<const std::byte>(keyless)}, {1, std::span<const std::byte>(keyed)}}});
    req.topic_data.push_back({"d", {}, {{0, std::span<const std::byte>(keyless)}}});
    auto resp = run(handle_produce, req, 9);
    EXPECT_EQ(resp.responses.at(0).partition_responses.at(0).error_code, ErrorCode::invalid_record);
    EXPECT_EQ(resp.responses.at(0).partition_responses.at(1).error_code, ErrorCode::none);
    EXPECT_EQ(resp.responses.at(1).partition_responses.at(0).error_code, ErrorCode::none);
    EXPECT_EQ(end_offset("c", 0), 0);
    EXPECT_EQ(end_offset("c", 1), 2);
    EXPECT_EQ(end_offset("d", 0), 2);  // a delete topic takes keyless records
}

TEST_F(CompactionConfigTest, TheBrokerDefaultPolicyAndAlteredPoliciesApply) {
    config.log_cleanup_policy = "compact";
    create_topic("c");
    EXPECT_EQ(produce("c", 0, batch_with_keyless(1, 0)).error_code, ErrorCode::invalid_record);
    // The topic's override beats the broker default, and takes effect at once.
    ASSERT_EQ(alter("c", {{"cleanup.policy", "delete"}}).error_code, ErrorCode::none);
    EXPECT_EQ(produce("c", 0, batch_with_keyless(1, 0)).error_code, ErrorCode::none);
    ASSERT_EQ(alter("c", {{"cleanup.policy", "delete,compact"}}).error_code, ErrorCode::none);
    EXPECT_EQ(produce("c", 0, batch_with_keyless(1, 0)).error_code, ErrorCode::invalid_record);
    EXPECT_EQ(end_offset("c"), 1);
}

// Produce v0-v2 may carry v0/v1 message sets, up-converted to a v2 batch first: the check sees
// their messages too, inside a gzip wrapper as well.
TEST_F(CompactionConfigTest, LegacyMessageSetsAreCheckedToo) {
    create_topic("c", 1, {{"cleanup.policy", "compact"}});
    using OptBytes = std::optional<std::span<const std::byte>>;
    auto bytes_of = [](const std::string& s) {
        auto b = std::as_bytes(std::span(s.data(), s.size()));
        return std::vector<std::byte>(b.begin(), b.end());
    };
    auto message_set = [&](bool keyless_second) {
        std::vector<std::byte> out;
        for (int i = 0; i < 2; ++i) {
            auto k = bytes_of("k" + std::to_string(i));
            auto v = bytes_of("v" + std::to_string(i));
            const OptBytes key = (keyless_second && i == 1) ? OptBytes() : OptBytes(k);
            protocol::legacy::append_message(out, 1, i, 0, 1000 + i, key, OptBytes(v));
        }
        return out;
    };
    auto gzip_wrapper = [](const std::vector<std::byte>& inner) {
        std::vector<std::byte> z;
        EXPECT_TRUE(protocol::compression::compress(Compression::gzip, inner, z));
        std::vector<std::byte> out;
        protocol::legacy::append_message(out, 1, 1, 1, 2000, std::nullopt, OptBytes(z));
        return out;
    };
    EXPECT_EQ(produce("c", 0, message_set(true), 2).error_code, ErrorCode::invalid_record);
    EXPECT_EQ(produce("c", 0, gzip_wrapper(message_set(true)), 2).error_code,
              ErrorCode::invalid_record);
    EXPECT_EQ(end_offset("c"), 0);
    EXPECT_EQ(produce("c", 0, message_set(false), 2).error_code, ErrorCode::none);
    EXPECT_EQ(produce("c", 0, gzip_wrapper(message_set(false)), 2).error_code, ErrorCode::none);
    EXPECT_EQ(end_offset("c"), 4);
}

}  // namespace
}  // namespace skiff::broker::test
