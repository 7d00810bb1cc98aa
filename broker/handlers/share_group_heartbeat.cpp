// ShareGroupHeartbeat (KIP-932): authorization, the group's own session timeout and heartbeat
// interval (group configs), and the wire's topic ids; the protocol itself is
// broker/group/share/share_protocol.h.
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/advertised_apis.h"
#include "broker/handlers/group_wait.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

protocol::ShareGroupHeartbeatResponse refused(ErrorCode error, std::string message) {
    protocol::ShareGroupHeartbeatResponse resp;
    resp.error_code = error;
    resp.error_message = std::move(message);
    return resp;
}

}  // namespace

asio::awaitable<protocol::ShareGroupHeartbeatResponse> handle_share_group_heartbeat(
    RequestContext& ctx, const protocol::ShareGroupHeartbeatRequest& req) {
    if (!share_groups_enabled(ctx.broker))
        co_return refused(ErrorCode::unsupported_version,
                          "Share groups are not enabled (share.version is 0).");
    // READ on the group, DESCRIBE on every subscribed topic (Kafka's KafkaApis).
    if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id))
        co_return refused(ErrorCode::group_authorization_failed,
                          "Not authorized to read group " + req.group_id + ".");
    if (req.subscribed_topic_names)
        for (const auto& topic : *req.subscribed_topic_names)
            if (!authorized(ctx, AclOperation::describe, ResourceType::topic, topic))
                co_return refused(ErrorCode::topic_authorization_failed,
                                  "Not authorized to describe topic " + topic + ".");
    group::share::HeartbeatParams p;
    p.group_id = req.group_id;
    p.member_id = req.member_id;
    p.member_epoch = req.member_epoch;
    p.rack_id = req.rack_id;
    p.subscribed_topic_names = req.subscribed_topic_names;
    p.client_id = ctx.header.client_id.value_or("");
    p.client_host = client_host_of(ctx.peer);
    auto& configs = ctx.broker.group_configs();
    p.session_timeout_ms = configs.int_value(req.group_id, group::kShareSessionTimeoutMs);
    p.heartbeat_interval_ms = configs.int_value(req.group_id, group::kShareHeartbeatIntervalMs);
    const group::TopicView view = ctx.broker.group_topic_view();
    auto r = ctx.broker.groups().share_heartbeat(p, view);

    protocol::ShareGroupHeartbeatResponse resp;
    if (r.error == ErrorCode::invalid_request)
        spdlog::warn("ShareGroupHeartbeat of group {} from {} ({}) refused: {}", req.group_id,
                     p.client_id, p.client_host, r.error_message.value_or("invalid request"));
    resp.error_code = r.error;
    resp.error_message = std::move(r.error_message);
    if (r.error != ErrorCode::none)
        co_return resp;
    resp.member_id = std::move(r.member_id);
    resp.member_epoch = r.member_epoch;
    resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
    if (r.assignment) {
        TopicRegistry& topics = ctx.broker.topics();
        protocol::ShareGroupHeartbeatAssignment a;
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
