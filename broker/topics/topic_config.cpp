#include "broker/topics/topic_config.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include "config/properties.h"
#include "config/settings.h"
#include "config/value_syntax.h"
#include "protocol/compression/compression.h"
#include "storage/durable_file.h"

namespace skiff::broker {

namespace fs = std::filesystem;

namespace {

struct KeyRule {
    TopicConfigKey key;
    int64_t min = 0;  // integer keys; cleanup.policy has its own check
    int64_t max = std::numeric_limits<int64_t>::max();
    bool minus_one_is_unlimited = false;
    bool integer = true;  // else a string (or double) checked by `check`
    // String keys: why a value is refused (the "expected ..." clause), or nullopt.
    std::optional<std::string> (*check)(std::string_view) = nullptr;
    // Kafka keys of features skiff lacks: only Kafka's default (the key's fixed_default, which
    // is what skiff does) is accepted, so tools that send every key with its default work, and
    // any other value is refused with this reason.
    std::string_view only_default_why{};
};

std::optional<std::string> check_cleanup_policy(std::string_view value) {
    if (config::parse_cleanup_policy(value))
        return std::nullopt;
    return std::string(config::kCleanupPolicyExpected);
}

// A double, Kafka's Range.between(0, 1).
std::optional<std::string> check_ratio(std::string_view value) {
    auto v = config::parse_double(value);
    if (v && *v >= 0.0 && *v <= 1.0)
        return std::nullopt;
    return "expected a number between 0 and 1";
}

std::optional<std::string> check_compression_type(std::string_view value) {
    std::optional<protocol::Compression> codec;
    if (protocol::compression::parse_compression_type(value, codec))
        return std::nullopt;
    return "expected " + std::string(protocol::compression::kCompressionTypes);
}

// Kafka 3.x accepts any valid version and ignores it (batches are always v2); so does skiff.
std::optional<std::string> check_message_format_version(std::string_view value) {
    if (config::is_kafka_version(value))
        return std::nullopt;
    return "expected a Kafka version such as 0.10.0, 2.8 or 3.0-IV1";
}

std::optional<std::string> check_boolean(std::string_view value) {
    if (value == "true" || value == "false")
        return std::nullopt;
    return "expected true or false";
}

std::optional<std::string> check_subject_name_strategy(std::string_view value) {
    if (parse_subject_name_strategy(value))
        return std::nullopt;
    return "expected TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy (or their "
           "io.confluent.kafka.serializers.subject. class names)";
}

std::optional<std::string> check_timestamp_type(std::string_view value) {
    if (value == "CreateTime" || value == "LogAppendTime")
        return std::nullopt;
    return "expected CreateTime or LogAppendTime";
}

std::optional<std::string> check_true(std::string_view value) {
    if (value == "true")
        return std::nullopt;
    return "expected true";
}

std::optional<std::string> check_false(std::string_view value) {
    if (value == "false")
        return std::nullopt;
    return "expected false";
}

constexpr std::string_view kNoTieredStorage =
    "skiff has no tiered storage (KIP-405): every segment stays in the local log directory";
constexpr std::string_view kNoCompressionLevel =
    "skiff recompresses (compression.type) at each codec's default level and cannot set another";

// leader/follower.replication.throttled.replicas: Kafka's ThrottledReplicaListValidator, an
// empty list, "*", or partition:broker pairs ("0:1,1:1").
std::optional<std::string> check_throttled_replicas(std::string_view value) {
    if (value.empty() || value == "*")
        return std::nullopt;
    while (!value.empty()) {
        const auto comma = value.find(',');
        std::string_view item = value.substr(0, comma);
        while (!item.empty() && item.front() == ' ')
            item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ')
            item.remove_suffix(1);
        const auto colon = item.find(':');
        auto digits = [](std::string_view t) {
            return !t.empty() &&
                   std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
        };
        if (colon == std::string_view::npos || !digits(item.substr(0, colon)) ||
            !digits(item.substr(colon + 1)))
            return "expected *, or a list of partition:broker pairs such as 0:1,1:1";
        if (comma == std::string_view::npos)
            break;
        value.remove_prefix(comma + 1);
    }
    return std::nullopt;
}

// A single broker has no replicas to elect, throttle or count: these keys are accepted, stored
// and shown, and change nothing (docs/topic-configs.md).
constexpr std::string_view kNoReplicationDoc =
    "Accepted and stored for compatibility; it has no effect on skiff, a single broker with one "
    "replica per partition (docs/topic-configs.md).";

constexpr std::string_view kOnlyDefaultDoc =
    "A Kafka feature skiff does not have: only Kafka's default, which is what skiff does, is "
    "accepted; any other value is refused with INVALID_CONFIG (docs/topic-configs.md).";

constexpr std::string_view kValidationDoc =
    "Confluent Server's broker-side schema validation: every record's key (value) must start "
    "with the schema registry's wire-format header (magic byte 0, a 4-byte schema id) of a "
    "schema registered under the subject the strategy names; a batch with any other record "
    "is refused with INVALID_RECORD and nothing of it is stored.";
constexpr std::string_view kStrategyDoc =
    "How the subject of the key (value) is named for schema validation: TopicNameStrategy "
    "(<topic>-key, <topic>-value), RecordNameStrategy or TopicRecordNameStrategy.";

// Ranges are Kafka's (LogConfig.java).
const std::vector<KeyRule>& rules() {
    static const std::vector<KeyRule> kRules = {
        {{"cleanup.policy", "log.cleanup.policy"}, 0, 0, false, false, check_cleanup_policy},
        {{"compression.gzip.level", "", kOnlyDefaultDoc, "-1"},
         -1,
         -1,
         false,
         true,
         nullptr,
         kNoCompressionLevel},
        {{"compression.lz4.level", "", kOnlyDefaultDoc, "9"},
         9,
         9,
         false,
         true,
         nullptr,
         kNoCompressionLevel},
        {{"compression.type", "compression.type"}, 0, 0, false, false, check_compression_type},
        {{"compression.zstd.level", "", kOnlyDefaultDoc, "3"},
         3,
         3,
         false,
         true,
         nullptr,
         kNoCompressionLevel},
        {{"confluent.key.schema.validation", "", kValidationDoc, "false"},
         0,
         0,
         false,
         false,
         check_boolean},
        {{"confluent.key.subject.name.strategy", "", kStrategyDoc, "TopicNameStrategy"},
         0,
         0,
         false,
         false,
         check_subject_name_strategy},
        {{"confluent.value.schema.validation", "", kValidationDoc, "false"},
         0,
         0,
         false,
         false,
         check_boolean},
        {{"confluent.value.subject.name.strategy", "", kStrategyDoc, "TopicNameStrategy"},
         0,
         0,
         false,
         false,
         check_subject_name_strategy},
        {{"delete.retention.ms", "log.cleaner.delete.retention.ms"}, 0},
        {{"file.delete.delay.ms", "log.segment.delete.delay.ms",
          "Accepted for compatibility: skiff removes a deleted segment's files at once (a fetch "
          "still reading one keeps its open file)."},
         0},
        {{"flush.messages", "log.flush.interval.messages"}, 1},
        {{"flush.ms", "log.flush.interval.ms"}, 0},
        {{"follower.replication.throttled.replicas", "", kNoReplicationDoc, ""},
         0,
         0,
         false,
         false,
         check_throttled_replicas},
        {{"index.interval.bytes", "log.index.interval.bytes"}, 0, INT32_MAX},
        {{"leader.replication.throttled.replicas", "", kNoReplicationDoc, ""},
         0,
         0,
         false,
         false,
         check_throttled_replicas},
        {{"local.retention.bytes", "", kOnlyDefaultDoc, "-2"},
         -2,
         -2,
         false,
         true,
         nullptr,
         kNoTieredStorage},
        {{"local.retention.ms", "", kOnlyDefaultDoc, "-2"},
         -2,
         -2,
         false,
         true,
         nullptr,
         kNoTieredStorage},
        {{"max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms"}, 1},
        {{"max.message.bytes", "message.max.bytes"}, 0, INT32_MAX},
        {{"message.downconversion.enable", "", kOnlyDefaultDoc, "true"},
         0,
         0,
         false,
         false,
         check_true,
         "skiff always down-converts for consumers that need the old message formats "
         "(docs/legacy-formats.md)"},
        {{"message.format.version", "log.message.format.version",
          "[DEPRECATED] Accepted and ignored, as by Kafka 3.x: batches are always stored as "
          "record batch v2."},
         0,
         0,
         false,
         false,
         check_message_format_version},
        {{"message.timestamp.after.max.ms", "log.message.timestamp.after.max.ms"}, 0},
        {{"message.timestamp.before.max.ms", "log.message.timestamp.before.max.ms"}, 0},
        {{"message.timestamp.difference.max.ms", "log.message.timestamp.difference.max.ms",
          "[DEPRECATED] Kafka 3.x's bound on how far a CreateTime record's timestamp may lie from "
          "the broker's clock, on both sides: used for the past where "
          "message.timestamp.before.max.ms keeps its default (9223372036854775807), and for the "
          "future where message.timestamp.after.max.ms is not set on the topic and keeps the "
          "broker's built-in default."},
         0},
        {{"message.timestamp.type", "log.message.timestamp.type"},
         0,
         0,
         false,
         false,
         check_timestamp_type},
        {{"min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio"},
         0,
         0,
         false,
         false,
         check_ratio},
        {{"min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms"}, 0},
        {{"min.insync.replicas", "", kNoReplicationDoc, "1"}, 1, INT32_MAX},
        {{"preallocate", "", kOnlyDefaultDoc, "false"},
         0,
         0,
         false,
         false,
         check_false,
         "skiff reserves the disk blocks ahead of its active segments in 1 MiB steps and does not "
         "preallocate whole segment files"},
        {{"remote.log.copy.disable", "", kOnlyDefaultDoc, "false"},
         0,
         0,
         false,
         false,
         check_false,
         kNoTieredStorage},
        {{"remote.log.delete.on.disable", "", kOnlyDefaultDoc, "false"},
         0,
         0,
         false,
         false,
         check_false,
         kNoTieredStorage},
        {{"remote.storage.enable", "", kOnlyDefaultDoc, "false"},
         0,
         0,
         false,
         false,
         check_false,
         kNoTieredStorage},
        {{"retention.bytes", "log.retention.bytes"}, -1, INT64_MAX, true},
        {{"retention.ms", "log.retention.ms"}, -1, INT64_MAX, true},
        {{"segment.bytes", "log.segment.bytes"}, 14, INT32_MAX},
        {{"segment.index.bytes", "log.index.size.max.bytes"}, 4, INT32_MAX},
        {{"segment.jitter.ms", "", kOnlyDefaultDoc, "0"},
         0,
         0,
         false,
         true,
         nullptr,
         "skiff rolls a segment exactly at segment.ms"},
        {{"segment.ms", "log.roll.ms"}, 1},
        {{"unclean.leader.election.enable", "", kNoReplicationDoc, "false"},
         0,
         0,
         false,
         false,
         check_boolean},
    };
    return kRules;
}

const KeyRule* find_rule(std::string_view name) {
    for (const auto& r : rules())
        if (r.key.name == name)
            return &r;
    return nullptr;
}

fs::path overrides_file(const fs::path& log_dir, const std::string& topic) {
    return topic_config_dir(log_dir) / (topic + ".properties");
}

}  // namespace

const std::vector<TopicConfigKey>& topic_config_keys() {
    static const std::vector<TopicConfigKey> kKeys = [] {
        std::vector<TopicConfigKey> keys;
        for (const auto& r : rules())
            keys.push_back(r.key);
        return keys;
    }();
    return kKeys;
}

int8_t topic_config_type(std::string_view name) {
    constexpr int8_t kBoolean = 1, kString = 2, kInt = 3, kLong = 5, kDouble = 6,
                     kList = 7;  // ConfigType
    const KeyRule* rule = find_rule(name);
    if (!rule)
        return 0;
    if (!rule->integer) {
        if (name == "cleanup.policy" || rule->check == check_throttled_replicas)
            return kList;
        if (rule->check == check_boolean || rule->check == check_true || rule->check == check_false)
            return kBoolean;
        return rule->check == check_ratio ? kDouble : kString;
    }
    if (!rule->only_default_why.empty())  // Kafka's types: the levels INT, the others LONG
        return name.ends_with(".level") ? kInt : kLong;
    return rule->max <= INT32_MAX ? kInt : kLong;
}

std::optional<std::string> invalid_topic_config(std::string_view name, std::string_view value) {
    const KeyRule* rule = find_rule(name);
    if (!rule)
        return "unknown topic config " + std::string(name);
    if (!rule->only_default_why.empty()) {
        const bool ok =
            rule->integer ? config::parse_long(value) == config::parse_long(rule->key.fixed_default)
                          : value == rule->key.fixed_default;
        if (ok)
            return std::nullopt;
        return "topic config " + std::string(name) + "=" + std::string(value) +
               " is not supported by skiff: " + std::string(rule->only_default_why) +
               "; only its default " + std::string(rule->key.fixed_default) + " is accepted";
    }
    if (!rule->integer) {
        if (auto why = rule->check(value))
            return "invalid value '" + std::string(value) + "' for " + std::string(name) + ": " +
                   *why;
        return std::nullopt;
    }
    auto v = config::parse_long(value);
    const bool ok =
        v && ((*v >= rule->min && *v <= rule->max) || (rule->minus_one_is_unlimited && *v == -1));
    if (!ok)
        return "invalid value '" + std::string(value) + "' for " + std::string(name) +
               ": expected an integer between " + std::to_string(rule->min) + " and " +
               std::to_string(rule->max);
    return std::nullopt;
}

storage::LogConfig apply_overrides(storage::LogConfig c, const TopicOverrides& overrides) {
    for (const auto& [name, value] : overrides) {
        if (name == "cleanup.policy") {
            if (auto policy = config::parse_cleanup_policy(value)) {
                c.cleanup_delete = policy->delete_;
                c.cleanup_compact = policy->compact;
            }
            continue;
        }
        if (name == "message.timestamp.type") {
            c.log_append_time = value == "LogAppendTime";
            continue;
        }
        if (name == "min.cleanable.dirty.ratio") {
            if (auto ratio = config::parse_double(value))
                c.min_cleanable_dirty_ratio = *ratio;
            continue;
        }
        auto v = config::parse_long(value);
        if (!v)
            continue;  // other string keys: read by the broker (compression.type) or ignored
        if (name == "segment.bytes")
            c.segment_bytes = static_cast<uint64_t>(*v);
        else if (name == "segment.ms")
            c.roll_ms = *v;
        else if (name == "retention.bytes")
            c.retention_bytes = *v;
        else if (name == "retention.ms")
            c.retention_ms = *v;
        else if (name == "segment.index.bytes")
            c.index_size_max_bytes = static_cast<uint32_t>(*v);
        else if (name == "index.interval.bytes")
            c.index_interval_bytes = static_cast<uint32_t>(*v);
        else if (name == "flush.messages")
            c.flush_interval_messages = *v;
        else if (name == "flush.ms")
            c.flush_interval_ms = *v;
        else if (name == "delete.retention.ms")
            c.delete_retention_ms = *v;
        else if (name == "min.compaction.lag.ms")
            c.min_compaction_lag_ms = *v;
        else if (name == "max.compaction.lag.ms")
            c.max_compaction_lag_ms = *v;
        // max.message.bytes is checked by the produce handler, not by storage.
    }
    return c;
}

std::optional<std::string> conflicting_topic_configs(const storage::LogConfig& effective) {
    if (effective.min_compaction_lag_ms > effective.max_compaction_lag_ms)
        return "conflicting topic configs: min.compaction.lag.ms (" +
               std::to_string(effective.min_compaction_lag_ms) +
               ") is greater than max.compaction.lag.ms (" +
               std::to_string(effective.max_compaction_lag_ms) + ")";
    return std::nullopt;
}

TimestampPolicy timestamp_policy_of(const TopicOverrides& overrides,
                                    const config::BrokerConfig& config) {
    auto long_of = [&](const std::string& key, int64_t fallback) -> std::pair<int64_t, bool> {
        auto it = overrides.find(key);
        if (it == overrides.end())
            return {fallback, false};
        auto v = config::parse_long(it->second);
        return v ? std::pair{*v, true} : std::pair{fallback, false};
    };
    static const std::string kType = "message.timestamp.type";
    static const std::string kBefore = "message.timestamp.before.max.ms";
    static const std::string kAfter = "message.timestamp.after.max.ms";
    static const std::string kDifference = "message.timestamp.difference.max.ms";
    TimestampPolicy p;
    auto type = overrides.find(kType);
    p.log_append_time = type != overrides.end()
                            ? type->second == "LogAppendTime"
                            : config.log_message_timestamp_type == "LogAppendTime";
    const int64_t difference =
        long_of(kDifference, config.log_message_timestamp_difference_max_ms).first;
    // Kafka 3.9's LogConfig: the deprecated difference bound stands in for a side whose own
    // bound keeps its default.
    p.before_max_ms = long_of(kBefore, config.log_message_timestamp_before_max_ms).first;
    if (p.before_max_ms == INT64_MAX)
        p.before_max_ms = difference;
    auto [after, after_on_topic] = long_of(kAfter, config.log_message_timestamp_after_max_ms);
    // Built once: a default BrokerConfig is some hundred strings and this runs for every
    // partition of every produce.
    static const int64_t builtin_after = config::BrokerConfig{}.log_message_timestamp_after_max_ms;
    if (!after_on_topic && difference != INT64_MAX &&
        (after == INT64_MAX || after == builtin_after))
        after = difference;
    p.after_max_ms = after;
    return p;
}

std::optional<SubjectNameStrategy> parse_subject_name_strategy(std::string_view value) {
    constexpr std::string_view kPackage = "io.confluent.kafka.serializers.subject.";
    if (value.starts_with(kPackage))
        value.remove_prefix(kPackage.size());
    if (value == "TopicNameStrategy")
        return SubjectNameStrategy::topic_name;
    if (value == "RecordNameStrategy")
        return SubjectNameStrategy::record_name;
    if (value == "TopicRecordNameStrategy")
        return SubjectNameStrategy::topic_record_name;
    return std::nullopt;
}

std::optional<SchemaValidation> schema_validation_of(const TopicOverrides& overrides) {
    if (overrides.empty())
        return std::nullopt;
    SchemaValidation v;
    auto flag = [&](const char* name) {
        auto it = overrides.find(name);
        return it != overrides.end() && it->second == "true";
    };
    auto strategy = [&](const char* name) {
        auto it = overrides.find(name);
        return it == overrides.end() ? SubjectNameStrategy::topic_name
                                     : parse_subject_name_strategy(it->second)
                                           .value_or(SubjectNameStrategy::topic_name);
    };
    v.key = flag("confluent.key.schema.validation");
    v.value = flag("confluent.value.schema.validation");
    if (!v.key && !v.value)
        return std::nullopt;
    v.key_strategy = strategy("confluent.key.subject.name.strategy");
    v.value_strategy = strategy("confluent.value.subject.name.strategy");
    return v;
}

BrokerDefault broker_default(const TopicConfigKey& key, const config::BrokerConfig& config) {
    if (key.broker_name.empty())  // no broker setting: a fixed default
        return {std::string(key.fixed_default), false};
    auto found = config::find_setting(key.broker_name);
    if (!found)
        return {};
    std::string value = config::render_setting(*found->setting, config);
    std::string builtin = config::render_setting(*found->setting, config::BrokerConfig{});
    return {value, value != builtin};
}

fs::path topic_config_dir(const fs::path& log_dir) {
    return log_dir / "topic-configs";
}

Expected<void, std::string> write_topic_overrides(const fs::path& log_dir, const std::string& topic,
                                                  const TopicOverrides& overrides) {
    std::error_code ec;
    fs::create_directories(topic_config_dir(log_dir), ec);
    if (ec)
        return unexpected("create " + topic_config_dir(log_dir).string() + ": " + ec.message());
    // Atomic and durable (temporary file, fsync, rename, fsync of the directory): a crash leaves
    // the old overrides or the new ones. Before, the file was renamed without an fsync, so a
    // crash could leave it empty and the topic silently back on the broker defaults.
    std::string text = "# overrides of topic " + topic + ", written by skiff\n";
    for (const auto& [name, value] : overrides)
        text.append(name).append(1, '=').append(value).append(1, '\n');
    const fs::path target = overrides_file(log_dir, topic);
    if (auto written = storage::write_file_atomically(target, text); !written)
        return unexpected("write " + target.string() + ": " + written.error().message);
    return {};
}

void remove_topic_overrides(const fs::path& log_dir, const std::string& topic) {
    std::error_code ec;
    fs::remove(overrides_file(log_dir, topic), ec);
}

std::map<std::string, TopicOverrides> read_all_topic_overrides(const fs::path& log_dir) {
    std::map<std::string, TopicOverrides> all;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(topic_config_dir(log_dir), ec)) {
        const fs::path& path = entry.path();
        if (path.extension() != ".properties")
            continue;
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        auto parsed = config::parse_properties(text.str());
        if (!parsed)
            continue;
        TopicOverrides overrides;
        for (const auto& e : *parsed)
            if (!invalid_topic_config(e.key, e.value))  // never let a bad file break start-up
                overrides[e.key] = e.value;
        all[path.stem().string()] = std::move(overrides);
    }
    return all;
}

}  // namespace skiff::broker
