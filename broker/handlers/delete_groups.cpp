#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

asio::awaitable<protocol::DeleteGroupsResponse> handle_delete_groups(
    RequestContext& ctx, const protocol::DeleteGroupsRequest& req) {
    protocol::DeleteGroupsResponse resp;
    // DELETE on each group (docs/acls.md), else GROUP_AUTHORIZATION_FAILED for it.
    for (const auto& id : req.groups_names) {
        const auto e = authorized(ctx, AclOperation::remove, ResourceType::group, id)
                           ? ctx.broker.groups().delete_group(id)
                           : protocol::ErrorCode::group_authorization_failed;
        // A deleted group's configs (GROUP resources) go with it, as in Kafka.
        if (e == protocol::ErrorCode::none)
            ctx.broker.group_configs().erase(id);
        resp.results.push_back({id, e});
    }
    co_return resp;
}

}  // namespace skiff::broker
