#include "broker/topics/dynamic_broker_config.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "broker/topics/topic_config.h"
#include "config/properties.h"
#include "config/settings.h"
#include "storage/durable_file.h"

namespace skiff::broker {
namespace fs = std::filesystem;
namespace {

// Kafka's dynamic broker configs (DynamicBrokerConfig.AllDynamicConfigs) among the settings
// skiff has, besides the broker defaults of topic configs (DynamicLogConfig), which come from
// topic_config_keys(): the cleaner's (LogCleaner), the thread pools' (DynamicThreadPool), the
// socket server's. Kafka's listener settings (listeners, advertised.listeners,
// listener.security.protocol.map) are dynamic too, but not in skiff: applied at start they would
// bypass the checks the config loader makes across them.
constexpr std::string_view kDynamicBrokerSettings[] = {
    "log.cleaner.threads",
    "log.cleaner.dedupe.buffer.size",
    "log.cleaner.io.buffer.size",
    "log.cleaner.io.buffer.load.factor",
    "log.cleaner.io.max.bytes.per.second",
    "log.cleaner.backoff.ms",
    "num.recovery.threads.per.data.dir",
    "num.network.threads",
    "max.connections",
};

constexpr std::string_view kHeader = "# dynamic broker configs, written by skiff (AlterConfigs)\n";

std::string render_values(const BrokerConfigValues& values) {
    std::string text(kHeader);
    for (const auto& [key, value] : values)
        text.append(key).append(1, '=').append(value).append(1, '\n');
    return text;
}

}  // namespace

bool is_dynamic_broker_config(std::string_view key) {
    auto found = config::find_setting(key);
    if (!found)
        return false;
    const std::string_view canonical = found->setting->key;
    if (std::find(std::begin(kDynamicBrokerSettings), std::end(kDynamicBrokerSettings),
                  canonical) != std::end(kDynamicBrokerSettings))
        return true;
    const auto& topic_keys = topic_config_keys();
    return std::any_of(topic_keys.begin(), topic_keys.end(),
                       [&](const TopicConfigKey& k) { return k.broker_name == canonical; });
}

std::optional<std::string> invalid_dynamic_broker_configs(const BrokerConfigValues& values,
                                                          const config::BrokerConfig& base) {
    std::string fixed;
    for (const auto& [key, value] : values) {
        auto found = config::find_setting(key);
        if (found && !is_dynamic_broker_config(key))
            fixed += (fixed.empty() ? "" : ", ") + key;
    }
    if (!fixed.empty())
        return "Cannot update these configs dynamically: [" + fixed + "]";
    config::BrokerConfig scratch = base;
    for (const auto& [key, value] : values) {
        if (value.find('\n') != std::string::npos)
            return "invalid value for " + key + ": a line break is not allowed";
        auto found = config::find_setting(key);
        if (!found)
            continue;  // unknown to skiff: kept as Kafka keeps it
        auto applied = config::apply_setting(*found->setting, found->spelling, value, scratch);
        if (!applied)
            return std::string("invalid value \"")
                .append(value)
                .append("\" for ")
                .append(key)
                .append(": ")
                .append(applied.error());
    }
    return std::nullopt;
}

DynamicBrokerConfigs::DynamicBrokerConfigs(fs::path dir, int32_t node_id)
    : dir_(std::move(dir)), node_id_(node_id) {}

DynamicBrokerConfigs::DynamicBrokerConfigs(DynamicBrokerConfigs&& other) noexcept
    : dir_(std::move(other.dir_)),
      node_id_(other.node_id_),
      default_(std::move(other.default_)),
      broker_(std::move(other.broker_)) {}

fs::path DynamicBrokerConfigs::file(Scope scope) const {
    return dir_ / (scope == Scope::cluster_default ? std::string("default.properties")
                                                   : std::to_string(node_id_) + ".properties");
}

Expected<DynamicBrokerConfigs, std::string> DynamicBrokerConfigs::load(const fs::path& log_dir,
                                                                       int32_t node_id) {
    DynamicBrokerConfigs configs(log_dir / "broker-configs", node_id);
    for (auto scope : {Scope::cluster_default, Scope::this_broker}) {
        const fs::path path = configs.file(scope);
        std::ifstream in(path);
        if (!in)
            continue;  // nothing stored for the scope
        std::stringstream text;
        text << in.rdbuf();
        auto parsed = config::parse_properties(text.str());
        if (!parsed)
            return unexpected("cannot read the dynamic broker configs in " + path.string() + ": " +
                              parsed.error().message);
        auto& values = scope == Scope::cluster_default ? configs.default_ : configs.broker_;
        for (const auto& e : *parsed)
            values[e.key] = e.value;
    }
    return configs;
}

BrokerConfigValues DynamicBrokerConfigs::values(Scope scope) const {
    std::lock_guard lock(mutex_);
    return scope == Scope::cluster_default ? default_ : broker_;
}

Expected<void, std::string> DynamicBrokerConfigs::replace(Scope scope,
                                                          const BrokerConfigValues& values) {
    std::lock_guard lock(mutex_);
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec)
        return unexpected("create " + dir_.string() + ": " + ec.message());
    auto written = storage::write_file_atomically(file(scope), render_values(values));
    if (!written)
        return unexpected("write " + file(scope).string() + ": " + written.error().message);
    (scope == Scope::cluster_default ? default_ : broker_) = values;
    return {};
}

std::vector<std::string> DynamicBrokerConfigs::apply_to(config::BrokerConfig& config) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> applied;
    for (const auto* values : {&default_, &broker_}) {
        for (const auto& [key, value] : *values) {
            auto found = config::find_setting(key);
            if (!found || !is_dynamic_broker_config(key))
                continue;
            if (config::apply_setting(*found->setting, found->spelling, value, config))
                applied.push_back(std::string(key).append(1, '=').append(value).append(
                    values == &default_ ? " (cluster default)" : " (this broker)"));
        }
    }
    return applied;
}

}  // namespace skiff::broker
