#include <set>
#include <string_view>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_settle.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

namespace {

// v4+ (KIP-890 part 1): Kafka's broker-to-broker form, batches of transactions, each either
// added (as a client's v0-3 would be) or, with verify_only, only checked: NONE for a partition in
// the transaction, TRANSACTION_ABORTABLE for one that is not, nothing added. It needs
// CLUSTER_ACTION on the cluster (else a top-level CLUSTER_AUTHORIZATION_FAILED) and no per-topic
// WRITE, as in Kafka. A transactional id named twice is INVALID_REQUEST (Kafka keys the batch by
// it). v5 adds a transaction with transactions V2 when the feature is finalized at 2. The adds'
// syncs (durable mode) go to `deferred`.
protocol::AddPartitionsToTxnResponse add_batched(RequestContext& ctx,
                                                 const protocol::AddPartitionsToTxnRequest& req,
                                                 txn::Deferred& deferred) {
    protocol::AddPartitionsToTxnResponse resp;
    if (!authorized_on_cluster(ctx, AclOperation::cluster_action)) {
        resp.error_code = ErrorCode::cluster_authorization_failed;
        return resp;
    }
    std::set<std::string_view> ids;
    for (const auto& t : req.transactions)
        if (!ids.insert(t.transactional_id).second) {
            resp.error_code = ErrorCode::invalid_request;
            return resp;
        }
    const int16_t client_version = txn::client_transaction_version(
        ctx.broker.features().transaction_version(), ctx.header.api_version >= 5);
    std::vector<ErrorCode> verdicts;
    for (const auto& txn : req.transactions) {
        protocol::AddPartitionsToTxnResult result;
        result.transactional_id = txn.transactional_id;
        std::vector<storage::TopicPartition> partitions;
        bool unknown = false;
        for (const auto& topic : txn.topics) {
            const auto count = ctx.broker.topics().partition_count(topic.name);
            for (int32_t p : topic.partitions) {
                if (!count || p < 0 || p >= *count)
                    unknown = true;
                partitions.push_back({topic.name, p});
            }
        }
        ErrorCode error = ErrorCode::none;
        verdicts.clear();
        if (!unknown && txn.verify_only)
            error = ctx.broker.transactions().verify_partitions(
                txn.transactional_id, txn.producer_id, txn.producer_epoch, partitions, verdicts);
        else if (!unknown)
            error = ctx.broker.transactions().add_partitions(txn.transactional_id, txn.producer_id,
                                                             txn.producer_epoch, partitions,
                                                             client_version, &deferred);
        size_t i = 0;
        for (const auto& topic : txn.topics) {
            protocol::AddPartitionsToTxnTopicResult t;
            t.name = topic.name;
            const auto count = ctx.broker.topics().partition_count(topic.name);
            for (int32_t p : topic.partitions) {
                protocol::AddPartitionsToTxnPartitionResult r;
                r.partition_index = p;
                if (unknown)
                    r.partition_error_code = (!count || p < 0 || p >= *count)
                                                 ? ErrorCode::unknown_topic_or_partition
                                                 : ErrorCode::operation_not_attempted;
                else if (error != ErrorCode::none || verdicts.empty())
                    r.partition_error_code = error;
                else
                    r.partition_error_code = verdicts[i];
                ++i;
                t.results_by_partition.push_back(r);
            }
            result.topic_results.push_back(std::move(t));
        }
        resp.results_by_transaction.push_back(std::move(result));
    }
    return resp;
}

}  // namespace

// Clients' AddPartitionsToTxn (v0-3): one transaction. As Kafka: when any named partition does
// not exist, those get UNKNOWN_TOPIC_OR_PARTITION, every other one OPERATION_NOT_ATTEMPTED and
// nothing is added; otherwise the coordinator's one answer goes to every partition.
asio::awaitable<protocol::AddPartitionsToTxnResponse> handle_add_partitions_to_txn(
    RequestContext& ctx, const protocol::AddPartitionsToTxnRequest& req) {
    if (ctx.header.api_version >= 4) {
        // Answered once every add is on disk (durable mode); if that failed, no partition of
        // the batch is reported added.
        txn::Deferred deferred;
        auto resp = add_batched(ctx, req, deferred);
        if (auto settled = co_await settle(ctx, deferred); settled != ErrorCode::none)
            for (auto& txn : resp.results_by_transaction)
                for (auto& t : txn.topic_results)
                    for (auto& r : t.results_by_partition)
                        if (r.partition_error_code == ErrorCode::none)
                            r.partition_error_code = settled;
        co_return resp;
    }
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
        // In durable mode answered once the add is on disk: the client then writes data to
        // these partitions, which the coordinator must know of after a power cut.
        txn::Deferred deferred;
        error = ctx.broker.transactions().add_partitions(
            req.v3_and_below_transactional_id, req.v3_and_below_producer_id,
            req.v3_and_below_producer_epoch, partitions, 0, &deferred);
        if (auto settled = co_await settle(ctx, deferred); error == ErrorCode::none)
            error = settled;
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
