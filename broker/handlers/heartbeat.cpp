#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

asio::awaitable<protocol::HeartbeatResponse> handle_heartbeat(
    RequestContext& ctx, const protocol::HeartbeatRequest& req) {
    protocol::HeartbeatResponse resp;
    resp.error_code = ctx.broker.groups().heartbeat(req.group_id, req.generation_id, req.member_id,
                                                    req.group_instance_id);
    co_return resp;
}

}  // namespace skiff::broker
