#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/error_mapping.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_registry.h"
#include "storage/log_manager.h"

namespace skiff::broker {

using protocol::ErrorCode;

// Each partition's log start offset moves (segments wholly below it are deleted at once), then
// the log-start-offset checkpoint is written before answering, so that an acknowledged deletion
// survives a crash: Kafka checkpoints it only periodically and may resurrect the records.
asio::awaitable<protocol::DeleteRecordsResponse> handle_delete_records(
    RequestContext& ctx, const protocol::DeleteRecordsRequest& req) {
    protocol::DeleteRecordsResponse resp;
    bool moved = false;
    for (const auto& topic : req.topics) {
        protocol::DeleteRecordsTopicResult t;
        t.name = topic.name;
        // DELETE on the topic (docs/acls.md), else TOPIC_AUTHORIZATION_FAILED.
        const bool allowed = authorized(ctx, AclOperation::remove, ResourceType::topic, topic.name);
        for (const auto& p : topic.partitions) {
            protocol::DeleteRecordsPartitionResult r;
            r.partition_index = p.partition_index;
            auto* log = ctx.broker.logs().get({topic.name, p.partition_index});
            if (!allowed) {
                r.error_code = ErrorCode::topic_authorization_failed;
            } else if (TopicRegistry::is_internal(topic.name)) {
                // As Kafka: __consumer_offsets' records are the group offsets themselves.
                r.error_code = ErrorCode::invalid_topic_exception;
            } else if (!log) {
                r.error_code = ErrorCode::unknown_topic_or_partition;
            } else if (auto start = log->delete_records_before(p.offset)) {
                r.low_watermark = *start;
                moved = true;
            } else {
                r.error_code = to_error_code(start.error().code);
            }
            t.partitions.push_back(r);
        }
        resp.topics.push_back(std::move(t));
    }
    if (moved) {
        if (auto saved = ctx.broker.logs().checkpoint_log_start_offsets(); !saved) {
            spdlog::error("DeleteRecords from {}: writing the log start offsets failed: {}",
                          ctx.peer, saved.error().message);
            for (auto& t : resp.topics)
                for (auto& p : t.partitions)
                    if (p.error_code == ErrorCode::none)
                        p.error_code = ErrorCode::kafka_storage_error;
        }
    }
    co_return resp;
}

}  // namespace skiff::broker
