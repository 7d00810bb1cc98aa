#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/group_commit_wait.h"
#include "broker/handlers/handlers.h"
#include "broker/log_throttle.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"
#include "storage/log_config.h"

namespace skiff::broker {

// The response is built only after the commit was appended to the internal offsets log, so an
// acknowledged commit survives a crash of the broker process; in durable mode only after it was
// synced too, so it survives a power cut. Authorization (docs/acls.md):
// READ on the group, else every partition is GROUP_AUTHORIZATION_FAILED; READ on each topic,
// else TOPIC_AUTHORIZATION_FAILED (KafkaApis.handleOffsetCommitRequest).
asio::awaitable<protocol::OffsetCommitResponse> handle_offset_commit(
    RequestContext& ctx, const protocol::OffsetCommitRequest& req) {
    using protocol::ErrorCode;
    Broker& broker = ctx.broker;
    auto& groups = broker.groups();
    const bool group_allowed =
        authorized(ctx, AclOperation::read, ResourceType::group, req.group_id);
    ErrorCode group_error = groups.validate_commit(req.group_id, req.generation_id, req.member_id,
                                                   req.group_instance_id, ctx.header.api_version);
    // v9+: a generation for a group that does not exist is GROUP_ID_NOT_FOUND; older versions
    // keep ILLEGAL_GENERATION (Kafka's OffsetMetadataManager.validateOffsetCommit).
    if (group_error == ErrorCode::illegal_generation && ctx.header.api_version >= 9 &&
        !groups.state(req.group_id))
        group_error = ErrorCode::group_id_not_found;
    const int64_t now = storage::wall_clock_ms();
    const auto max_metadata = static_cast<size_t>(broker.config().offset_metadata_max_bytes);
    group::GroupOffsets accepted;
    protocol::OffsetCommitResponse resp;
    for (const auto& topic : req.topics) {
        protocol::OffsetCommitResponseTopic t;
        t.name = topic.name;
        t.topic_id = topic.topic_id;
        // v10 names the topic by id. An id no topic holds is UNKNOWN_TOPIC_ID for each of its
        // partitions, before the group is looked at (Kafka resolves ids in KafkaApis).
        bool unknown_id = false;
        if (ctx.header.api_version >= 10) {
            auto found = topic_name_of(broker.topics(), topic.topic_id);
            unknown_id = !found;
            t.name = std::move(found).value_or(std::string());
        }
        const auto partitions = broker.topics().partition_count(t.name);
        const bool topic_allowed =
            unknown_id || authorized(ctx, AclOperation::read, ResourceType::topic, t.name);
        for (const auto& p : topic.partitions) {
            protocol::OffsetCommitResponsePartition r;
            r.partition_index = p.partition_index;
            r.error_code = !group_allowed   ? ErrorCode::group_authorization_failed
                           : unknown_id     ? ErrorCode::unknown_topic_id
                           : !topic_allowed ? ErrorCode::topic_authorization_failed
                                            : group_error;
            if (r.error_code == ErrorCode::none) {
                if (!partitions || p.partition_index < 0 || p.partition_index >= *partitions)
                    r.error_code = ErrorCode::unknown_topic_or_partition;
                else if (p.committed_metadata && p.committed_metadata->size() > max_metadata)
                    r.error_code = ErrorCode::offset_metadata_too_large;
            }
            if (r.error_code == ErrorCode::none) {
                group::CommittedOffset c;
                c.offset = p.committed_offset;
                c.leader_epoch = p.committed_leader_epoch;
                c.metadata = p.committed_metadata.value_or("");
                c.commit_timestamp_ms = p.commit_timestamp >= 0 ? p.commit_timestamp : now;
                accepted[{t.name, p.partition_index}] = std::move(c);
            }
            t.partitions.push_back(r);
        }
        resp.topics.push_back(std::move(t));
    }
    if (accepted.empty())
        co_return resp;
    std::string failure;
    auto committed = groups.offsets().commit(req.group_id, accepted);
    if (!committed) {
        failure = committed.error();
    } else if (*committed) {
        // Durable mode: answered once the commit is on disk, without holding this thread.
        if (auto failed = co_await wait_until_all_durable(broker.logs().group_commit(),
                                                          std::span(&**committed, 1)))
            failure = failed->message;
    }
    if (!failure.empty()) {
        LogThrottle::global().log(spdlog::level::err, "offset-commit:failed",
                                  "commit of group {} from {} failed: {}", req.group_id, ctx.peer,
                                  failure);
        for (auto& t : resp.topics)
            for (auto& r : t.partitions)
                if (r.error_code == ErrorCode::none)
                    r.error_code = ErrorCode::coordinator_not_available;
    }
    co_return resp;
}

}  // namespace skiff::broker
