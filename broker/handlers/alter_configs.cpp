// AlterConfigs and IncrementalAlterConfigs: topic overrides (topic_config.h) and dynamic broker
// configs (dynamic_broker_config.h: this broker's, or the cluster default's for the name "").
#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_config.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

protocol::AlterConfigsResourceResponse result_for(int8_t type, const std::string& name) {
    protocol::AlterConfigsResourceResponse r;
    r.resource_type = type;
    r.resource_name = name;
    return r;
}

// ALTER_CONFIGS on the topic or the cluster (docs/acls.md), else TOPIC_ / CLUSTER_
// AUTHORIZATION_FAILED for the resource, as Kafka's ConfigAdminManager.
bool refused_alter(const RequestContext& ctx, int8_t type, const std::string& name,
                   protocol::AlterConfigsResourceResponse& r) {
    if (type == protocol::kResourceTypeBroker &&
        !authorized_on_cluster(ctx, AclOperation::alter_configs)) {
        r.error_code = ErrorCode::cluster_authorization_failed;
        return true;
    }
    if (type == protocol::kResourceTypeTopic &&
        !authorized(ctx, AclOperation::alter_configs, ResourceType::topic, name)) {
        r.error_code = ErrorCode::topic_authorization_failed;
        return true;
    }
    if (type == protocol::kResourceTypeGroup &&
        !authorized(ctx, AclOperation::alter_configs, ResourceType::group, name)) {
        r.error_code = ErrorCode::group_authorization_failed;
        return true;
    }
    return false;
}

void fail(protocol::AlterConfigsResourceResponse& r, ErrorCode e, std::string message) {
    r.error_code = e;
    r.error_message = std::move(message);
}

// A GROUP resource's values (KIP-848 consumer.* and KIP-932 share.* group configs): validated
// as a whole with Kafka's errors, then written (broker/group/group_configs.h).
void apply_group(RequestContext& ctx, const std::string& group,
                 const group::GroupConfigValues& values, bool validate_only,
                 protocol::AlterConfigsResourceResponse& r) {
    auto set = ctx.broker.group_configs().set(group, values, validate_only);
    if (set.error != ErrorCode::none)
        return fail(r, set.error, std::move(set.message));
    if (!validate_only)
        spdlog::info("group '{}' now has {} config(s) (for {})", group, values.size(), ctx.peer);
}

// Applies the new override set to the topic (common tail of both APIs).
void apply(RequestContext& ctx, const std::string& topic, const TopicOverrides& overrides,
           bool validate_only, protocol::AlterConfigsResourceResponse& r) {
    auto set = ctx.broker.topics().set_overrides(topic, overrides, validate_only);
    if (set.error != ErrorCode::none)
        return fail(r, set.error, std::move(set.message));
    if (!validate_only)
        spdlog::info("topic '{}' now has {} override(s) (for {})", topic, overrides.size(),
                     ctx.peer);
}

// A BROKER resource names this broker (its node.id) or the cluster-wide default (""); Kafka's
// message for any other name.
std::optional<DynamicBrokerConfigs::Scope> broker_scope(const Broker& broker,
                                                        const std::string& name,
                                                        protocol::AlterConfigsResourceResponse& r) {
    if (name.empty())
        return DynamicBrokerConfigs::Scope::cluster_default;
    if (name == std::to_string(broker.node_id()))
        return DynamicBrokerConfigs::Scope::this_broker;
    fail(r, ErrorCode::invalid_request,
         "Unexpected broker id, expected " + std::to_string(broker.node_id()) +
             " or empty string, but received " + name);
    return std::nullopt;
}

// Stores a scope's new dynamic broker configs (common tail of both APIs).
void apply_broker(RequestContext& ctx, DynamicBrokerConfigs::Scope scope,
                  const BrokerConfigValues& values, bool validate_only,
                  protocol::AlterConfigsResourceResponse& r) {
    if (auto invalid = invalid_dynamic_broker_configs(values, ctx.broker.config()))
        return fail(r, ErrorCode::invalid_config, std::move(*invalid));
    if (validate_only)
        return;
    if (auto stored = ctx.broker.dynamic_configs().replace(scope, values); !stored)
        return fail(r, ErrorCode::kafka_storage_error, stored.error());
    spdlog::info(
        "dynamic broker configs of {} now {} key(s) (for {}); they take effect when "
        "skiff next starts",
        scope == DynamicBrokerConfigs::Scope::cluster_default ? "the cluster default"
                                                              : "this broker",
        values.size(), ctx.peer);
}

