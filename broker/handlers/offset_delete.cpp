#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

// As Kafka's KafkaApis: partitions of unknown topics are UNKNOWN_TOPIC_OR_PARTITION and not
// passed on; the coordinator decides the rest (group_coordinator.h, delete_offsets).
// Authorization (docs/acls.md): DELETE on the group, else GROUP_AUTHORIZATION_FAILED for the
// request; READ on each topic, else TOPIC_AUTHORIZATION_FAILED for its partitions.
asio::awaitable<protocol::OffsetDeleteResponse> handle_offset_delete(
    RequestContext& ctx, const protocol::OffsetDeleteRequest& req) {
    protocol::OffsetDeleteResponse resp;
    if (!authorized(ctx, AclOperation::remove, ResourceType::group, req.group_id)) {
        resp.error_code = ErrorCode::group_authorization_failed;
        co_return resp;
    }
    const auto may_read = [&](const std::string& topic) {
        return authorized(ctx, AclOperation::read, ResourceType::topic, topic);
    };
    std::vector<storage::TopicPartition> known;
    for (const auto& topic : req.topics)
        for (int32_t p : topic.partitions)
            if (may_read(topic.name) && ctx.broker.logs().get({topic.name, p}))
                known.push_back({topic.name, p});
    auto result = ctx.broker.groups().delete_offsets(req.group_id, known);
    if (result.error != ErrorCode::none) {
        resp.error_code = result.error;
        co_return resp;
    }
    for (const auto& topic : req.topics) {
        protocol::OffsetDeleteResponseTopic t;
        t.name = topic.name;
        const bool allowed = may_read(topic.name);
        for (int32_t p : topic.partitions) {
            if (!allowed) {
                t.partitions.push_back({p, ErrorCode::topic_authorization_failed});
                continue;
            }
            auto it = result.partitions.find({topic.name, p});
            t.partitions.push_back({p, it == result.partitions.end()
                                           ? ErrorCode::unknown_topic_or_partition
                                           : it->second});
        }
        resp.topics.push_back(std::move(t));
    }
    co_return resp;
}

}  // namespace skiff::broker
