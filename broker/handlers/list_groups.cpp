#include <algorithm>

#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// An empty filter lets every value through; otherwise one entry must match, ignoring case, as
// in Kafka (states_filter since v4, types_filter since v5).
bool passes(const std::vector<std::string>& filter, const std::string& value) {
    return filter.empty() || std::any_of(filter.begin(), filter.end(), [&](const std::string& f) {
               return lower(f) == lower(value);
           });
}

}  // namespace

asio::awaitable<protocol::ListGroupsResponse> handle_list_groups(
    RequestContext& ctx, const protocol::ListGroupsRequest& req) {
    protocol::ListGroupsResponse resp;
    // DESCRIBE on the cluster lists every group; otherwise only the groups the client may
    // DESCRIBE are listed (docs/acls.md; KafkaApis.handleListGroupsRequest).
    const bool every_group = authorized_on_cluster(ctx, AclOperation::describe);
    for (auto& g : ctx.broker.groups().list()) {
        if (!every_group &&
            !authorized(ctx, AclOperation::describe, ResourceType::group, g.group_id))
            continue;
        if (passes(req.states_filter, g.group_state) && passes(req.types_filter, g.group_type))
            resp.groups.push_back(std::move(g));
    }
    co_return resp;
}

}  // namespace skiff::broker
