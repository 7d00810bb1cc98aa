#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

// Clients' AddPartitionsToTxn (v0-3): one transaction. As Kafka: when any named partition does
// not exist, those get UNKNOWN_TOPIC_OR_PARTITION, every other one OPERATION_NOT_ATTEMPTED and
// nothing is added; otherwise the coordinator's one answer goes to every partition.
asio::awaitable<protocol::AddPartitionsToTxnResponse> handle_add_partitions_to_txn(
    RequestContext& ctx, const protocol::AddPartitionsToTxnRequest& req) {
    protocol::AddPartitionsToTxnResponse resp;
    // Authorization (docs/acls.md): WRITE on the transactional id, else every partition is
    // TRANSACTIONAL_ID_AUTHORIZATION_FAILED; WRITE on each topic, else its partitions are
    // TOPIC_AUTHORIZATION_FAILED and the others OPERATION_NOT_ATTEMPTED, as in Kafka.
    const bool txn_id_allowed = authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                                           req.v3_and_below_transactional_id);
    const auto may_write = [&](const std::string& topic) {
        return authorized(ctx, AclOperation::write, ResourceType::topic, topic);
    };
    std::vector<storage::TopicPartition> partitions;
    bool unknown = !txn_id_allowed;
    for (const auto& topic : req.v3_and_below_topics) {
        const auto count = ctx.broker.topics().partition_count(topic.name);
        const bool allowed = may_write(topic.name);
        for (int32_t p : topic.partitions) {
            if (!allowed || !count || p < 0 || p >= *count)
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
        const bool allowed = may_write(topic.name);
        for (int32_t p : topic.partitions) {
            protocol::AddPartitionsToTxnPartitionResult r;
            r.partition_index = p;
            if (!txn_id_allowed)
                r.partition_error_code = ErrorCode::transactional_id_authorization_failed;
            else if (!allowed)
                r.partition_error_code = ErrorCode::topic_authorization_failed;
            else if (!unknown)
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
