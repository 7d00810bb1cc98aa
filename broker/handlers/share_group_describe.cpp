// ShareGroupDescribe (KIP-932): a share group's epochs, state and members with their
// subscriptions and assignments (topics by id and name); KIP-430's authorized operations.
#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/advertised_apis.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {

asio::awaitable<protocol::ShareGroupDescribeResponse> handle_share_group_describe(
    RequestContext& ctx, const protocol::ShareGroupDescribeRequest& req) {
    const TopicRegistry& topics = ctx.broker.topics();
    protocol::ShareGroupDescribeResponse resp;
    for (const auto& id : req.group_ids) {
        protocol::DescribedShareGroup g;
        g.group_id = id;
        if (!share_groups_enabled(ctx.broker)) {
            g.error_code = protocol::ErrorCode::unsupported_version;
            g.error_message = "Share groups are not enabled (share.version is 0).";
            resp.groups.push_back(std::move(g));
            continue;
        }
        // DESCRIBE on each group (docs/acls.md), else GROUP_AUTHORIZATION_FAILED for it.
        if (!authorized(ctx, AclOperation::describe, ResourceType::group, id)) {
            g.error_code = protocol::ErrorCode::group_authorization_failed;
            resp.groups.push_back(std::move(g));
            continue;
        }
        auto d = ctx.broker.groups().share_describe(id);
        g.error_code = d.error;
        g.error_message = std::move(d.error_message);
        g.group_state = std::move(d.state);
        g.group_epoch = d.group_epoch;
        g.assignment_epoch = d.assignment_epoch;
        g.assignor_name = group::share::kSimpleAssignorName;
        for (const auto& m : d.members) {
            protocol::DescribedShareGroupMember out;
            out.member_id = m.member_id;
            out.rack_id = m.rack_id;
            out.member_epoch = m.member_epoch;
            out.client_id = m.client_id;
            out.client_host = m.client_host;
            out.subscribed_topic_names = m.subscribed_topic_names;
            for (const auto& [topic, partitions] : m.assigned) {
                auto tid = topics.topic_id(topic);
                if (!tid || partitions.empty())
                    continue;
                out.assignment.topic_partitions.push_back(
                    {to_uuid(*tid), topic,
                     std::vector<int32_t>(partitions.begin(), partitions.end())});
            }
            g.members.push_back(std::move(out));
        }
        // KIP-430: the client's operations on the group when asked, for a group described
        // without error, as KafkaApis; INT32_MIN otherwise.
        if (req.include_authorized_operations && g.error_code == protocol::ErrorCode::none)
            g.authorized_operations = authorized_operations(ctx, ResourceType::group, id);
        resp.groups.push_back(std::move(g));
    }
    co_return resp;
}

}  // namespace skiff::broker
