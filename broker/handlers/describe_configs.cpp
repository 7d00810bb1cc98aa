#include <algorithm>
#include <string>
#include <type_traits>
#include <variant>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_config.h"
#include "config/settings.h"

namespace skiff::broker {
namespace {

using protocol::ConfigSource;
using protocol::ErrorCode;

bool wanted(const protocol::DescribeConfigsResource& r, std::string_view key) {
    if (!r.configuration_keys)
        return true;
    return std::find(r.configuration_keys->begin(), r.configuration_keys->end(), key) !=
           r.configuration_keys->end();
}

protocol::DescribeConfigsResourceResult entry(std::string name, std::string value,
                                              ConfigSource source, bool read_only) {
    protocol::DescribeConfigsResourceResult e;
    e.name = std::move(name);
    e.value = std::move(value);
    e.read_only = read_only;
    e.config_source = static_cast<int8_t>(source);
    e.is_default = source == ConfigSource::default_config;
    return e;
}

// A topic's value comes from its override, else from the broker setting of the same meaning
// (static when the operator set it, else Kafka's default). Synonyms list them in that order.
// Kafka's ConfigType of a broker setting, from the member it is stored in.
int8_t setting_type(const config::SettingDescriptor& setting) {
    using T = protocol::ConfigType;
    T type = T::string;
    std::visit(
        [&](auto member) {
            using M = decltype(member);
            if constexpr (std::is_same_v<M, int32_t config::BrokerConfig::*>)
                type = T::int_type;
            else if constexpr (std::is_same_v<M, int64_t config::BrokerConfig::*>)
                type = T::long_type;
            else if constexpr (std::is_same_v<M, bool config::BrokerConfig::*>)
                type = T::boolean;
            else if constexpr (std::is_same_v<M, double config::BrokerConfig::*>)
                type = T::double_type;
            else if constexpr (std::is_same_v<
                                   M, std::vector<config::Listener> config::BrokerConfig::*>)
                type = T::list;
        },
        setting.member);
    if (setting.key == "log.cleanup.policy")  // a string member holding Kafka's list syntax
        type = T::list;
    return static_cast<int8_t>(type);
}

// The documentation of a topic key: its own (deprecated keys) or its broker setting's.
std::string topic_documentation(const TopicConfigKey& key) {
    if (!key.documentation.empty())
        return std::string(key.documentation);
    auto found = config::find_setting(key.broker_name);
    return found ? std::string(found->setting->doc) : std::string();
}

void describe_topic(const Broker& broker, TopicRegistry& topics,
                    const protocol::DescribeConfigsResource& r, bool synonyms, bool documentation,
                    protocol::DescribeConfigsResult& out) {
    auto overrides = topics.overrides(r.resource_name);
    if (!overrides) {
        out.error_code = ErrorCode::unknown_topic_or_partition;
        out.error_message = "topic '" + r.resource_name + "' does not exist";
        return;
    }
    for (const auto& key : topic_config_keys()) {
        if (!wanted(r, key.name))
            continue;
        const BrokerDefault fallback = broker_default(key, broker.config());
        const ConfigSource broker_source = fallback.set_by_operator
                                               ? ConfigSource::static_broker_config
                                               : ConfigSource::default_config;
        auto o = overrides->find(std::string(key.name));
        auto e =
            o != overrides->end()
                ? entry(std::string(key.name), o->second, ConfigSource::dynamic_topic_config, false)
                : entry(std::string(key.name), fallback.value, broker_source, false);
        if (synonyms) {
            if (o != overrides->end())
                e.synonyms.push_back({std::string(key.name), o->second,
                                      static_cast<int8_t>(ConfigSource::dynamic_topic_config)});
            e.synonyms.push_back(
                {std::string(key.broker_name), fallback.value, static_cast<int8_t>(broker_source)});
        }
        e.config_type = topic_config_type(key.name);
        if (documentation)
            e.documentation = topic_documentation(key);
        out.configs.push_back(std::move(e));
    }
}

// The stored dynamic value of `setting` in `values` under any of its spellings.
const std::string* dynamic_value(const BrokerConfigValues& values,
                                 const config::SettingDescriptor& setting) {
    for (const auto& [key, value] : values) {
        auto found = config::find_setting(key);
        if (found && found->setting == &setting)
            return &value;
    }
    return nullptr;
}

// The dynamic values skiff has no setting for (a Kafka feature skiff lacks, a custom key), listed
// as Kafka lists them: with their source, writable.
void describe_unknown_dynamic(const protocol::DescribeConfigsResource& r,
                              const BrokerConfigValues& values, ConfigSource source, bool synonyms,
                              protocol::DescribeConfigsResult& out,
                              const BrokerConfigValues& shadowing = {}) {
    for (const auto& [key, value] : values) {
        if (config::find_setting(key) || !wanted(r, key) || shadowing.contains(key))
            continue;
        auto e = entry(key, value, source, false);
        if (synonyms)
            e.synonyms.push_back({key, value, static_cast<int8_t>(source)});
        out.configs.push_back(std::move(e));
    }
}

// A BROKER resource: this broker's settings (name = node.id), each from the highest of its
// dynamic value, the cluster default's, the static configuration and the built-in default, as
// Kafka reports them; or, for the name "", only the cluster-wide dynamic defaults, as Kafka
// does. Settings Kafka cannot change on a running broker are read-only.
void describe_broker(Broker& broker, const protocol::DescribeConfigsResource& r, bool synonyms,
                     bool documentation, protocol::DescribeConfigsResult& out) {
    using Scope = DynamicBrokerConfigs::Scope;
    const BrokerConfigValues defaults = broker.dynamic_configs().values(Scope::cluster_default);
    if (r.resource_name.empty()) {
        for (const auto& setting : config::settings()) {
            const std::string* value = dynamic_value(defaults, setting);
            if (!value || !wanted(r, setting.key))
                continue;
            auto e = entry(std::string(setting.key), *value,
                           ConfigSource::dynamic_default_broker_config, false);
            if (synonyms)
                e.synonyms.push_back(
                    {std::string(setting.key), *value,
                     static_cast<int8_t>(ConfigSource::dynamic_default_broker_config)});
            e.config_type = setting_type(setting);
            if (documentation)
                e.documentation = std::string(setting.doc);
            out.configs.push_back(std::move(e));
        }
        describe_unknown_dynamic(r, defaults, ConfigSource::dynamic_default_broker_config, synonyms,
                                 out);
        return;
    }
    if (r.resource_name != std::to_string(broker.node_id())) {
        out.error_code = ErrorCode::invalid_request;
        out.error_message = "unknown broker " + r.resource_name;
        return;
    }
    const BrokerConfigValues own = broker.dynamic_configs().values(Scope::this_broker);
    const config::BrokerConfig builtin{};
    for (const auto& setting : config::settings()) {
        if (!wanted(r, setting.key))
            continue;
        // The configuration skiff started with already includes the dynamic values of that time;
        // what is stored now (perhaps changed since, taking effect at the next start) is shown.
        std::string value = config::render_setting(setting, broker.config());
        const bool set = value != config::render_setting(setting, builtin);
        std::vector<std::pair<std::string, ConfigSource>> layers;
        if (const auto* v = dynamic_value(own, setting))
            layers.emplace_back(*v, ConfigSource::dynamic_broker_config);
        if (const auto* v = dynamic_value(defaults, setting))
            layers.emplace_back(*v, ConfigSource::dynamic_default_broker_config);
        layers.emplace_back(
            value, set ? ConfigSource::static_broker_config : ConfigSource::default_config);
        auto e = entry(std::string(setting.key), layers.front().first, layers.front().second,
                       !is_dynamic_broker_config(setting.key));
        if (synonyms)
            for (const auto& [v, source] : layers)
                e.synonyms.push_back({std::string(setting.key), v, static_cast<int8_t>(source)});
        e.config_type = setting_type(setting);
        if (documentation)
            e.documentation = std::string(setting.doc);
        if (setting.sensitive) {  // a key or a password: never sent, as in Kafka
            e.is_sensitive = true;
            e.value = std::nullopt;
            for (auto& synonym : e.synonyms)
                synonym.value = std::nullopt;
        }
        out.configs.push_back(std::move(e));
    }
    describe_unknown_dynamic(r, own, ConfigSource::dynamic_broker_config, synonyms, out);
    describe_unknown_dynamic(r, defaults, ConfigSource::dynamic_default_broker_config, synonyms,
                             out, own);
}

// A GROUP resource (KIP-848's consumer.* and KIP-932's share.* group configs): each name with the
// group's own value (GROUP_CONFIG) or the broker's default (DEFAULT_CONFIG), as Kafka's
// GroupConfig lists them.
// A group need not exist: its configs may be set before its first member joins.
void describe_group(Broker& broker, const protocol::DescribeConfigsResource& r, bool synonyms,
                    bool documentation, protocol::DescribeConfigsResult& out) {
    auto& configs = broker.group_configs();
    const auto own = configs.values(r.resource_name);
    for (auto name : group::group_config_names()) {
        if (!wanted(r, name))
            continue;
        const std::string key(name);
        auto it = own.find(key);
        const std::string fallback = configs.default_value(name);
        auto e = it != own.end() ? entry(key, it->second, ConfigSource::group_config, false)
                                 : entry(key, fallback, ConfigSource::default_config, false);
        if (synonyms) {
            if (it != own.end())
                e.synonyms.push_back(
                    {key, it->second, static_cast<int8_t>(ConfigSource::group_config)});
            e.synonyms.push_back(
                {key, fallback, static_cast<int8_t>(ConfigSource::default_config)});
        }
        e.config_type =
            static_cast<int8_t>(group::is_int_group_config(name) ? protocol::ConfigType::int_type
                                                                 : protocol::ConfigType::string);
        if (documentation)
            e.documentation = "Group config " + key + " (docs/groups.md).";
        out.configs.push_back(std::move(e));
    }
}

}  // namespace

asio::awaitable<protocol::DescribeConfigsResponse> handle_describe_configs(
    RequestContext& ctx, const protocol::DescribeConfigsRequest& req) {
    protocol::DescribeConfigsResponse resp;
    resp.results.reserve(req.resources.size());
    for (const auto& r : req.resources) {
        protocol::DescribeConfigsResult out;
        out.resource_type = r.resource_type;
        out.resource_name = r.resource_name;
        // DESCRIBE_CONFIGS on the topic or the cluster (docs/acls.md), else TOPIC_ / CLUSTER_
        // AUTHORIZATION_FAILED for the resource.
        if (r.resource_type == protocol::kResourceTypeTopic &&
            !authorized(ctx, AclOperation::describe_configs, ResourceType::topic,
                        r.resource_name)) {
            out.error_code = ErrorCode::topic_authorization_failed;
        } else if (r.resource_type == protocol::kResourceTypeBroker &&
                   !authorized_on_cluster(ctx, AclOperation::describe_configs)) {
            out.error_code = ErrorCode::cluster_authorization_failed;
        } else if (r.resource_type == protocol::kResourceTypeTopic) {
            describe_topic(ctx.broker, ctx.broker.topics(), r, req.include_synonyms,
                           req.include_documentation, out);
        } else if (r.resource_type == protocol::kResourceTypeBroker) {
            describe_broker(ctx.broker, r, req.include_synonyms, req.include_documentation, out);
        } else if (r.resource_type == protocol::kResourceTypeGroup) {
            // DESCRIBE_CONFIGS on the group, else GROUP_AUTHORIZATION_FAILED.
            if (!authorized(ctx, AclOperation::describe_configs, ResourceType::group,
                            r.resource_name))
                out.error_code = ErrorCode::group_authorization_failed;
            else if (r.resource_name.empty())
                out.error_code = ErrorCode::invalid_request;
            else
                describe_group(ctx.broker, r, req.include_synonyms, req.include_documentation, out);
        } else {
            out.error_code = ErrorCode::invalid_request;
            out.error_message = "unsupported resource type " + std::to_string(r.resource_type);
        }
        resp.results.push_back(std::move(out));
    }
    co_return resp;
}

}  // namespace skiff::broker
