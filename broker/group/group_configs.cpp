#include "broker/group/group_configs.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "config/value_syntax.h"
#include "storage/durable_file.h"

namespace skiff::broker::group {

using protocol::ErrorCode;

namespace {

constexpr std::string_view kAutoOffsetReset = "share.auto.offset.reset";
constexpr std::string_view kIsolationLevel = "share.isolation.level";
constexpr std::string_view kRecordLockDuration = "share.record.lock.duration.ms";
constexpr std::string_view kDeliveryCountLimit = "share.delivery.count.limit";
// Kafka's GroupConfig bounds of share.delivery.count.limit
// (group.share.min/max.delivery.count.limit).
constexpr int32_t kMinDeliveryCountLimit = 2;
constexpr int32_t kMaxDeliveryCountLimit = 10;

// An integer group config's broker default and Kafka's GroupConfig bounds, which are the broker
// settings group.<type>.min/max.<the rest of its name> (bound_setting).
struct IntRule {
    int64_t fallback;
    int64_t min;
    int64_t max;
};

std::optional<IntRule> int_rule(std::string_view name, const config::BrokerConfig& b) {
    if (name == kConsumerSessionTimeoutMs)
        return IntRule{b.group_consumer_session_timeout_ms, b.group_consumer_min_session_timeout_ms,
                       b.group_consumer_max_session_timeout_ms};
    if (name == kConsumerHeartbeatIntervalMs)
        return IntRule{b.group_consumer_heartbeat_interval_ms,
                       b.group_consumer_min_heartbeat_interval_ms,
                       b.group_consumer_max_heartbeat_interval_ms};
    if (name == kShareSessionTimeoutMs)
        return IntRule{b.group_share_session_timeout_ms, b.group_share_min_session_timeout_ms,
                       b.group_share_max_session_timeout_ms};
    if (name == kShareHeartbeatIntervalMs)
        return IntRule{b.group_share_heartbeat_interval_ms, b.group_share_min_heartbeat_interval_ms,
                       b.group_share_max_heartbeat_interval_ms};
    if (name == kRecordLockDuration)
        return IntRule{b.group_share_record_lock_duration_ms,
                       b.group_share_min_record_lock_duration_ms,
                       b.group_share_max_record_lock_duration_ms};
    if (name == kDeliveryCountLimit)
        return IntRule{b.group_share_delivery_count_limit, kMinDeliveryCountLimit,
                       kMaxDeliveryCountLimit};
    return std::nullopt;
}

// "consumer.session.timeout.ms", "min" -> "group.consumer.min.session.timeout.ms".
std::string bound_setting(std::string_view name, std::string_view which) {
    const size_t type_end = name.find('.');
    return "group." + std::string(name.substr(0, type_end)) + "." + std::string(which) +
           std::string(name.substr(type_end));
}

std::string encode(const std::string& s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (c < 0x21 || c == '%' || c == 0x7f) {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string decode(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            auto hex = [](char c) {
                return std::isdigit(c) ? c - '0' : std::toupper(c) - 'A' + 10;
            };
            out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

GroupConfigs::Refusal refuse(const std::string& name, const std::string& value,
                             const std::string& why) {
    return {ErrorCode::invalid_config,
            "Invalid value " + value + " for configuration " + name + ": " + why};
}

}  // namespace

const std::vector<std::string_view>& group_config_names() {
    static const std::vector<std::string_view> names = {
        kConsumerHeartbeatIntervalMs, kConsumerSessionTimeoutMs, kAutoOffsetReset,
        kDeliveryCountLimit,          kShareHeartbeatIntervalMs, kIsolationLevel,
        kRecordLockDuration,          kShareSessionTimeoutMs};
    return names;
}

bool is_int_group_config(std::string_view name) {
    return name != kAutoOffsetReset && name != kIsolationLevel;
}

std::optional<int64_t> parse_iso8601_duration_ms(std::string_view t) {
    if (t.size() < 2 || (t[0] != 'P' && t[0] != 'p'))
        return std::nullopt;
    size_t i = 1;
    bool time_part = false;
    bool any = false;
    double ms = 0;
    while (i < t.size()) {
        if (t[i] == 'T' || t[i] == 't') {
            if (time_part)
                return std::nullopt;
            time_part = true;
            ++i;
            continue;
        }
        size_t start = i;
        while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.'))
            ++i;
        if (i == start || i == t.size())
            return std::nullopt;
        std::string number(t.substr(start, i - start));
        char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(t[i++])));
        double n = 0;
        try {
            size_t used = 0;
            n = std::stod(number, &used);
            if (used != number.size())
                return std::nullopt;
        } catch (...) {
            return std::nullopt;
        }
        if (number.find('.') != std::string::npos && !(time_part && unit == 'S'))
            return std::nullopt;  // only seconds may have a fraction
        if (!time_part && unit == 'D')
            ms += n * 86400000.0;
        else if (time_part && unit == 'H')
            ms += n * 3600000.0;
        else if (time_part && unit == 'M')
            ms += n * 60000.0;
        else if (time_part && unit == 'S')
            ms += n * 1000.0;
        else
            return std::nullopt;
        any = true;
    }
    if (!any || ms > 9.2e18)
        return std::nullopt;
    return static_cast<int64_t>(ms);
}

GroupConfigs::GroupConfigs(std::filesystem::path file, const config::BrokerConfig& broker)
    : file_(std::move(file)), broker_(broker), groups_(read(file_)) {}

GroupConfigs::AllGroups GroupConfigs::read(const std::filesystem::path& file) {
    AllGroups groups;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        auto a = line.find('\t');
        auto b = a == std::string::npos ? a : line.find('\t', a + 1);
        if (b == std::string::npos)
            continue;
        groups[decode(std::string_view(line).substr(0, a))][line.substr(a + 1, b - a - 1)] =
            decode(std::string_view(line).substr(b + 1));
    }
    return groups;
}

GroupConfigs::Refusal GroupConfigs::validate(const std::string& name,
                                             const std::string& value) const {
    if (auto rule = int_rule(name, broker_)) {
        auto v = config::parse_long(value);
        if (!v)
            return refuse(name, value, "Expected value to be a 32-bit integer");
        if (*v < rule->min)
            return refuse(name, value,
                          "Value must be at least " + std::to_string(rule->min) + " (" +
                              bound_setting(name, "min") + ")");
        if (*v > rule->max)
            return refuse(name, value,
                          "Value must be no more than " + std::to_string(rule->max) + " (" +
                              bound_setting(name, "max") + ")");
        return {};
    }
    if (name == kIsolationLevel) {
        if (value != "read_uncommitted" && value != "read_committed")
            return refuse(name, value, "String must be one of: read_committed, read_uncommitted");
        return {};
    }
    if (name == kAutoOffsetReset) {
        if (value == "latest" || value == "earliest")
            return {};
        constexpr std::string_view kByDuration = "by_duration:";
        if (value.rfind(kByDuration, 0) == 0) {
            if (!parse_iso8601_duration_ms(std::string_view(value).substr(kByDuration.size())))
                return refuse(name, value,
                              "Unable to parse the specified duration after by_duration: (an "
                              "ISO-8601 duration such as PT1H)");
            return {};
        }
        return refuse(name, value, "Valid values are: latest, earliest, by_duration:<duration>");
    }
    return {ErrorCode::invalid_config, "Unknown group config name: " + name};
}

GroupConfigs::Refusal GroupConfigs::validate_together(const GroupConfigValues& values) const {
    // Kafka validates the group's values over the broker's defaults as one config, so a timeout
    // lowered below the default interval is refused even when the interval is not set.
    auto effective = [&](std::string_view name) {
        auto it = values.find(std::string(name));
        auto own = it == values.end() ? std::nullopt : config::parse_long(it->second);
        return own ? *own : *config::parse_long(default_value(name));
    };
    for (auto [timeout, interval] :
         {std::pair{kConsumerSessionTimeoutMs, kConsumerHeartbeatIntervalMs},
          std::pair{kShareSessionTimeoutMs, kShareHeartbeatIntervalMs}})
        if (effective(timeout) <= effective(interval))
            return {ErrorCode::invalid_config,
                    std::string(timeout) + " must be greater than " + std::string(interval)};
    return {};
}

GroupConfigValues GroupConfigs::values(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    auto it = groups_.find(group_id);
    return it == groups_.end() ? GroupConfigValues{} : it->second;
}

bool GroupConfigs::write_locked(const std::map<std::string, GroupConfigValues>& all) const {
    std::string bytes;
    for (const auto& [group, values] : all)
        for (const auto& [name, value] : values)
            bytes += encode(group) + '\t' + name + '\t' + encode(value) + '\n';
    auto written = storage::write_file_atomically(file_, bytes);
    if (!written)
        spdlog::error("writing group configs to {} failed: {}", file_.string(),
                      written.error().message);
    return static_cast<bool>(written);
}

GroupConfigs::Refusal GroupConfigs::set(const std::string& group_id,
                                        const GroupConfigValues& values, bool validate_only) {
    if (group_id.empty())
        return {ErrorCode::invalid_request, "Group id can't be empty."};
    for (const auto& [name, value] : values)
        if (auto r = validate(name, value); r.error != ErrorCode::none)
            return r;
    if (auto r = validate_together(values); r.error != ErrorCode::none)
        return r;
    if (validate_only)
        return {};
    std::lock_guard lock(mutex_);
    auto next = groups_;
    if (values.empty())
        next.erase(group_id);
    else
        next[group_id] = values;
    if (!write_locked(next))
        return {ErrorCode::unknown_server_error, "could not write the group configs"};
    groups_ = std::move(next);
    return {};
}

void GroupConfigs::erase(const std::string& group_id) {
    std::lock_guard lock(mutex_);
    if (!groups_.count(group_id))
        return;
    auto next = groups_;
    next.erase(group_id);
    if (write_locked(next))
        groups_ = std::move(next);
}

bool GroupConfigs::clear() {
    std::lock_guard lock(mutex_);
    if (groups_.empty())
        return true;
    if (!write_locked({}))
        return false;
    groups_.clear();
    return true;
}

bool GroupConfigs::replace_all_from(const std::filesystem::path& file) {
    AllGroups next = read(file);
    std::lock_guard lock(mutex_);
    if (!write_locked(next))
        return false;
    groups_ = std::move(next);
    return true;
}

std::string GroupConfigs::default_value(std::string_view name) const {
    if (name == kAutoOffsetReset)
        return "latest";
    if (name == kIsolationLevel)
        return "read_uncommitted";
    if (auto rule = int_rule(name, broker_))
        return std::to_string(rule->fallback);
    return "";
}

std::optional<int32_t> GroupConfigs::int_value(const std::string& group_id,
                                               std::string_view name) const {
    std::lock_guard lock(mutex_);
    auto g = groups_.find(group_id);
    if (g == groups_.end())
        return std::nullopt;
    auto v = g->second.find(std::string(name));
    if (v == g->second.end())
        return std::nullopt;
    auto n = config::parse_long(v->second);
    return n ? std::optional<int32_t>(static_cast<int32_t>(*n)) : std::nullopt;
}

broker::share::ShareGroupConfig GroupConfigs::share_config(const std::string& group_id) const {
    broker::share::ShareGroupConfig c;
    c.record_lock_duration_ms = broker_.group_share_record_lock_duration_ms;
    c.delivery_count_limit = static_cast<int16_t>(broker_.group_share_delivery_count_limit);
    c.partition_max_record_locks = broker_.group_share_partition_max_record_locks;
    const GroupConfigValues v = values(group_id);
    for (const auto& [name, value] : v) {
        if (name == kAutoOffsetReset) {
            if (value == "earliest") {
                c.auto_offset_reset = broker::share::ShareAutoOffsetReset::earliest;
            } else if (value == "latest") {
                c.auto_offset_reset = broker::share::ShareAutoOffsetReset::latest;
            } else if (auto ms = value.rfind("by_duration:", 0) == 0
                                     ? parse_iso8601_duration_ms(std::string_view(value).substr(12))
                                     : std::nullopt) {
                c.auto_offset_reset = broker::share::ShareAutoOffsetReset::by_duration;
                c.by_duration_ms = *ms;
            }
        } else if (name == kIsolationLevel) {
            c.read_committed = value == "read_committed";
        } else if (name == kRecordLockDuration) {
            if (auto n = config::parse_long(value))
                c.record_lock_duration_ms = static_cast<int32_t>(*n);
        } else if (name == kDeliveryCountLimit) {
            if (auto n = config::parse_long(value))
                c.delivery_count_limit = static_cast<int16_t>(*n);
        }
    }
    return c;
}

}  // namespace skiff::broker::group
