// ShareAcknowledge (79): acknowledgements of records a share consumer acquired, without a fetch
// (KIP-932). The same checks as ShareFetch (handlers/share_fetch.cpp), in the same order; the
// share session must exist already: ShareAcknowledge cannot open one (epoch 0 is
// INVALID_SHARE_SESSION_EPOCH, as Kafka), and epoch -1 closes it after the acknowledgements,
// releasing whatever the member still holds.
#include <optional>
#include <string>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/leader_hints.h"
#include "broker/handlers/share_request.h"
#include "broker/security/authorize.h"

namespace skiff::broker {
// Named rather than anonymous: unity builds put this file in one unit with other handlers.
namespace share_acknowledge_detail {

using protocol::ErrorCode;
using protocol::ShareAcknowledgeResponse;

ShareAcknowledgeResponse ack_failed(ErrorCode error, const char* message = nullptr) {
    ShareAcknowledgeResponse resp;
    resp.error_code = error;
    if (message)
        resp.error_message = message;
    return resp;
}

void add_ack_leader_hints(const RequestContext& ctx, ShareAcknowledgeResponse& resp) {
    bool named = false;
    for (auto& t : resp.responses)
        for (auto& p : t.partitions)
            if (names_current_leader(p.error_code)) {
                p.current_leader = {ctx.broker.node_id(), 0};
                named = true;
            }
    if (named && resp.node_endpoints.empty()) {
        const auto& advertised = ctx.broker.advertised(ctx.listener);
        resp.node_endpoints.push_back(
            {ctx.broker.node_id(), advertised.host, advertised.port, std::nullopt});
    }
}

}  // namespace share_acknowledge_detail

asio::awaitable<protocol::ShareAcknowledgeResponse> handle_share_acknowledge(
    RequestContext& ctx, const protocol::ShareAcknowledgeRequest& req) {
    using namespace share_acknowledge_detail;  // NOLINT(google-build-using-namespace)
    const int16_t version = ctx.header.api_version;
    if (!req.group_id || req.group_id->empty())
        co_return ack_failed(ErrorCode::invalid_request, "Invalid group id in the request.");
    if (!req.member_id || req.member_id->empty())
        co_return ack_failed(ErrorCode::invalid_request, "Invalid member id in the request.");
    const std::string& group_id = *req.group_id;
    const std::string& member_id = *req.member_id;
    const int32_t epoch = req.share_session_epoch;
    if (epoch == share::kInitialShareSessionEpoch)
        co_return ack_failed(ErrorCode::invalid_share_session_epoch,
                             "A share session cannot be opened by ShareAcknowledge.");
    if (!authorized(ctx, AclOperation::read, ResourceType::group, group_id))
        co_return ack_failed(ErrorCode::group_authorization_failed);
    auto* membership = ctx.broker.share_membership();
    auto* partitions = ctx.broker.share_partitions();
    if (!membership || !partitions)  // as Kafka with share groups off
        co_return ack_failed(ErrorCode::unsupported_version,
                             "Share groups are not enabled on this broker.");
    if (auto e = membership->check_member(group_id, member_id); e != ErrorCode::none) {
        // A member that has just left on its own may still acknowledge what it holds, and close
        // its session, while it has its session (ShareSessionCache::has_session, member_leaving):
        // librdkafka's close sends its last acknowledgements beside the leave, on another
        // connection, and Kafka applies them whichever comes first.
        const bool closing = e == ErrorCode::unknown_member_id &&
                             ctx.broker.share_sessions().has_session(group_id, member_id);
        if (!closing)
            co_return ack_failed(e);
    }
    const share::ShareGroupConfig config = membership->config(group_id);

    auto& sessions = ctx.broker.share_sessions();
    const bool final_ack = epoch == share::kFinalShareSessionEpoch;
    // A final acknowledgement closes the session only after it is applied and what the member
    // holds is released (below): a leave served meanwhile must find the session, or it would
    // release the records being acknowledged (ShareSessionCache::member_leaving).
    const ErrorCode session_error =
        final_ack ? (sessions.has_session(group_id, member_id) ? ErrorCode::none
                                                               : ErrorCode::share_session_not_found)
                  : sessions.acknowledge(group_id, member_id, epoch);
    if (session_error != ErrorCode::none)
        co_return ack_failed(session_error);

    ShareAcknowledgeResponse resp;
    if (version >= 2)
        resp.acquisition_lock_timeout_ms = config.record_lock_duration_ms;
    const bool renew = version >= 2 && req.is_renew_ack;
    share::UnsyncedWrites unsynced;  // durable mode's, answered once synced
    resp.responses.reserve(req.topics.size());
    for (const auto& t : req.topics) {
        auto& out = resp.responses.emplace_back();
        out.topic_id = t.topic_id;
        const ShareTopicRef topic = resolve_share_topic(ctx, t.topic_id);
        out.partitions.reserve(t.partitions.size());
        for (const auto& p : t.partitions) {
            auto& part = out.partitions.emplace_back();
            part.partition_index = p.partition_index;
            if (topic.error != ErrorCode::none) {
                part.error_code = topic.error;
                continue;
            }
            if (!ctx.broker.logs().get({topic.name, p.partition_index})) {
                part.error_code = ErrorCode::unknown_topic_or_partition;
                continue;
            }
            const share::SharePartitionKey key{
                group_id, {topic.name, p.partition_index}, t.topic_id};
            part.error_code =
                apply_acknowledgements(*partitions, key, member_id, p.acknowledgement_batches,
                                       renew, config, share_now_ms(), unsynced);
        }
    }
    if (final_ack) {  // the member's last word: whatever it still holds is released
        partitions->release_member(group_id, member_id, share_now_ms());
        sessions.close(group_id, member_id);
    }
    if (!co_await await_synced(ctx, unsynced))
        for (auto& t : resp.responses)
            for (auto& p : t.partitions)
                if (p.error_code == ErrorCode::none)
                    p.error_code = ErrorCode::unknown_server_error;
    add_ack_leader_hints(ctx, resp);
    co_return resp;
}

}  // namespace skiff::broker