bool is_broker(int8_t type) {
    return type == protocol::kResourceTypeBroker;
}

bool is_topic(int8_t type) {
    return type == protocol::kResourceTypeTopic;
}

std::vector<std::string> split_list(std::string_view text) {
    std::vector<std::string> items;
    while (!text.empty()) {
        const size_t comma = text.find(',');
        std::string_view item = text.substr(0, comma);
        while (!item.empty() && item.front() == ' ')
            item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ')
            item.remove_suffix(1);
        if (!item.empty())
            items.emplace_back(item);
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
    }
    return items;
}

std::string join_list(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ",") + item;
    return out;
}

// APPEND / SUBTRACT on a list-typed key (cleanup.policy), as Kafka does: APPEND adds the items
// not yet present, SUBTRACT removes the given ones, both starting from the topic's current value
// (its override, else the broker default). The result is validated with the other overrides; an
// empty list (SUBTRACT of every item) is refused there. Returns why the operation is refused.
std::optional<std::string> apply_list_op(const Broker& broker, TopicOverrides& overrides,
                                         const protocol::AlterableConfigOp& op) {
    if (topic_config_type(op.name) != static_cast<int8_t>(protocol::ConfigType::list))
        return "operation " +
               std::string(op.config_operation == protocol::kConfigOpAppend ? "APPEND"
                                                                            : "SUBTRACT") +
               " is only allowed on list configs, and " + op.name + " is not one";
    if (!op.value)
        return "operation on " + op.name + " needs a value";
    std::string current;
    if (auto it = overrides.find(op.name); it != overrides.end()) {
        current = it->second;
    } else {
        for (const auto& key : topic_config_keys())
            if (key.name == op.name)
                current = broker_default(key, broker.config()).value;
    }
    std::vector<std::string> items = split_list(current);
    for (const auto& item : split_list(*op.value)) {
        auto found = std::find(items.begin(), items.end(), item);
        if (op.config_operation == protocol::kConfigOpAppend && found == items.end())
            items.push_back(item);
        else if (op.config_operation == protocol::kConfigOpSubtract)
            items.erase(std::remove(items.begin(), items.end(), item), items.end());
    }
    overrides[op.name] = join_list(items);
    return std::nullopt;
}

// IncrementalAlterConfigs on a broker scope: SET and DELETE edit its stored set. APPEND and
// SUBTRACT (list-valued settings) are not offered for broker configs.
void incremental_broker(RequestContext& ctx, DynamicBrokerConfigs::Scope scope,
                        const std::vector<protocol::AlterableConfigOp>& ops, bool validate_only,
                        protocol::AlterConfigsResourceResponse& r) {
    BrokerConfigValues values = ctx.broker.dynamic_configs().values(scope);
    for (const auto& op : ops) {
        if (op.config_operation == protocol::kConfigOpSet && op.value) {
            values[op.name] = *op.value;
        } else if (op.config_operation == protocol::kConfigOpDelete) {
            values.erase(op.name);
        } else {
            return fail(r, ErrorCode::invalid_config,
                        "operation " + std::to_string(op.config_operation) + " on " + op.name +
                            " is not supported for broker configs (SET with a value and "
                            "DELETE are)");
        }
    }
    apply_broker(ctx, scope, values, validate_only, r);
}

}  // namespace

