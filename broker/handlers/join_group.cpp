#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/group_wait.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

asio::awaitable<protocol::JoinGroupResponse> handle_join_group(
    RequestContext& ctx, const protocol::JoinGroupRequest& req) {
    // READ on the group (docs/acls.md), else GROUP_AUTHORIZATION_FAILED.
    if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id)) {
        protocol::JoinGroupResponse refused;
        refused.error_code = protocol::ErrorCode::group_authorization_failed;
        refused.generation_id = -1;
        refused.member_id = req.member_id;
        if (ctx.header.api_version < 7)
            refused.protocol_name = "";
        co_return refused;
    }
    group::JoinParams p;
    p.group_id = req.group_id;
    p.member_id = req.member_id;
    p.group_instance_id = req.group_instance_id;
    p.client_id = ctx.header.client_id.value_or("");
    p.client_host = client_host_of(ctx.peer);
    p.session_timeout_ms = req.session_timeout_ms;
    // Before v1 there is no rebalance timeout: the session timeout is used, as in Kafka.
    p.rebalance_timeout_ms =
        req.rebalance_timeout_ms > 0 ? req.rebalance_timeout_ms : req.session_timeout_ms;
    p.protocol_type = req.protocol_type;
    for (const auto& proto : req.protocols)
        p.protocols.emplace_back(proto.name, proto.metadata);
    p.require_known_member_id = ctx.header.api_version >= 4;
    p.supports_skip_assignment = ctx.header.api_version >= 9;

    if (req.reason)
        spdlog::debug("group {}: member '{}' from {} joins: {}", req.group_id, req.member_id,
                      ctx.peer, *req.reason);
    auto& groups = ctx.broker.groups();
    const auto limit = std::chrono::milliseconds(2LL * std::max(p.rebalance_timeout_ms, 0) +
                                                 p.session_timeout_ms + 10000);
    group::JoinResult timeout;
    timeout.error = protocol::ErrorCode::rebalance_in_progress;
    timeout.member_id = req.member_id;
    auto result = co_await await_group_result<group::JoinResult>(
        [&](const std::function<void(group::JoinResult)>& done) { groups.join(p, done); }, limit,
        timeout);

    protocol::JoinGroupResponse resp;
    resp.error_code = result.error;
    resp.generation_id = result.generation_id;
    if (result.error == protocol::ErrorCode::none)
        resp.protocol_type = result.protocol_type;
    resp.protocol_name = result.protocol_name;
    // Before v7 the name is not nullable: an error answer carries "".
    if (!resp.protocol_name && ctx.header.api_version < 7)
        resp.protocol_name = "";
    resp.leader = result.leader;
    resp.member_id = result.member_id;
    resp.members = std::move(result.members);
    resp.skip_assignment = result.skip_assignment;
    co_return resp;
}

}  // namespace skiff::broker
