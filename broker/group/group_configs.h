// Group configs (KIP-848 / KIP-932's GROUP config resource, type 32): a group's own values of
// the consumer.* settings (consumer groups) and the share.* settings (share groups), set with
// IncrementalAlterConfigs and read with DescribeConfigs, as Kafka's GroupConfig. Validated with
// Kafka's rules (a value outside the broker's group.consumer.* / group.share.* min and max
// bounds, a session timeout not above the heartbeat interval, an unknown name or a malformed
// value is INVALID_CONFIG) and kept
// durable in <log dir>/group-configs (one "group<TAB>name<TAB>value" line per value, group
// percent-encoded; written atomically before a change is answered), as topic overrides are
// kept in topic-configs/. A group need not exist to have configs (Kafka allows configuring a
// group before its first member joins).
//
// Thread-safe: one mutex; a change is written under it, reads copy.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/share/share_group_config.h"
#include "config/broker_config.h"
#include "protocol/error_code.h"

namespace skiff::broker::group {

using GroupConfigValues = std::map<std::string, std::string>;

// The file in the log dir (and in a snapshot, broker/control/snapshots.h) that holds them.
inline constexpr const char* kGroupConfigsFile = "group-configs";

// The names a group's members' timing comes from, each over the broker setting of the same name
// with a `group.` prefix.
inline constexpr std::string_view kConsumerSessionTimeoutMs = "consumer.session.timeout.ms";
inline constexpr std::string_view kConsumerHeartbeatIntervalMs = "consumer.heartbeat.interval.ms";
inline constexpr std::string_view kShareSessionTimeoutMs = "share.session.timeout.ms";
inline constexpr std::string_view kShareHeartbeatIntervalMs = "share.heartbeat.interval.ms";

// The group config names Kafka 4.2 has for consumer and share groups (not its streams.* ones:
// skiff has no streams groups), in the order DescribeConfigs lists them.
const std::vector<std::string_view>& group_config_names();
// consumer.session.timeout.ms and the other names whose values are integers.
bool is_int_group_config(std::string_view name);

class GroupConfigs {
  public:
    GroupConfigs(std::filesystem::path file, const config::BrokerConfig& broker);

    // NONE, or INVALID_CONFIG with Kafka's reason for one name/value.
    struct Refusal {
        protocol::ErrorCode error = protocol::ErrorCode::none;
        std::string message;
    };
    Refusal validate(const std::string& name, const std::string& value) const;
    // NONE, or INVALID_CONFIG when a group's whole set of values, over the broker's defaults,
    // has a session timeout not above its heartbeat interval (consumer.* or share.*).
    Refusal validate_together(const GroupConfigValues& values) const;

    // The group's own values (empty: none).
    GroupConfigValues values(const std::string& group_id) const;
    // Replaces the group's values with `values` after validating each (nothing changes on a
    // refusal); `validate_only`: only checks. Written before this returns.
    Refusal set(const std::string& group_id, const GroupConfigValues& values, bool validate_only);
    // DeleteGroups: the group's configs go with it.
    void erase(const std::string& group_id);
    // broker/control's reset: every group's configs go. False when the file was not written.
    bool clear();
    // broker/control's snapshot restore: every group's configs become those in `file` (a copy
    // of this file; none when it does not exist). False when the file was not written.
    bool replace_all_from(const std::filesystem::path& file);

    // The broker default of a name, as DescribeConfigs shows it ("" for an unknown name).
    std::string default_value(std::string_view name) const;
    // The group's settings for its share-partitions: the broker defaults, its values over them.
    broker::share::ShareGroupConfig share_config(const std::string& group_id) const;
    // The group's own value of an integer config (consumer.session.timeout.ms,
    // share.heartbeat.interval.ms, ...), nullopt when it set none: the broker's setting applies.
    std::optional<int32_t> int_value(const std::string& group_id, std::string_view name) const;

  private:
    using AllGroups = std::map<std::string, GroupConfigValues>;
    static AllGroups read(const std::filesystem::path& file);
    bool write_locked(const std::map<std::string, GroupConfigValues>& all) const;

    std::filesystem::path file_;
    config::BrokerConfig broker_;
    mutable std::mutex mutex_;
    std::map<std::string, GroupConfigValues> groups_;
};

// share.auto.offset.reset=by_duration:<ISO-8601 duration> (Java's Duration.parse forms:
// PnDTnHnMn.nS, each part optional, non-negative): milliseconds, or nullopt when malformed.
std::optional<int64_t> parse_iso8601_duration_ms(std::string_view text);

}  // namespace skiff::broker::group
