#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

asio::awaitable<protocol::DescribeGroupsResponse> handle_describe_groups(
    RequestContext& ctx, const protocol::DescribeGroupsRequest& req) {
    auto& groups = ctx.broker.groups();
    protocol::DescribeGroupsResponse resp;
    for (const auto& id : req.groups) {
        // DESCRIBE on each group (docs/acls.md), else GROUP_AUTHORIZATION_FAILED for it.
        if (!authorized(ctx, AclOperation::describe, ResourceType::group, id)) {
            protocol::DescribedGroup refused;
            refused.group_id = id;
            refused.error_code = protocol::ErrorCode::group_authorization_failed;
            resp.groups.push_back(std::move(refused));
            continue;
        }
        auto described = groups.describe(id);
        // v6+ (KIP-1043): an unknown group is an error; older versions get a Dead group.
        if (ctx.header.api_version >= 6 && !groups.contains(id)) {
            described.error_code = protocol::ErrorCode::group_id_not_found;
            described.error_message = "Group " + id + " not found.";
        }
        // KIP-430 (v3+): the client's operations on the group when asked, for a group it may
        // describe (Kafka leaves the refused and the unknown ones at INT32_MIN).
        if (req.include_authorized_operations && described.error_code == protocol::ErrorCode::none)
            described.authorized_operations = authorized_operations(ctx, ResourceType::group, id);
        resp.groups.push_back(std::move(described));
    }
    co_return resp;
}

}  // namespace skiff::broker
