#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/group_wait.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

asio::awaitable<protocol::SyncGroupResponse> handle_sync_group(
    RequestContext& ctx, const protocol::SyncGroupRequest& req) {
    // READ on the group (docs/acls.md), else GROUP_AUTHORIZATION_FAILED.
    if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id)) {
        protocol::SyncGroupResponse refused;
        refused.error_code = protocol::ErrorCode::group_authorization_failed;
        co_return refused;
    }
    group::SyncParams p;
    p.group_id = req.group_id;
    p.generation_id = req.generation_id;
    p.member_id = req.member_id;
    p.group_instance_id = req.group_instance_id;
    p.protocol_type = req.protocol_type;
    p.protocol_name = req.protocol_name;
    for (const auto& a : req.assignments)
        p.assignments[a.member_id] = a.assignment;

    auto& groups = ctx.broker.groups();
    group::SyncResult timeout;
    timeout.error = protocol::ErrorCode::rebalance_in_progress;
    // A follower waits for the leader, which has the rebalance timeout to send its assignment.
    auto result = co_await await_group_result<group::SyncResult>(
        [&](std::function<void(group::SyncResult)> done) { groups.sync(p, std::move(done)); },
        std::chrono::minutes(10), timeout);

    protocol::SyncGroupResponse resp;
    resp.error_code = result.error;
    if (result.error == protocol::ErrorCode::none) {
        resp.protocol_type = result.protocol_type;
        resp.protocol_name = result.protocol_name;
    }
    resp.assignment = std::move(result.assignment);
    co_return resp;
}

}  // namespace skiff::broker
