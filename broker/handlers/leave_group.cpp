#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

// v0-2 name one member and answer with one error; v3+ name a batch of members (by member id or
// group.instance.id) and answer each, with a top-level error only for group-level failures.
asio::awaitable<protocol::LeaveGroupResponse> handle_leave_group(
    RequestContext& ctx, const protocol::LeaveGroupRequest& req) {
    auto& groups = ctx.broker.groups();
    protocol::LeaveGroupResponse resp;
    // READ on the group (docs/acls.md), else GROUP_AUTHORIZATION_FAILED.
    if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id)) {
        resp.error_code = protocol::ErrorCode::group_authorization_failed;
        co_return resp;
    }
    if (ctx.header.api_version < 3) {
        resp.error_code = groups.leave(req.group_id, req.member_id, std::nullopt);
        co_return resp;
    }
    for (const auto& m : req.members) {
        protocol::LeaveGroupMemberResponse r;
        r.member_id = m.member_id;
        r.group_instance_id = m.group_instance_id;
        r.error_code = groups.leave(req.group_id, m.member_id, m.group_instance_id);
        if (m.reason)
            spdlog::info("group {}: member {} from {} leaves: {}", req.group_id, m.member_id,
                         ctx.peer, *m.reason);
        if (r.error_code == protocol::ErrorCode::coordinator_not_available)
            resp.error_code = r.error_code;
        resp.members.push_back(std::move(r));
    }
    co_return resp;
}

}  // namespace skiff::broker