asio::awaitable<protocol::AlterConfigsResponse> handle_alter_configs(
    RequestContext& ctx, const protocol::AlterConfigsRequest& req) {
    protocol::AlterConfigsResponse resp;
    for (const auto& res : req.resources) {
        auto r = result_for(res.resource_type, res.resource_name);
        if (refused_alter(ctx, res.resource_type, res.resource_name, r)) {
            resp.responses.push_back(std::move(r));
            continue;
        }
        if (is_broker(res.resource_type)) {
            // As for topics, the request's set replaces the scope's whole set.
            if (auto scope = broker_scope(ctx.broker, res.resource_name, r)) {
                BrokerConfigValues values;
                for (const auto& c : res.configs)
                    if (c.value)
                        values[c.name] = *c.value;
                apply_broker(ctx, *scope, values, req.validate_only, r);
            }
        } else if (res.resource_type == protocol::kResourceTypeGroup) {
            // As Kafka's AlterConfigs for a group: the request's set replaces the group's.
            group::GroupConfigValues values;
            for (const auto& c : res.configs)
                if (c.value)
                    values[c.name] = *c.value;
            apply_group(ctx, res.resource_name, values, req.validate_only, r);
        } else if (!is_topic(res.resource_type)) {
            fail(r, ErrorCode::invalid_request, "only topic and broker configs can be altered");
        } else {
            // AlterConfigs replaces the whole set: keys not listed go back to the defaults.
            TopicOverrides overrides;
            for (const auto& c : res.configs)
                if (c.value)
                    overrides[c.name] = *c.value;
            apply(ctx, res.resource_name, overrides, req.validate_only, r);
        }
        resp.responses.push_back(std::move(r));
    }
    co_return resp;
}

asio::awaitable<protocol::IncrementalAlterConfigsResponse> handle_incremental_alter_configs(
    RequestContext& ctx, const protocol::IncrementalAlterConfigsRequest& req) {
    protocol::IncrementalAlterConfigsResponse resp;
    for (const auto& res : req.resources) {
        auto r = result_for(res.resource_type, res.resource_name);
        if (refused_alter(ctx, res.resource_type, res.resource_name, r)) {
            resp.responses.push_back(std::move(r));
            continue;
        }
        if (is_broker(res.resource_type)) {
            if (auto scope = broker_scope(ctx.broker, res.resource_name, r))
                incremental_broker(ctx, *scope, res.configs, req.validate_only, r);
            resp.responses.push_back(std::move(r));
            continue;
        }
        if (res.resource_type == protocol::kResourceTypeGroup) {
            auto values = ctx.broker.group_configs().values(res.resource_name);
            for (const auto& op : res.configs) {
                if (op.config_operation == protocol::kConfigOpSet && op.value) {
                    values[op.name] = *op.value;
                } else if (op.config_operation == protocol::kConfigOpDelete) {
                    values.erase(op.name);
                } else {
                    fail(r, ErrorCode::invalid_config,
                         "operation " + std::to_string(op.config_operation) +
                             " is not supported for group config " + op.name);
                    break;
                }
            }
            if (r.error_code == ErrorCode::none)
                apply_group(ctx, res.resource_name, values, req.validate_only, r);
            resp.responses.push_back(std::move(r));
            continue;
        }
        auto current = ctx.broker.topics().overrides(res.resource_name);
        if (!is_topic(res.resource_type)) {
            fail(r, ErrorCode::invalid_request, "only topic and broker configs can be altered");
        } else if (!current) {
            fail(r, ErrorCode::unknown_topic_or_partition,
                 "topic '" + res.resource_name + "' does not exist");
        } else {
            TopicOverrides overrides = *current;
            for (const auto& op : res.configs) {
                if (op.config_operation == protocol::kConfigOpSet && op.value) {
                    overrides[op.name] = *op.value;
                } else if (op.config_operation == protocol::kConfigOpDelete) {
                    overrides.erase(op.name);
                } else if (op.config_operation == protocol::kConfigOpAppend ||
                           op.config_operation == protocol::kConfigOpSubtract) {
                    if (auto refused = apply_list_op(ctx.broker, overrides, op)) {
                        fail(r, ErrorCode::invalid_config, std::move(*refused));
                        break;
                    }
                } else {
                    fail(r, ErrorCode::invalid_config,
                         "operation " + std::to_string(op.config_operation) +
                             " is not supported for " + op.name);
                    break;
                }
            }
            if (r.error_code == ErrorCode::none)
                apply(ctx, res.resource_name, overrides, req.validate_only, r);
        }
        resp.responses.push_back(std::move(r));
    }
    co_return resp;
}

}  // namespace skiff::broker
