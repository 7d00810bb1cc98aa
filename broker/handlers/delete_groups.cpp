#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

asio::awaitable<protocol::DeleteGroupsResponse> handle_delete_groups(
    RequestContext& ctx, const protocol::DeleteGroupsRequest& req) {
    protocol::DeleteGroupsResponse resp;
    for (const auto& id : req.groups_names)
        resp.results.push_back({id, ctx.broker.groups().delete_group(id)});
    co_return resp;
}

}  // namespace skiff::broker
