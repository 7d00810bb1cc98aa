#include "broker/broker.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

using protocol::ErrorCode;

// Clients' AddPartitionsToTxn (v0-3): one transaction. As Kafka: when any named partition does
// not exist, those get UNKNOWN_TOPIC_OR_PARTITION, every other one OPERATION_NOT_ATTEMPTED and
// nothing is added; otherwise the coordinator's one answer goes to every partition.
asio::awaitable<protocol::AddPartitionsToTxnResponse> handle_add_partitions_to_txn(
    RequestContext& ctx, const protocol::AddPartitionsToTxnRequest& req) {
    protocol::AddPartitionsToTxnResponse resp;
    std::vector<storage::TopicPartition> partitions;
    bool unknown = false;
    for (const auto& topic : req.v3_and_below_topics) {
        const auto count = ctx.broker.topics().partition_count(topic.name);
        for (int32_t p : topic.partitions) {
            if (!count || p < 0 || p >= *count)
                unknown = true;
            partitions.push_back({topic.name, p});
        }
    }
    ErrorCode error = ErrorCode::none;
    if (!unknown) {
        error = ctx.broker.transactions().add_partitions(
            req.v3_and_below_transactional_id, req.v3_and_below_producer_id,
            req.v3_and_below_producer_epoch, partitions);
        if (error == ErrorCode::producer_fenced && ctx.header.api_version < 2)
            error = ErrorCode::invalid_producer_epoch;
    }
    for (const auto& topic : req.v3_and_below_topics) {
        protocol::AddPartitionsToTxnTopicResult t;
        t.name = topic.name;
        const auto count = ctx.broker.topics().partition_count(topic.name);
        for (int32_t p : topic.partitions) {
            protocol::AddPartitionsToTxnPartitionResult r;
            r.partition_index = p;
            if (!unknown)
                r.partition_error_code = error;
            else if (!count || p < 0 || p >= *count)
                r.partition_error_code = ErrorCode::unknown_topic_or_partition;
            else
                r.partition_error_code = ErrorCode::operation_not_attempted;
            t.results_by_partition.push_back(r);
        }
        resp.results_by_topic_v3_and_below.push_back(std::move(t));
    }
    co_return resp;
}

}  // namespace skiff::broker
