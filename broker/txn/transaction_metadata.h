// What the transaction coordinator knows about one transactional id, and Kafka's states
// (TransactionState in Kafka's transaction coordinator): the id byte stored in
// __transaction_state, the name DescribeTransactions / ListTransactions show.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

#include "storage/topic_partition.h"

namespace skiff::broker::txn {

enum class TxnState : int8_t {
    empty = 0,
    ongoing = 1,
    prepare_commit = 2,
    prepare_abort = 3,
    complete_commit = 4,
    complete_abort = 5,
    dead = 6,
    prepare_epoch_fence = 7,
};

std::string_view state_name(TxnState s);  // "Empty", "Ongoing", ...
std::optional<TxnState> state_from_name(std::string_view name);
std::optional<TxnState> state_from_id(int8_t id);

inline bool is_prepare(TxnState s) {
    return s == TxnState::prepare_commit || s == TxnState::prepare_abort;
}
// States in which no transaction runs: a new one may start, the id may expire.
inline bool is_idle(TxnState s) {
    return s == TxnState::empty || s == TxnState::complete_commit || s == TxnState::complete_abort;
}

// Epochs at or above this are exhausted: the next bump moves to a new producer id.
inline constexpr int16_t kMaxBumpableEpoch = 32766;

struct TxnMetadata {
    int64_t producer_id = -1;
    // The id before the last move to a new one (epoch exhausted); kept in version-1 values.
    int64_t previous_producer_id = -1;
    // Transactions V2: the id the producer moves to when this commit or abort completes, set
    // by an EndTxn that found the epoch exhausted (Kafka's nextProducerId); -1 otherwise.
    int64_t next_producer_id = -1;
    int16_t producer_epoch = -1;
    int16_t last_producer_epoch = -1;  // in memory only: the epoch before the last bump
    int32_t timeout_ms = 0;
    TxnState state = TxnState::empty;
    std::set<storage::TopicPartition> partitions;
    int64_t start_timestamp_ms = -1;
    int64_t last_update_timestamp_ms = -1;
    // The transaction version the client's requests asked for (KIP-890): 2 when the partitions
    // were added by Produce v12 / TxnOffsetCommit v5 / AddPartitionsToTxn v5 and the feature was
    // finalized at 2; EndTxn then bumps the epoch. 0 for transactions V1.
    int16_t client_transaction_version = 0;
};

}  // namespace skiff::broker::txn
