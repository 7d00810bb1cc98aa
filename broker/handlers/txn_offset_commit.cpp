#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/group_commit_wait.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_settle.h"
#include "broker/security/authorize.h"
#include "storage/log_config.h"

namespace skiff::broker {

// TxnOffsetCommit: a transactional producer commits its consumer's offsets inside the
// transaction (after AddOffsetsToTxn). Per partition: unknown topic or partition, then metadata
// too large; the rest are written to __consumer_offsets as one transactional batch and stay
// invisible to OffsetFetch until the transaction commits (GroupCoordinator::txn_offset_commit).
// A group error (generation, member, instance id) or a failed append applies to every partition
// of a known topic, as in Kafka (its group coordinator answers all of those with the one
// error). The answer is built after the append returned. Before anything is written the
// transaction coordinator checks that the producer id and epoch hold the transactional id and
// that AddOffsetsToTxn added the offsets partition to its ongoing transaction.
asio::awaitable<protocol::TxnOffsetCommitResponse> handle_txn_offset_commit(
    RequestContext& ctx, const protocol::TxnOffsetCommitRequest& req) {
    using protocol::ErrorCode;
    Broker& broker = ctx.broker;
    const int64_t now = storage::wall_clock_ms();
    const auto max_metadata = static_cast<size_t>(broker.config().offset_metadata_max_bytes);
    group::GroupOffsets accepted;
    protocol::TxnOffsetCommitResponse resp;
    // Authorization (docs/acls.md), as KafkaApis.handleTxnOffsetCommitRequest: WRITE on the
    // transactional id and READ on the group, else every partition gets
    // TRANSACTIONAL_ID_AUTHORIZATION_FAILED / GROUP_AUTHORIZATION_FAILED; READ on each topic,
    // else TOPIC_AUTHORIZATION_FAILED for its partitions.
    ErrorCode refused = ErrorCode::none;
    if (!authorized(ctx, AclOperation::write, ResourceType::transactional_id, req.transactional_id))
        refused = ErrorCode::transactional_id_authorization_failed;
    else if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id))
        refused = ErrorCode::group_authorization_failed;
    for (const auto& topic : req.topics) {
        protocol::TxnOffsetCommitResponseTopic t;
        t.name = topic.name;
        const auto partitions = broker.topics().partition_count(topic.name);
        const bool topic_allowed =
            authorized(ctx, AclOperation::read, ResourceType::topic, topic.name);
        for (const auto& p : topic.partitions) {
            protocol::TxnOffsetCommitResponsePartition r;
            r.partition_index = p.partition_index;
            if (refused != ErrorCode::none) {
                r.error_code = refused;
            } else if (!topic_allowed) {
                r.error_code = ErrorCode::topic_authorization_failed;
            } else if (!partitions || p.partition_index < 0 || p.partition_index >= *partitions) {
                r.error_code = ErrorCode::unknown_topic_or_partition;
            } else if (p.committed_metadata && p.committed_metadata->size() > max_metadata) {
                r.error_code = ErrorCode::offset_metadata_too_large;
            } else {
                group::CommittedOffset c;
                c.offset = p.committed_offset;
                c.leader_epoch = p.committed_leader_epoch;
                c.metadata = p.committed_metadata.value_or("");
                c.commit_timestamp_ms = now;
                accepted[{topic.name, p.partition_index}] = std::move(c);
            }
            t.partitions.push_back(r);
        }
        resp.topics.push_back(std::move(t));
    }
    if (refused != ErrorCode::none)
        co_return resp;
    group::GroupCoordinator::TxnCommitParams params{req.group_id,       req.producer_id,
                                                    req.producer_epoch, req.generation_id,
                                                    req.member_id,      req.group_instance_id};
    // The producer must hold the transactional id now and have added the offsets partition
    // with AddOffsetsToTxn (Kafka 4.x verifies this too): otherwise any client could slip
    // offsets into another producer's transaction, or a fenced one commit its stale offsets.
    // Transactions V2 (v5, transaction.version 2): this request itself adds the offsets
    // partition to the transaction, as Kafka's group coordinator does through
    // AddPartitionsToTxn; PRODUCER_FENCED reaches the client as INVALID_PRODUCER_EPOCH, as
    // Kafka's verification answers it.
    // In durable mode the offsets are appended only once the write that added their partition
    // is on disk: after a power cut no transactional offsets may wait for a transaction the
    // coordinator does not know.
    ErrorCode error = ErrorCode::none;
    txn::Deferred deferred;
    if (txn::client_transaction_version(broker.features().transaction_version(),
                                        ctx.header.api_version >= 5) >= 2) {
        error = broker.transactions().add_partitions(req.transactional_id, req.producer_id,
                                                     req.producer_epoch,
                                                     {{group::kOffsetsTopic, 0}}, 2, &deferred);
        if (error == ErrorCode::producer_fenced)
            error = ErrorCode::invalid_producer_epoch;
        if (error == ErrorCode::concurrent_transactions)
            error = ErrorCode::coordinator_load_in_progress;  // retriable, as below
    }
    if (error == ErrorCode::none)
        error = broker.transactions().verify_partition(req.transactional_id, req.producer_id,
                                                       req.producer_epoch,
                                                       {group::kOffsetsTopic, 0}, &deferred);
    if (!deferred.syncs.empty()) {
        if (auto settled = co_await settle(ctx, deferred); error == ErrorCode::none)
            error = settled;
        // Checked again after the wait, as a produce is: the transaction may have moved on
        // meanwhile (a commit or abort begun by a request this one did not wait for).
        if (error == ErrorCode::none)
            error = broker.transactions().verify_partition(req.transactional_id, req.producer_id,
                                                           req.producer_epoch,
                                                           {group::kOffsetsTopic, 0});
    }
    if (error == ErrorCode::not_enough_replicas)  // its commit or abort is being completed
        error = ErrorCode::coordinator_load_in_progress;
    // Not added by AddOffsetsToTxn: v4+ clients know TRANSACTION_ABORTABLE (KIP-890), older
    // ones get INVALID_TXN_STATE, as Kafka's verification answers them.
    if (error == ErrorCode::invalid_txn_state && ctx.header.api_version >= 4)
        error = ErrorCode::transaction_abortable;
    group::OffsetStore::Unsynced unsynced;
    if (error == ErrorCode::none)
        error = broker.groups().txn_offset_commit(params, accepted, &unsynced);
    if (error == ErrorCode::none && unsynced) {
        // Durable mode: answered once the offsets are on disk, or a power cut could lose them
        // while the producer goes on to commit its transaction without them.
        if (co_await wait_until_all_durable(broker.logs().group_commit(), std::span(&*unsynced, 1)))
            error = ErrorCode::coordinator_not_available;
    }
    // v0-1 clients do not know COORDINATOR_LOAD_IN_PROGRESS (Kafka rewrites it the same way).
    if (error == ErrorCode::coordinator_load_in_progress && ctx.header.api_version < 2)
        error = ErrorCode::coordinator_not_available;
    if (error != ErrorCode::none) {
        for (auto& t : resp.topics)
            for (auto& r : t.partitions)
                if (r.error_code != ErrorCode::unknown_topic_or_partition &&
                    r.error_code != ErrorCode::topic_authorization_failed)
                    r.error_code = error;
    }
    co_return resp;
}

}  // namespace skiff::broker
