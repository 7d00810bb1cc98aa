// How a row of the settings table is looked up, parsed into BrokerConfig, described and rendered;
// the rows themselves are in settings_table.cpp.
#include "config/settings.h"

#include <algorithm>
#include <charconv>

#include "config/listener.h"
#include "config/properties.h"
#include "config/value_syntax.h"

namespace skiff::config {
namespace {

// Java's Long.parseLong: optional sign, decimal digits, nothing else.
std::optional<int64_t> parse_int64(std::string_view s) {
    if (!s.empty() && s.front() == '+') {
        s.remove_prefix(1);
    }
    if (s.empty() || s.front() == '+') {
        return std::nullopt;
    }
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

std::string describe_range(int64_t min, int64_t max, bool minus_one_is_unlimited) {
    std::string range;
    if (min == INT64_MIN && max == INT64_MAX) {
        range = "an integer";
    } else if (max == INT64_MAX) {
        range = "an integer >= " + std::to_string(min);
    } else if (min == INT64_MIN) {
        range = "an integer <= " + std::to_string(max);
    } else {
        range = "an integer between " + std::to_string(min) + " and " + std::to_string(max);
    }
    return minus_one_is_unlimited ? "-1 (unlimited) or " + range : range;
}

Expected<int64_t, std::string> parse_integer(const SettingDescriptor& setting,
                                             const Spelling& spelling, std::string_view text,
                                             int64_t type_max) {
    // The range is checked in the unit the user wrote: log.retention.hours must be small enough
    // that its value in ms fits. A bound that is only the width of the member is left out of the
    // message unless the value broke it ("an integer >= 1", not "between 1 and 2147483647").
    const int64_t max = std::min(setting.max, type_max);
    const int64_t scale = spelling.scale;
    const int64_t unit_min =
        setting.min <= 0 ? setting.min / scale : (setting.min + scale - 1) / scale;
    const int64_t unit_max = max / scale;
    const bool max_is_width = setting.max >= type_max && scale == 1;
    const auto value = parse_int64(text);
    if (value && setting.minus_one_is_unlimited && *value == -1) {
        return int64_t{-1};
    }
    if (value && *value >= unit_min && *value <= unit_max) {
        return *value * scale;
    }
    std::string expected =
        "expected " + describe_range(unit_min, max_is_width ? INT64_MAX : unit_max,
                                     setting.minus_one_is_unlimited);
    if (max_is_width && value && *value > unit_max) {
        expected += " (at most " + std::to_string(unit_max) + ")";
    }
    return unexpected(std::move(expected));
}

}  // namespace

std::optional<SettingLookup> find_setting(std::string_view key) {
    for (const auto& setting : settings()) {
        if (setting.key == key) {
            return SettingLookup{&setting, Spelling{setting.key}, 0};
        }
        for (size_t i = 0; i < setting.other_spellings.size(); ++i) {
            if (setting.other_spellings[i].key == key) {
                return SettingLookup{&setting, setting.other_spellings[i], static_cast<int>(i + 1)};
            }
        }
    }
    return std::nullopt;
}

Expected<void, std::string> apply_setting(const SettingDescriptor& setting,
                                          const Spelling& spelling, std::string_view raw,
                                          BrokerConfig& config) {
    const std::string_view text = trim(raw);
    if (setting.check) {
        if (auto problem = setting.check(text)) {
            return unexpected(std::move(*problem));
        }
    }
    return std::visit(
        [&](auto member) -> Expected<void, std::string> {
            using M = decltype(member);
            if constexpr (std::is_same_v<M, std::monostate>) {
                return {};
            } else if constexpr (std::is_same_v<M, int32_t BrokerConfig::*>) {
                auto v = parse_integer(setting, spelling, text, kInt32Max);
                if (!v) {
                    return unexpected(std::move(v.error()));
                }
                config.*member = static_cast<int32_t>(*v);
                return {};
            } else if constexpr (std::is_same_v<M, int64_t BrokerConfig::*>) {
                auto v = parse_integer(setting, spelling, text, INT64_MAX);
                if (!v) {
                    return unexpected(std::move(v.error()));
                }
                config.*member = *v;
                return {};
            } else if constexpr (std::is_same_v<M, bool BrokerConfig::*>) {
                // Kafka's ConfigDef accepts true/false in any case.
                std::string lower(text);
                for (char& c : lower) {
                    c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
                }
                if (lower != "true" && lower != "false") {
                    return unexpected(std::string("expected true or false"));
                }
                config.*member = lower == "true";
                return {};
            } else if constexpr (std::is_same_v<M, std::string BrokerConfig::*>) {
                config.*member = std::string(text);
                return {};
            } else if constexpr (std::is_same_v<M, double BrokerConfig::*>) {
                auto v = parse_double(text);
                if (!v) {
                    return unexpected(std::string("expected a number"));
                }
                config.*member = *v;
                return {};
            } else {
                auto listeners = parse_listeners(text);
                if (!listeners) {
                    return unexpected(std::move(listeners.error()));
                }
                config.*member = std::move(*listeners);
                return {};
            }
        },
        setting.member);
}

std::string describe_allowed(const SettingDescriptor& setting) {
    if (std::holds_alternative<bool BrokerConfig::*>(setting.member)) {
        return "true or false";
    }
    if (std::holds_alternative<double BrokerConfig::*>(setting.member)) {
        // A double's range is its row's check: the clause that check gives for a value that is
        // no number ("expected a number between 0 and 1") names it, so the two cannot disagree.
        constexpr std::string_view kExpected = "expected ";
        const auto refused = setting.check ? setting.check("") : std::nullopt;
        if (!refused || !refused->starts_with(kExpected)) {
            return "a number";
        }
        return refused->substr(kExpected.size());
    }
    const bool is_int32 = std::holds_alternative<int32_t BrokerConfig::*>(setting.member);
    if (!is_int32 && !std::holds_alternative<int64_t BrokerConfig::*>(setting.member)) {
        return "";
    }
    const int64_t type_max = is_int32 ? kInt32Max : INT64_MAX;
    const int64_t max = setting.max >= type_max ? INT64_MAX : setting.max;
    return describe_range(setting.min, max, setting.minus_one_is_unlimited);
}

std::string render_setting(const SettingDescriptor& setting, const BrokerConfig& config) {
    return std::visit(
        [&](auto member) -> std::string {
            using M = decltype(member);
            if constexpr (std::is_same_v<M, std::monostate>) {
                return std::string(setting.default_value);
            } else if constexpr (std::is_same_v<M, bool BrokerConfig::*>) {
                return config.*member ? "true" : "false";
            } else if constexpr (std::is_same_v<M, std::string BrokerConfig::*>) {
                return config.*member;
            } else if constexpr (std::is_same_v<M, std::vector<Listener> BrokerConfig::*>) {
                return listeners_to_string(config.*member);
            } else if constexpr (std::is_same_v<M, double BrokerConfig::*>) {
                return render_double(config.*member);
            } else {
                return std::to_string(config.*member);
            }
        },
        setting.member);
}

}  // namespace skiff::config
