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
};

enum class SequenceVerdict { append, duplicate, out_of_order_sequence, invalid_producer_epoch };

struct SequenceCheck {
    SequenceVerdict verdict = SequenceVerdict::append;
    ProducerBatch duplicate_of;  // when verdict == duplicate
    std::string message;         // why a batch was refused
};

class ProducerState {
  public:
    using Entries = std::map<int64_t, ProducerEntry>;

    // What appending `batch` would mean. Batches with producer_id < 0 are always `append`.
    SequenceCheck check(const protocol::BatchSummary& batch) const;
    // Records an appended batch whose first offset is `first_offset`.
    void record(const protocol::BatchSummary& batch, int64_t first_offset);
    // Same, from a batch header read back from the log (recovery).
    void record(const protocol::BatchHeader& header);

    const Entries& entries() const { return entries_; }
    void restore(Entries entries) { entries_ = std::move(entries); }
    void clear() { entries_.clear(); }

  private:
    void record(int64_t producer_id, int16_t epoch, const ProducerBatch& batch);

    Entries entries_;
};

// The last sequence of a batch with `records` offsets starting at `first_sequence` (wraps).
int32_t last_sequence_of(int32_t first_sequence, int32_t last_offset_delta);

}  // namespace skiff::storage
