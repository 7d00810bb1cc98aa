#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

asio::awaitable<protocol::DescribeGroupsResponse> handle_describe_groups(
    RequestContext& ctx, const protocol::DescribeGroupsRequest& req) {
    protocol::DescribeGroupsResponse resp;
    for (const auto& id : req.groups)
        resp.groups.push_back(ctx.broker.groups().describe(id));
    co_return resp;
}

}  // namespace skiff::broker
