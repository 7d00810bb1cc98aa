// AlterConfigs and IncrementalAlterConfigs for topics. Broker settings are static in skiff
// (file, environment, --override), so altering a broker resource is refused.
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"

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
                } else {
                    // APPEND/SUBTRACT only apply to list configs; skiff's topic configs are not.
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
