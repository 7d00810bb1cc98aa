// The settings table: one descriptor per broker setting. Parsing, validation, the non-default
// report, `--help` and docs/configuration.md are all generated from it, so adding a setting means
// adding a BrokerConfig member and one row in settings_table.cpp.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/broker_config.h"
#include "protocol/expected.h"

namespace skiff::config {

// Another name for a setting. `scale` converts its unit to the canonical one
// (log.retention.hours has scale 3600000 towards log.retention.ms); aliases have scale 1.
struct Spelling {
    std::string_view key;
    int64_t scale = 1;
};

// INT32_MAX as an int64_t, the type of the rows' ranges: every int32 member is capped at it.
inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// Where a parsed value goes. std::monostate: validated only, nothing to store. Doubles are
// Java's Double syntax (finite values); their range is the row's `check`.
using SettingMember = std::variant<std::monostate, int32_t BrokerConfig::*, int64_t BrokerConfig::*,
                                   bool BrokerConfig::*, std::string BrokerConfig::*,
                                   std::vector<Listener> BrokerConfig::*, double BrokerConfig::*>;

struct SettingDescriptor {
    std::string_view key{};
    // Other spellings, highest precedence first; all lose to `key` within one source.
    std::vector<Spelling> other_spellings{};
    // The default as a user would write it (parsed by a test to check it equals BrokerConfig{}).
    // Empty when the default is derived from other settings.
    std::string_view default_value{};
    // Shown instead of default_value in help and docs when set.
    std::string_view default_description{};
    std::string_view doc{};
    SettingMember member{};
    // Integer range in the canonical unit; int32 members are also capped at INT32_MAX.
    int64_t min = INT64_MIN;
    int64_t max = INT64_MAX;
    bool minus_one_is_unlimited = false;  // -1 is accepted as is, whatever the unit
    // Extra check for string settings: the "expected ..." clause on failure.
    std::optional<std::string> (*check)(std::string_view) = nullptr;
    // A secret (a private key, a password): never logged, and DescribeConfigs answers it as
    // sensitive with no value, as Kafka does.
    bool sensitive = false;

    std::string_view shown_default() const {
        return default_description.empty() ? default_value : default_description;
    }
};

// group.consumer.assignors' entries: "uniform" or "range" for those names and Kafka's class
// names (org.apache.kafka.coordinator.group.assignor.UniformAssignor, ...RangeAssignor);
// nullopt for anything else.
std::optional<std::string> consumer_assignor_name(std::string_view entry);

// Whether group.coordinator.rebalance.protocols lists `protocol` ("classic", "consumer").
bool rebalance_protocol_enabled(const BrokerConfig& config, std::string_view protocol);

// All settings, in the order they are documented and reported.
const std::vector<SettingDescriptor>& settings();

struct SettingLookup {
    const SettingDescriptor* setting = nullptr;
    Spelling spelling;
    int rank = 0;  // 0 for the canonical key, 1.. for other_spellings in order
};
// Finds a setting by any spelling; nullopt for unknown keys.
std::optional<SettingLookup> find_setting(std::string_view key);

// Parses `text` (surrounding whitespace ignored) as written under `spelling` and stores it in
// `config`. On failure returns the clause that follows the value in the error message, e.g.
// "expected an integer >= 1".
Expected<void, std::string> apply_setting(const SettingDescriptor& setting,
                                          const Spelling& spelling, std::string_view text,
                                          BrokerConfig& config);

// What the canonical key accepts, for documentation: "an integer >= 14", "true or false"; empty
// for settings whose doc string says it.
std::string describe_allowed(const SettingDescriptor& setting);

// The effective value in the canonical unit, in the syntax the parser accepts.
std::string render_setting(const SettingDescriptor& setting, const BrokerConfig& config);

}  // namespace skiff::config
