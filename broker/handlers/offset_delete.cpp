#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

using protocol::ErrorCode;

// As Kafka's KafkaApis: partitions of unknown topics are UNKNOWN_TOPIC_OR_PARTITION and not
// passed on; the coordinator decides the rest (group_coordinator.h, delete_offsets).
asio::awaitable<protocol::OffsetDeleteResponse> handle_offset_delete(
    RequestContext& ctx, const protocol::OffsetDeleteRequest& req) {
    protocol::OffsetDeleteResponse resp;
    std::vector<storage::TopicPartition> known;
    for (const auto& topic : req.topics)
        for (int32_t p : topic.partitions)
            if (ctx.broker.logs().get({topic.name, p}))
                known.push_back({topic.name, p});
    auto result = ctx.broker.groups().delete_offsets(req.group_id, known);
    if (result.error != ErrorCode::none) {
        resp.error_code = result.error;
        co_return resp;
    }
    for (const auto& topic : req.topics) {
        protocol::OffsetDeleteResponseTopic t;
        t.name = topic.name;
        for (int32_t p : topic.partitions) {
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
