// ConsumerGroupDescribe (KIP-848): a consumer group's epochs, members and their current and
// target assignments, with topic ids and names.
#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {
namespace {

protocol::DescribedConsumerAssignment on_the_wire(const TopicRegistry& topics,
                                                  const group::consumer::Assignment& a) {
    protocol::DescribedConsumerAssignment out;
    for (const auto& [topic, partitions] : a) {
        auto id = topics.topic_id(topic);
        if (!id || partitions.empty())
            continue;
        out.topic_partitions.push_back(
            {to_uuid(*id), topic, std::vector<int32_t>(partitions.begin(), partitions.end())});
    }
    return out;
}

}  // namespace

asio::awaitable<protocol::ConsumerGroupDescribeResponse> handle_consumer_group_describe(
    RequestContext& ctx, const protocol::ConsumerGroupDescribeRequest& req) {
    const TopicRegistry& topics = ctx.broker.topics();
    protocol::ConsumerGroupDescribeResponse resp;
    for (const auto& id : req.group_ids) {
        protocol::DescribedConsumerGroup g;
        g.group_id = id;
        // DESCRIBE on each group (docs/acls.md), else GROUP_AUTHORIZATION_FAILED for it.
        if (!authorized(ctx, AclOperation::describe, ResourceType::group, id)) {
            g.error_code = protocol::ErrorCode::group_authorization_failed;
            resp.groups.push_back(std::move(g));
            continue;
        }
        auto d = ctx.broker.groups().consumer_describe(id);
        g.error_code = d.error;
        g.error_message = std::move(d.error_message);
        g.group_state = std::move(d.state);
        g.group_epoch = d.group_epoch;
        g.assignment_epoch = d.assignment_epoch;
        g.assignor_name = std::move(d.assignor_name);
        for (auto& dm : d.members) {
            const auto& m = dm.member;
            protocol::DescribedConsumerGroupMember out;
            out.member_id = m.member_id;
            out.instance_id = m.instance_id;
            out.rack_id = m.rack_id;
            out.member_epoch = m.member_epoch;
            out.client_id = m.client_id;
            out.client_host = m.client_host;
            out.subscribed_topic_names = m.subscribed_topic_names;
            out.subscribed_topic_regex = m.subscribed_topic_regex;
            out.assignment = on_the_wire(topics, m.assigned);
            out.target_assignment = on_the_wire(topics, dm.target);
            out.member_type = protocol::DescribedConsumerGroupMember::kMemberTypeConsumer;
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
