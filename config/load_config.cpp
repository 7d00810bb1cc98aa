// load_config: gathers key=value pairs from the file, the environment and --override, then lets the
// settings table parse them. See broker_config.h for the precedence rules.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "config/broker_config.h"
#include "config/properties.h"
#include "config/settings.h"

namespace skiff::config {
namespace {

constexpr std::string_view kEnvPrefix = "SKIFF_";

// One key=value from one source. Layers: 0 file, 1 environment, 2 --override.
struct RawSetting {
    std::string key;
    std::string value;
    std::string source;
    int layer = 0;
};

std::string in_quotes(std::string_view s) {
    return "\"" + std::string(s) + "\"";
}

ConfigError invalid_value(const RawSetting& raw, std::string_view allowed) {
    std::string message = "invalid value " + in_quotes(raw.value) + " for " + raw.key + " (from " +
                          raw.source + "): " + std::string(allowed);
    return ConfigError{raw.key, raw.value, raw.source, std::move(message)};
}

// Rules across settings, as Kafka's: each cleaner thread needs at least 1 MiB of key map, and a
// record cannot have to be cleaned before it may be.
Expected<void, ConfigError> check_cleaner(
    const BrokerConfig& config,
    const std::map<const SettingDescriptor*, std::pair<SettingLookup, const RawSetting*>>&
        winners) {
    auto raw_of = [&](std::string_view first, std::string_view second) -> const RawSetting* {
        for (auto key : {first, second}) {
            if (auto it = winners.find(find_setting(key)->setting); it != winners.end()) {
                return it->second.second;
            }
        }
        return nullptr;
    };
    constexpr int64_t kMiB = 1 << 20;
    if (config.log_cleaner_threads > 0 &&
        config.log_cleaner_dedupe_buffer_size / config.log_cleaner_threads < kMiB) {
        if (const RawSetting* raw =
                raw_of("log.cleaner.dedupe.buffer.size", "log.cleaner.threads")) {
            return unexpected(
                invalid_value(*raw,
                              "log.cleaner.dedupe.buffer.size must be at least 1 MiB (1048576) per "
                              "cleaner thread (log.cleaner.threads=" +
                                  std::to_string(config.log_cleaner_threads) + ")"));
        }
    }
    if (config.log_cleaner_min_compaction_lag_ms > config.log_cleaner_max_compaction_lag_ms) {
        if (const RawSetting* raw =
                raw_of("log.cleaner.min.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms")) {
            return unexpected(invalid_value(
                *raw, "log.cleaner.min.compaction.lag.ms (" +
                          std::to_string(config.log_cleaner_min_compaction_lag_ms) +
                          ") must not exceed log.cleaner.max.compaction.lag.ms (" +
                          std::to_string(config.log_cleaner_max_compaction_lag_ms) + ")"));
        }
    }
    return {};
}

// KIP-848's timeouts within their bounds, and a heartbeat interval below the session timeout
// (Kafka's GroupCoordinatorConfig requirements). Blamed on the first of the settings involved
// that was set.
Expected<void, ConfigError> check_consumer_group_timeouts(
    const BrokerConfig& config,
    const std::map<const SettingDescriptor*, std::pair<SettingLookup, const RawSetting*>>&
        winners) {
    struct Rule {
        bool broken;
        std::string message;
    };
    const auto& c = config;
    auto n = [](int64_t v) { return std::to_string(v); };
    const Rule rules[] = {
        {c.group_consumer_heartbeat_interval_ms < c.group_consumer_min_heartbeat_interval_ms ||
             c.group_consumer_heartbeat_interval_ms > c.group_consumer_max_heartbeat_interval_ms,
         "group.consumer.heartbeat.interval.ms (" + n(c.group_consumer_heartbeat_interval_ms) +
             ") must be between group.consumer.min.heartbeat.interval.ms (" +
             n(c.group_consumer_min_heartbeat_interval_ms) +
             ") and group.consumer.max.heartbeat.interval.ms (" +
             n(c.group_consumer_max_heartbeat_interval_ms) + ")"},
        {c.group_consumer_session_timeout_ms < c.group_consumer_min_session_timeout_ms ||
             c.group_consumer_session_timeout_ms > c.group_consumer_max_session_timeout_ms,
         "group.consumer.session.timeout.ms (" + n(c.group_consumer_session_timeout_ms) +
             ") must be between group.consumer.min.session.timeout.ms (" +
             n(c.group_consumer_min_session_timeout_ms) +
             ") and group.consumer.max.session.timeout.ms (" +
             n(c.group_consumer_max_session_timeout_ms) + ")"},
        {c.group_consumer_heartbeat_interval_ms >= c.group_consumer_session_timeout_ms,
         "group.consumer.heartbeat.interval.ms (" + n(c.group_consumer_heartbeat_interval_ms) +
             ") must be less than group.consumer.session.timeout.ms (" +
             n(c.group_consumer_session_timeout_ms) + ")"},
        {c.group_share_heartbeat_interval_ms < c.group_share_min_heartbeat_interval_ms ||
             c.group_share_heartbeat_interval_ms > c.group_share_max_heartbeat_interval_ms,
         "group.share.heartbeat.interval.ms (" + n(c.group_share_heartbeat_interval_ms) +
             ") must be between group.share.min.heartbeat.interval.ms (" +
             n(c.group_share_min_heartbeat_interval_ms) +
             ") and group.share.max.heartbeat.interval.ms (" +
             n(c.group_share_max_heartbeat_interval_ms) + ")"},
        {c.group_share_session_timeout_ms < c.group_share_min_session_timeout_ms ||
             c.group_share_session_timeout_ms > c.group_share_max_session_timeout_ms,
         "group.share.session.timeout.ms (" + n(c.group_share_session_timeout_ms) +
             ") must be between group.share.min.session.timeout.ms (" +
             n(c.group_share_min_session_timeout_ms) +
             ") and group.share.max.session.timeout.ms (" +
             n(c.group_share_max_session_timeout_ms) + ")"},
        {c.group_share_record_lock_duration_ms < c.group_share_min_record_lock_duration_ms ||
             c.group_share_record_lock_duration_ms > c.group_share_max_record_lock_duration_ms,
         "group.share.record.lock.duration.ms (" + n(c.group_share_record_lock_duration_ms) +
             ") must be between group.share.min.record.lock.duration.ms (" +
             n(c.group_share_min_record_lock_duration_ms) +
             ") and group.share.max.record.lock.duration.ms (" +
             n(c.group_share_max_record_lock_duration_ms) + ")"},
    };
    static constexpr std::string_view kKeys[] = {
        "group.consumer.heartbeat.interval.ms",     "group.consumer.session.timeout.ms",
        "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms",
        "group.consumer.min.session.timeout.ms",    "group.consumer.max.session.timeout.ms",
        "group.share.heartbeat.interval.ms",        "group.share.session.timeout.ms",
        "group.share.min.heartbeat.interval.ms",    "group.share.max.heartbeat.interval.ms",
        "group.share.min.session.timeout.ms",       "group.share.max.session.timeout.ms",
        "group.share.record.lock.duration.ms",      "group.share.min.record.lock.duration.ms",
        "group.share.max.record.lock.duration.ms"};
    for (const Rule& rule : rules) {
        if (!rule.broken)
            continue;
        for (auto key : kKeys)
            if (auto it = winners.find(find_setting(key)->setting); it != winners.end())
                return unexpected(invalid_value(*it->second.second, rule.message));
    }
    return {};
}

// Every listener's name mapped to a security protocol skiff serves. Blamed on the map when it was
// set (the usual fix is there), else on listeners.
Expected<void, ConfigError> check_protocols(
    const BrokerConfig& config,
    const std::map<const SettingDescriptor*, std::pair<SettingLookup, const RawSetting*>>&
        winners) {
    auto map = parse_security_protocol_map(config.listener_security_protocol_map);
    const bool has_keystore =
        !config.ssl_keystore_location.empty() || !config.ssl_keystore_certificate_chain.empty();
    auto checked = map ? check_listener_protocols(config.listeners, *map, has_keystore)
                       : Expected<void, std::string>(unexpected(map.error()));
    if (checked)
        return {};
    for (auto key : {"listener.security.protocol.map", "listeners"}) {
        if (auto it = winners.find(find_setting(key)->setting); it != winners.end())
            return unexpected(invalid_value(*it->second.second, checked.error()));
    }
    // Both defaults: PLAINTEXT://... maps to PLAINTEXT, so this is unreachable.
    return unexpected(ConfigError{"listeners", "", "defaults", checked.error()});
}

// Kafka's per-listener form of a setting: listener.name.<listener, lower case>.<setting>. Only
// sasl.enabled.mechanisms has one in skiff.
constexpr std::string_view kListenerPrefix = "listener.name.";
constexpr std::string_view kSaslMechanismsSuffix = ".sasl.enabled.mechanisms";

bool is_listener_sasl_mechanisms(std::string_view key) {
    return key.size() > kListenerPrefix.size() + kSaslMechanismsSuffix.size() &&
           key.starts_with(kListenerPrefix) && key.ends_with(kSaslMechanismsSuffix);
}

Expected<void, ConfigError> apply_listener_sasl_mechanisms(
    const std::vector<const RawSetting*>& overrides, BrokerConfig& config) {
    for (const RawSetting* raw : overrides) {
        std::string name(raw->key.substr(
            kListenerPrefix.size(),
            raw->key.size() - kListenerPrefix.size() - kSaslMechanismsSuffix.size()));
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        const bool known = std::any_of(config.listeners.begin(), config.listeners.end(),
                                       [&](const Listener& l) { return l.name == name; });
        if (!known)
            return unexpected(invalid_value(
                *raw, "expected the name of a listener in listeners (" + name + " is none)"));
        if (auto problem = sasl_mechanisms_problem(raw->value))
            return unexpected(invalid_value(*raw, *problem));
        config.listener_sasl_enabled_mechanisms[name] = raw->value;
    }
    return {};
}

std::string env_name_to_key(std::string_view name) {
    std::string key(name.substr(kEnvPrefix.size()));
    for (char& c : key) {
        if (c == '_') {
            c = '.';
        } else if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return key;
}

Expected<void, ConfigError> read_file(const std::filesystem::path& path,
                                      std::vector<RawSetting>& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const std::string reason = std::strerror(errno);
        return unexpected(
            ConfigError{"", path.string(), "--config",
                        "cannot read config file " + in_quotes(path.string()) + ": " + reason});
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto entries = parse_properties(buffer.str());
    if (!entries) {
        const std::string where = path.string() + ":" + std::to_string(entries.error().line);
        return unexpected(ConfigError{
            "", "", where, "malformed line at " + where + ": " + entries.error().message});
    }
    for (auto& entry : *entries) {
        out.push_back({std::move(entry.key), std::move(entry.value),
                       path.string() + ":" + std::to_string(entry.line), 0});
    }
    return {};
}

Expected<void, ConfigError> read_overrides(const std::vector<std::string>& overrides,
                                           std::vector<RawSetting>& out) {
    for (const auto& text : overrides) {
        const auto eq = text.find('=');
        std::string key = eq == std::string::npos ? std::string() : text.substr(0, eq);
        key.erase(0, key.find_first_not_of(" \t"));
        key.erase(key.find_last_not_of(" \t") + 1);
        if (key.empty()) {
            return unexpected(
                ConfigError{"", text, "--override",
                            "malformed --override " + in_quotes(text) + ": expected key=value"});
        }
        out.push_back({std::move(key), text.substr(eq + 1), "--override", 2});
    }
    return {};
}

// advertised.listeners when not set: what clients can reach of `listeners`.
std::vector<Listener> derive_advertised(const std::vector<Listener>& listeners) {
    return effective_advertised(listeners, {});
}

Expected<void, ConfigError> check_advertised(const BrokerConfig& config, const RawSetting& raw) {
    for (const auto& advertised : config.advertised_listeners) {
        if (is_wildcard_host(advertised.host)) {
            return unexpected(invalid_value(raw, "expected addresses clients can connect to (" +
                                                     advertised.to_string() +
                                                     " is the wildcard address)"));
        }
        const bool known =
            std::any_of(config.listeners.begin(), config.listeners.end(),
                        [&](const Listener& l) { return l.name == advertised.name; });
        // Kafka's rule: advertised names are listener names. A listener left out advertises its
        // own address (config::effective_advertised), where Kafka would advertise nothing.
        if (!known) {
            return unexpected(invalid_value(
                raw, "expected only listener names that appear in listeners (" + advertised.name +
                         " is not in " + listeners_to_string(config.listeners) + ")"));
        }
    }
    return {};
}

}  // namespace

Expected<LoadedConfig, ConfigError> load_config(const ConfigSources& sources) {
    std::vector<RawSetting> raw;
    if (sources.file) {
        if (auto ok = read_file(*sources.file, raw); !ok) {
            return unexpected(ok.error());
        }
    }
    for (const auto& [name, value] : sources.environment) {
        if (name.size() > kEnvPrefix.size() && name.starts_with(kEnvPrefix)) {
            raw.push_back({env_name_to_key(name), value, "environment variable " + name, 1});
        }
    }
    if (auto ok = read_overrides(sources.overrides, raw); !ok) {
        return unexpected(ok.error());
    }

    // The same key from a later entry (later line, higher layer) replaces the earlier one.
    std::vector<RawSetting> merged;
    std::map<std::string, size_t> index;
    for (auto& setting : raw) {
        auto [it, inserted] = index.try_emplace(setting.key, merged.size());
        if (inserted) {
            merged.push_back(std::move(setting));
        } else {
            merged[it->second] = std::move(setting);
        }
    }

    LoadedConfig loaded;
    std::vector<const RawSetting*> listener_overrides;  // listener.name.<l>.sasl.enabled.mechanisms
    // Spellings present for each setting, applied lowest precedence first so the winner is last.
    std::map<const SettingDescriptor*, std::vector<std::pair<SettingLookup, const RawSetting*>>>
        present;
    for (const auto& setting : merged) {
        auto lookup = find_setting(setting.key);
        if (!lookup && is_listener_sasl_mechanisms(setting.key)) {
            listener_overrides.push_back(&setting);
            continue;
        }
        if (!lookup) {
            loaded.warnings.push_back("ignoring unknown setting " + in_quotes(setting.key) +
                                      " (from " + setting.source + ")");
            continue;
        }
        present[lookup->setting].emplace_back(*lookup, &setting);
    }

    BrokerConfig& config = loaded.config;
    std::map<const SettingDescriptor*, std::pair<SettingLookup, const RawSetting*>> winners;
    for (const auto& descriptor : settings()) {
        auto it = present.find(&descriptor);
        if (it == present.end()) {
            continue;
        }
        auto& candidates = it->second;
        std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
            if (a.second->layer != b.second->layer) {
                return a.second->layer < b.second->layer;
            }
            return a.first.rank > b.first.rank;
        });
        for (const auto& [lookup, setting] : candidates) {
            auto ok = apply_setting(descriptor, lookup.spelling, setting->value, config);
            if (!ok) {
                return unexpected(invalid_value(*setting, ok.error()));
            }
        }
        const auto& winner = candidates.back();
        // A higher source overriding a lower one is the point of layering; two spellings in one
        // source disagreeing is probably a mistake worth a warning.
        for (size_t i = 0; i + 1 < candidates.size(); ++i) {
            const RawSetting& loser = *candidates[i].second;
            if (loser.layer != winner.second->layer) {
                continue;
            }
            loaded.warnings.push_back("ignoring " + loser.key + "=" + loser.value + " (from " +
                                      loser.source + "): " + winner.second->key + " (from " +
                                      winner.second->source + ") takes precedence");
        }
        winners.emplace(&descriptor, winner);
    }

