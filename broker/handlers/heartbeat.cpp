#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

asio::awaitable<protocol::HeartbeatResponse> handle_heartbeat(
    RequestContext& ctx, const protocol::HeartbeatRequest& req) {
    protocol::HeartbeatResponse resp;
    // READ on the group (docs/acls.md), else GROUP_AUTHORIZATION_FAILED.
    if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id)) {
        resp.error_code = protocol::ErrorCode::group_authorization_failed;
        co_return resp;
    }
    resp.error_code = ctx.broker.groups().heartbeat(req.group_id, req.generation_id, req.member_id,
                                                    req.group_instance_id);
    co_return resp;
}

}  // namespace skiff::broker
