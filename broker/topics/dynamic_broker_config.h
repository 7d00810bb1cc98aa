// Dynamic broker configs (Kafka's KIP-226): broker settings set through AlterConfigs and
// IncrementalAlterConfigs on a BROKER resource rather than in the config file. As in Kafka there
// are two scopes: this broker (resource name = node.id) and the cluster-wide default (resource
// name ""), and the precedence is
//     this broker's dynamic value > the cluster default's > --config/env/--override > built-in.
//
// What Kafka allows is followed: a setting skiff knows that Kafka cannot change on a running
// broker (log.dirs, node.id, ...) is refused with "Cannot update these configs dynamically", a
// dynamic one is validated as the config file would validate it, and a key skiff does not know
// (a Kafka setting of a feature skiff lacks, such as sasl.kerberos.*, or a custom key) is
// accepted and kept, as Kafka keeps it.
//
// Unlike Kafka, skiff applies dynamic values when it starts, not while it runs: they are stored
// durably, reported by DescribeConfigs, and take effect at the next start (docs:
// docs/configuration.md, "Dynamic broker configs", rendered by config/config_reference.cpp).
//
// Stored in <log.dirs>/broker-configs/, one properties file per scope (default.properties,
// <node.id>.properties), each replaced atomically.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/broker_config.h"
#include "protocol/expected.h"

namespace skiff::broker {

using BrokerConfigValues = std::map<std::string, std::string>;

// Is `key` (any spelling skiff's settings table knows) a setting Kafka changes dynamically?
bool is_dynamic_broker_config(std::string_view key);

// Why `values` cannot be stored for a scope, or nullopt. `base` is the running configuration the
// values would apply to (for the cross-setting checks of the value's type and range).
std::optional<std::string> invalid_dynamic_broker_configs(const BrokerConfigValues& values,
                                                          const config::BrokerConfig& base);

class DynamicBrokerConfigs {
  public:
    enum class Scope { cluster_default, this_broker };

    // Reads the stored values of both scopes for broker `node_id` in `log_dir`. A file that does
    // not parse is an error (start-up refuses to run on a configuration it cannot read).
    static Expected<DynamicBrokerConfigs, std::string> load(const std::filesystem::path& log_dir,
                                                            int32_t node_id);

    DynamicBrokerConfigs(DynamicBrokerConfigs&& other) noexcept;

    BrokerConfigValues values(Scope scope) const;
    // Replaces a scope's values (AlterConfigs replaces; IncrementalAlterConfigs passes the edited
    // set), durably before returning.
    Expected<void, std::string> replace(Scope scope, const BrokerConfigValues& values);

    // Applies the stored values to `config` (the default scope, then this broker's), skipping
    // keys skiff does not know. Returns one line per value applied, for the start-up log.
    std::vector<std::string> apply_to(config::BrokerConfig& config) const;

  private:
    DynamicBrokerConfigs(std::filesystem::path dir, int32_t node_id);
    std::filesystem::path file(Scope scope) const;

    std::filesystem::path dir_;
    int32_t node_id_;
    mutable std::mutex mutex_;
    BrokerConfigValues default_;
    BrokerConfigValues broker_;
};

}  // namespace skiff::broker
