// ConsumerGroupHeartbeat (KIP-848): the wire's topic ids to the group's topic names and back;
// the protocol itself is broker/group/consumer/consumer_protocol.h.
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/group/group_configs.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/group_wait.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"
#include "config/settings.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

protocol::ConsumerGroupHeartbeatResponse refused(ErrorCode error, std::string message) {
    protocol::ConsumerGroupHeartbeatResponse resp;
    resp.error_code = error;
    resp.error_message = std::move(message);
    return resp;
}

// Owned partitions by topic name. A topic id no topic holds any more is left out: the member
// cannot own a partition of a deleted topic.
group::consumer::Assignment owned_by_name(
    const TopicRegistry& topics,
    const std::vector<protocol::ConsumerGroupHeartbeatTopicPartitions>& owned) {
    group::consumer::Assignment out;
    for (const auto& tp : owned)
        if (auto name = topic_name_of(topics, tp.topic_id))
            out[*name].insert(tp.partitions.begin(), tp.partitions.end());
    return out;
}

}  // namespace

asio::awaitable<protocol::ConsumerGroupHeartbeatResponse> handle_consumer_group_heartbeat(
    RequestContext& ctx, const protocol::ConsumerGroupHeartbeatRequest& req) {
    if (!config::rebalance_protocol_enabled(ctx.broker.config(), "consumer"))
        co_return refused(ErrorCode::unsupported_version,
                          "The consumer group protocol is not enabled "
                          "(group.coordinator.rebalance.protocols).");
    // READ on the group, DESCRIBE on every subscribed topic (Kafka's KafkaApis).
    if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id))
        co_return refused(ErrorCode::group_authorization_failed,
                          "Not authorized to read group " + req.group_id + ".");
    if (req.subscribed_topic_names)
        for (const auto& topic : *req.subscribed_topic_names)
            if (!authorized(ctx, AclOperation::describe, ResourceType::topic, topic))
                co_return refused(ErrorCode::topic_authorization_failed,
                                  "Not authorized to describe topic " + topic + ".");
    TopicRegistry& topics = ctx.broker.topics();
    group::consumer::HeartbeatParams p;
    p.api_version = ctx.header.api_version;
    p.group_id = req.group_id;
    p.member_id = req.member_id;
    p.member_epoch = req.member_epoch;
    p.instance_id = req.instance_id;
    p.rack_id = req.rack_id;
    p.rebalance_timeout_ms = req.rebalance_timeout_ms;
    p.subscribed_topic_names = req.subscribed_topic_names;
    p.subscribed_topic_regex = req.subscribed_topic_regex;
    p.server_assignor = req.server_assignor;
    if (req.topic_partitions)
        p.owned = owned_by_name(topics, *req.topic_partitions);
    p.client_id = ctx.header.client_id.value_or("");
    p.client_host = client_host_of(ctx.peer);
    const auto& configs = ctx.broker.group_configs();
    p.session_timeout_ms = configs.int_value(req.group_id, group::kConsumerSessionTimeoutMs);
    p.heartbeat_interval_ms = configs.int_value(req.group_id, group::kConsumerHeartbeatIntervalMs);
    const group::TopicView view = ctx.broker.group_topic_view();
    auto r = ctx.broker.groups().consumer_heartbeat(p, view);

    protocol::ConsumerGroupHeartbeatResponse resp;
    if (r.error == ErrorCode::invalid_request)
        // A client bug or a version difference: the client treats it as fatal, so say why here.
        spdlog::warn("ConsumerGroupHeartbeat v{} of group {} from {} ({}) refused: {}",
                     ctx.header.api_version, req.group_id, p.client_id, p.client_host,
                     r.error_message.value_or("invalid request"));
    resp.error_code = r.error;
    resp.error_message = std::move(r.error_message);
    if (r.error != ErrorCode::none)
        co_return resp;
    resp.member_id = std::move(r.member_id);
    resp.member_epoch = r.member_epoch;
    resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
    if (r.assignment) {
        protocol::ConsumerGroupHeartbeatAssignment a;
        for (const auto& [topic, partitions] : *r.assignment) {
            auto id = topics.topic_id(topic);
            if (!id || partitions.empty())
                continue;  // deleted since the target was computed: the next epoch drops it
            a.topic_partitions.push_back(
                {to_uuid(*id), std::vector<int32_t>(partitions.begin(), partitions.end())});
        }
        resp.assignment = std::move(a);
    }
    co_return resp;
}

}  // namespace skiff::broker
