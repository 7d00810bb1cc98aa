// Group configs (KIP-848 / KIP-932's GROUP config resource, type 32): a group's own values of
// the share.* settings, set with IncrementalAlterConfigs and read with DescribeConfigs, as
// Kafka's GroupConfig. Validated with Kafka's rules (a share.* value outside the broker's
// group.share.min/max.* bounds, an unknown name or a malformed value is INVALID_CONFIG) and kept
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

namespace skiff::broker::group::share {

using GroupConfigValues = std::map<std::string, std::string>;

// The group config names Kafka 4.2 has for share groups, in the order DescribeConfigs lists them.
const std::vector<std::string_view>& share_group_config_names();

class GroupConfigs {
  public:
    GroupConfigs(std::filesystem::path file, const config::BrokerConfig& broker);

    // NONE, or INVALID_CONFIG with Kafka's reason for one name/value.
    struct Refusal {
        protocol::ErrorCode error = protocol::ErrorCode::none;
        std::string message;
    };
    Refusal validate(const std::string& name, const std::string& value) const;

    // The group's own values (empty: none).
    GroupConfigValues values(const std::string& group_id) const;
    // Replaces the group's values with `values` after validating each (nothing changes on a
    // refusal); `validate_only`: only checks. Written before this returns.
    Refusal set(const std::string& group_id, const GroupConfigValues& values, bool validate_only);
    // DeleteGroups: the group's configs go with it.
    void erase(const std::string& group_id);

    // The broker default of a name, as DescribeConfigs shows it ("" for an unknown name).
    std::string default_value(std::string_view name) const;
    // The group's settings for its share-partitions: the broker defaults, its values over them.
    broker::share::ShareGroupConfig share_config(const std::string& group_id) const;
    // The group's share.session.timeout.ms / share.heartbeat.interval.ms, when it set them.
    std::optional<int32_t> int_value(const std::string& group_id, std::string_view name) const;

  private:
    bool write_locked(const std::map<std::string, GroupConfigValues>& all) const;

    std::filesystem::path file_;
    config::BrokerConfig broker_;
    mutable std::mutex mutex_;
    std::map<std::string, GroupConfigValues> groups_;
};

// share.auto.offset.reset=by_duration:<ISO-8601 duration> (Java's Duration.parse forms:
// PnDTnHnMn.nS, each part optional, non-negative): milliseconds, or nullopt when malformed.
std::optional<int64_t> parse_iso8601_duration_ms(std::string_view text);

}  // namespace skiff::broker::group::share
