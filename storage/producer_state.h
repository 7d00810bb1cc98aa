// Idempotent-producer state of one partition: for each producer id, its epoch and the sequence
// and offset ranges of its last five batches (Kafka keeps five because a producer has at most
// five requests in flight per partition). Appends consult it to acknowledge a retried batch with
// its original offsets instead of storing it twice, and to refuse sequence gaps and stale
// epochs. Batches without a producer id (-1) are not tracked.
//
// The rules are Kafka's (ProducerStateManager / ProducerAppendInfo):
//   - epoch below the producer's current one            -> invalid_producer_epoch
//   - same epoch, batch equal to one of the last five    -> duplicate (original offsets)
//   - same epoch, first sequence != last sequence + 1    -> out_of_order_sequence
//     (sequences wrap from INT32_MAX to 0)
//   - higher epoch: the first sequence must be 0         -> otherwise out_of_order_sequence
//   - unknown producer (never seen, or its state expired with the log): any sequence is taken
// Transactions (Kafka's appendDataBatch / appendEndTxnMarker): the first transactional batch
// of a producer opens a transaction at its first offset; a non-transactional batch while one is
// open -> invalid_txn_state; a marker closes it (epoch below the producer's ->
// invalid_producer_epoch, coordinator epoch below -> transaction_coordinator_fenced).
//
// Thread-safety: none. The owning PartitionLog calls it under its append lock, so the duplicate
// check and the append that follows are one step.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>

#include "protocol/record_batch.h"

namespace skiff::storage {

inline constexpr size_t kProducerBatchesKept = 5;

struct ProducerBatch {
    int32_t first_sequence = 0;
    int32_t last_sequence = 0;
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    int64_t max_timestamp = -1;
};

struct ProducerEntry {
    int16_t epoch = -1;
    std::deque<ProducerBatch> batches;  // oldest first, at most kProducerBatchesKept
    // Transactions: the coordinator epoch of the last marker (-1: none yet) and the first offset
    // of the producer's open transaction in this partition (-1: none).
    int32_t coordinator_epoch = -1;
    int64_t current_txn_first_offset = -1;
};

enum class SequenceVerdict {
    append,
    duplicate,
    out_of_order_sequence,
    invalid_producer_epoch,
    invalid_txn_state,  // a non-transactional batch while the producer has an open transaction
    transaction_coordinator_fenced  // a marker with an older coordinator epoch
};

struct SequenceCheck {
    SequenceVerdict verdict = SequenceVerdict::append;
    ProducerBatch duplicate_of;  // when verdict == duplicate
    std::string message;         // why a batch was refused
};

class ProducerState {
  public:
    using Entries = std::map<int64_t, ProducerEntry>;

    // What appending `batch` would mean. Batches with producer_id < 0 are always `append`.
    // `check_sequence` false (batches the group coordinator writes): only the epoch and the
    // transaction state are checked, never duplicates or sequence gaps (Kafka's
    // AppendOrigin.COORDINATOR).
    SequenceCheck check(const protocol::BatchSummary& batch, bool check_sequence = true) const;
    // Whether a transaction marker of (producer, epoch, coordinator epoch) may be appended
    // (Kafka's ProducerAppendInfo.appendEndTxnMarker): `append`, invalid_producer_epoch or
    // transaction_coordinator_fenced.
    SequenceCheck check_marker(int64_t producer_id, int16_t epoch, int32_t coordinator_epoch) const;
    // Applies a marker appended at `offset`: the producer takes its epoch and coordinator epoch
    // and its open transaction closes. Returns the first offset of the transaction it closed,
    // nullopt when the producer had none open.
    std::optional<int64_t> complete_txn(int64_t producer_id, int16_t epoch,
                                        int32_t coordinator_epoch);
    // First offset of the oldest open transaction, if any (Kafka's firstUnstableOffset).
    std::optional<int64_t> first_unstable_offset() const {
        if (open_txns_.empty())
            return std::nullopt;
        return open_txns_.begin()->first;
    }
    // Same, ignoring `producer_id`'s own transaction (the LSO stored with an abort).
    std::optional<int64_t> first_unstable_offset_except(int64_t producer_id) const;
    // Open transactions: first offset -> producer id.
    const std::map<int64_t, int64_t>& open_txns() const { return open_txns_; }
    // Records an appended batch whose first offset is `first_offset`.
    void record(const protocol::BatchSummary& batch, int64_t first_offset);
    // Same, from a batch header read back from the log (recovery).
    void record(const protocol::BatchHeader& header);

    const Entries& entries() const { return entries_; }
    // Also reopens the transactions the entries hold open.
    void restore(Entries entries);
    void clear() {
        entries_.clear();
        open_txns_.clear();
    }

  private:
    void record(int64_t producer_id, int16_t epoch, const ProducerBatch& batch, bool transactional);

    Entries entries_;
    std::map<int64_t, int64_t> open_txns_;
};

// The last sequence of a batch with `records` offsets starting at `first_sequence` (wraps).
int32_t last_sequence_of(int32_t first_sequence, int32_t last_offset_delta);

}  // namespace skiff::storage
