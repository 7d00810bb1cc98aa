#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "storage/partition_log.h"

namespace skiff::broker {

// DescribeProducers (KIP-664): the producer state of each partition asked for, as the partition
// log keeps it (producer_state.h). An unknown topic or partition is UNKNOWN_TOPIC_OR_PARTITION
// for that partition (Kafka's KafkaApis.handleDescribeProducersRequest).
asio::awaitable<protocol::DescribeProducersResponse> handle_describe_producers(
    RequestContext& ctx, const protocol::DescribeProducersRequest& req) {
    protocol::DescribeProducersResponse resp;
    for (const auto& topic : req.topics) {
        protocol::DescribeProducersResponseTopic t;
        t.name = topic.name;
        // READ on the topic (docs/acls.md; Kafka's handleDescribeProducersRequest), else
        // TOPIC_AUTHORIZATION_FAILED.
        const bool allowed = authorized(ctx, AclOperation::read, ResourceType::topic, topic.name);
        for (int32_t index : topic.partition_indexes) {
            protocol::DescribeProducersResponsePartition p;
            p.partition_index = index;
            if (!allowed) {
                p.error_code = protocol::ErrorCode::topic_authorization_failed;
                t.partitions.push_back(std::move(p));
                continue;
            }
            auto* log = ctx.broker.logs().get({topic.name, index});
            if (!log) {
                p.error_code = protocol::ErrorCode::unknown_topic_or_partition;
                t.partitions.push_back(std::move(p));
                continue;
            }
            for (const auto& [producer_id, entry] : log->producer_entries()) {
                protocol::DescribedProducer d;
                d.producer_id = producer_id;
                d.producer_epoch = entry.epoch;
                if (!entry.batches.empty()) {
                    d.last_sequence = entry.batches.back().last_sequence;
                    d.last_timestamp = entry.batches.back().max_timestamp;
                }
                d.coordinator_epoch = entry.coordinator_epoch;
                d.current_txn_start_offset = entry.current_txn_first_offset;
                p.active_producers.push_back(d);
            }
            t.partitions.push_back(std::move(p));
        }
        resp.topics.push_back(std::move(t));
    }
    co_return resp;
}

}  // namespace skiff::broker