    const SettingDescriptor* advertised = find_setting("advertised.listeners")->setting;
    if (auto it = winners.find(advertised); it != winners.end()) {
        if (auto ok = check_advertised(config, *it->second.second); !ok) {
            return unexpected(ok.error());
        }
    } else {
        config.advertised_listeners = derive_advertised(config.listeners);
    }

    if (auto ok = apply_listener_sasl_mechanisms(listener_overrides, config); !ok) {
        return unexpected(ok.error());
    }

    if (auto ok = check_protocols(config, winners); !ok) {
        return unexpected(ok.error());
    }

    if (auto ok = check_cleaner(config, winners); !ok) {
        return unexpected(ok.error());
    }

    if (auto ok = check_consumer_group_timeouts(config, winners); !ok) {
        return unexpected(ok.error());
    }

    BrokerConfig defaults;
    defaults.advertised_listeners = derive_advertised(config.listeners);
    for (const auto& descriptor : settings()) {
        auto it = winners.find(&descriptor);
        if (it == winners.end()) {
            continue;
        }
        const std::string value = render_setting(descriptor, config);
        if (value == render_setting(descriptor, defaults)) {
            continue;
        }
        const auto& [lookup, setting] = it->second;
        SettingOrigin origin{std::string(descriptor.key), value, setting->source, ""};
        if (lookup.rank != 0) {
            origin.set_as = setting->key + "=" + setting->value;
        }
        loaded.non_defaults.push_back(std::move(origin));
    }
    return loaded;
}

std::vector<std::pair<std::string, std::string>> environment_from(char** envp) {
    std::vector<std::pair<std::string, std::string>> out;
    for (char** entry = envp; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string_view text(*entry);
        const auto eq = text.find('=');
        if (eq == std::string_view::npos) {
            continue;
        }
        out.emplace_back(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
    }
    return out;
}

}  // namespace skiff::config
