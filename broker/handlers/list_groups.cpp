#include <algorithm>

#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

asio::awaitable<protocol::ListGroupsResponse> handle_list_groups(
    RequestContext& ctx, const protocol::ListGroupsRequest& req) {
    protocol::ListGroupsResponse resp;
    for (auto& g : ctx.broker.groups().list()) {
        // v4 filters by state, compared case-insensitively as Kafka does.
        if (!req.states_filter.empty()) {
            auto lower = [](std::string s) {
                std::transform(s.begin(), s.end(), s.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                return s;
            };
            bool wanted =
                std::any_of(req.states_filter.begin(), req.states_filter.end(),
                            [&](const std::string& s) { return lower(s) == lower(g.group_state); });
            if (!wanted)
                continue;
        }
        resp.groups.push_back(std::move(g));
    }
    co_return resp;
}

}  // namespace skiff::broker
