// AlterConfigs and IncrementalAlterConfigs for topics. Broker settings are static in skiff
// (file, environment, --override), so altering a broker resource is refused.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_config.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

protocol::AlterConfigsResourceResponse result_for(int8_t type, const std::string& name) {
    protocol::AlterConfigsResourceResponse r;
    r.resource_type = type;
    r.resource_name = name;
    return r;
}

void fail(protocol::AlterConfigsResourceResponse& r, ErrorCode e, std::string message) {
    r.error_code = e;
    r.error_message = std::move(message);
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

}  // namespace

asio::awaitable<protocol::AlterConfigsResponse> handle_alter_configs(
    RequestContext& ctx, const protocol::AlterConfigsRequest& req) {
    protocol::AlterConfigsResponse resp;
    for (const auto& res : req.resources) {
        auto r = result_for(res.resource_type, res.resource_name);
        if (!is_topic(res.resource_type)) {
            fail(r, ErrorCode::invalid_request, "only topic configs can be altered in skiff");
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
        auto current = ctx.broker.topics().overrides(res.resource_name);
        if (!is_topic(res.resource_type)) {
            fail(r, ErrorCode::invalid_request, "only topic configs can be altered in skiff");
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
