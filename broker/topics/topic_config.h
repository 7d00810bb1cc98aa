// Per-topic configuration: the keys a topic may override, their validation, how they map onto
// storage::LogConfig and onto the broker setting that supplies the default, and where the
// overrides live on disk.
//
// On disk: <log dir>/topic-configs/<topic>.properties, one `key=value` per line, written
// atomically (temporary file + rename) before the topic's partitions are created, deleted after
// they are gone. The directory name has no -<number> suffix, so it is never taken for a
// partition directory.
//
// Thread-safety: plain functions and immutable tables.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/broker_config.h"
#include "protocol/expected.h"
#include "storage/log_config.h"

namespace skiff::broker {

using TopicOverrides = std::map<std::string, std::string>;

struct TopicConfigKey {
    std::string_view name;         // topic-level name, e.g. segment.bytes
    std::string_view broker_name;  // the broker setting giving the default, e.g. log.segment.bytes
    // Set for keys whose description differs from Kafka's (deprecated ones); for DescribeConfigs'
    // documentation field.
    std::string_view documentation{};
    // The default of a key no broker setting supplies (broker_name empty): Confluent's topic keys.
    std::string_view fixed_default{};
};

// Broker-side schema validation (Confluent Server's confluent.{key,value}.schema.validation and
// confluent.{key,value}.subject.name.strategy topic configs; docs/schema-registry.md).
enum class SubjectNameStrategy { topic_name, record_name, topic_record_name };
std::optional<SubjectNameStrategy> parse_subject_name_strategy(std::string_view value);
struct SchemaValidation {
    bool key = false;
    bool value = false;
    SubjectNameStrategy key_strategy = SubjectNameStrategy::topic_name;
    SubjectNameStrategy value_strategy = SubjectNameStrategy::topic_name;
};
// What a topic with these overrides validates; nullopt when neither key nor value is (at once
// for a topic without overrides: the produce path asks on every request).
std::optional<SchemaValidation> schema_validation_of(const TopicOverrides& overrides);

// What the produce path checks of records' timestamps: LogAppendTime topics are stamped on
// append (storage); CreateTime ones refuse a record more than before_max_ms older or
// after_max_ms newer than the broker's clock (Kafka's LogValidator, KIP-937).
struct TimestampPolicy {
    bool log_append_time = false;
    int64_t before_max_ms = INT64_MAX;
    int64_t after_max_ms = INT64_MAX;
};
// The topic's overrides over the broker defaults, with the deprecated
// message.timestamp.difference.max.ms standing in as Kafka 3.9 lets it.
TimestampPolicy timestamp_policy_of(const TopicOverrides& overrides,
                                    const config::BrokerConfig& config);

// Every key a topic may set, in Kafka's alphabetical order.
const std::vector<TopicConfigKey>& topic_config_keys();

// Kafka's ConfigType of a topic key for DescribeConfigs v3+ (protocol::ConfigType numbers).
int8_t topic_config_type(std::string_view name);

// Why `value` is not acceptable for `name` (unknown keys included), or nullopt.
std::optional<std::string> invalid_topic_config(std::string_view name, std::string_view value);

// Broker defaults with the topic's overrides applied (overrides must be valid).
// cleanup.policy sets cleanup_delete / cleanup_compact; the compaction keys set their fields.
storage::LogConfig apply_overrides(storage::LogConfig defaults, const TopicOverrides& overrides);

// Why an effective topic configuration (overrides applied to the broker defaults) is refused
// although each key is valid on its own (Kafka: min.compaction.lag.ms > max.compaction.lag.ms),
// or nullopt.
std::optional<std::string> conflicting_topic_configs(const storage::LogConfig& effective);

// The broker-level value of a topic key, as DescribeConfigs shows it, and whether it differs
// from the built-in default (then its source is the static broker config).
struct BrokerDefault {
    std::string value;
    bool set_by_operator = false;
};
BrokerDefault broker_default(const TopicConfigKey& key, const config::BrokerConfig& config);

std::filesystem::path topic_config_dir(const std::filesystem::path& log_dir);
Expected<void, std::string> write_topic_overrides(const std::filesystem::path& log_dir,
                                                  const std::string& topic,
                                                  const TopicOverrides& overrides);
void remove_topic_overrides(const std::filesystem::path& log_dir, const std::string& topic);
// Every topic's overrides found on disk.
std::map<std::string, TopicOverrides> read_all_topic_overrides(
    const std::filesystem::path& log_dir);

}  // namespace skiff::broker
