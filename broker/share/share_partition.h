// One share-partition's state (KIP-932's SharePartition): the start offset, and the in-flight
// records from it up to the end offset (the first offset never acquired), kept as ranges of
// offsets that share a state, a delivery count and, while acquired, an owner and a lock
// deadline. A range is what was acquired together (a fetched batch, Kafka's batch state); it is
// split only where an acknowledgement or a re-acquisition covers part of it, and neighbours
// that end up equal merge again, so the work of every operation is per range, never per record.
//
// Invariants: the ranges cover [start_offset, end_offset) exactly and without gaps; the first
// range is never acknowledged or archived (the start offset moves past such a prefix, and the
// state before it is dropped). Offsets at or after end_offset are available, delivery count 0.
//
// Not thread-safe: the manager (share_partition_manager_impl.h) locks each share-partition.
// Persistence is the manager's too: operations say which offsets they touched (a Window) and
// write_batches() gives those offsets' state as __share_group_state's state batches.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "broker/share/share_partition_manager.h"
#include "broker/share/share_state_records.h"
#include "protocol/error_code.h"

namespace skiff::broker::share {

// Kafka's RecordState (the values of ACQUIRED excepted are the ones persisted).
enum class RecordState : int8_t { available = 0, acquired = 1, acknowledged = 2, archived = 4 };

// A member of the group as the share-partitions know it: an index the manager gives each member
// id, so that ranges carry no strings (0: nobody).
using MemberRef = uint32_t;

// The offsets an operation changed, for the one state record it writes.
struct Window {
    int64_t lo = std::numeric_limits<int64_t>::max();
    int64_t hi = std::numeric_limits<int64_t>::min();
    void add(int64_t first, int64_t last) {
        lo = std::min(lo, first);
        hi = std::max(hi, last);
    }
    bool empty() const { return lo > hi; }
};

// What acquire() needs of the group's settings, and where the records go.
struct AcquireLimits {
    int32_t max_records = 0;
    int16_t delivery_count_limit = 5;
    int32_t max_record_locks = 2000;
    int64_t lock_deadline_ms = 0;
};

class SharePartition {
  public:
    explicit SharePartition(int64_t start_offset) : start_(start_offset), end_(start_offset) {}

    int64_t start_offset() const { return start_; }
    int64_t end_offset() const { return end_; }
    int64_t acquired_records() const { return acquired_; }
    int64_t available_records() const { return available_; }
    size_t range_count() const { return ranges_.size(); }
    // A lower bound of every acquired range's lock deadline (max when nothing is acquired).
    int64_t min_lock_deadline() const { return min_deadline_; }

    // See SharePartitionManager::next_fetch_offset.
    std::optional<int64_t> next_fetch_offset(int64_t read_end_offset,
                                             int32_t max_record_locks) const;
    // Acquires for `member` what is available in `batches`; appends to `out` (merging adjacent
    // ranges of one delivery count). Skip batches are archived.
    Window acquire(MemberRef member, std::span<const FetchedBatch> batches,
                   const AcquireLimits& limits, std::vector<AcquiredRecords>& out);
    // NONE, INVALID_REQUEST (malformed) or INVALID_RECORD_STATE; changes nothing.
    protocol::ErrorCode check_acknowledgements(MemberRef member,
                                               std::span<const AcknowledgementBatch> batches,
                                               int64_t now_ms) const;
    // Applies acknowledgements that check_acknowledgements() accepted. `durable` is set when
    // something besides lock renewals changed (a renewal is not persisted: locks never are).
    Window acknowledge(std::span<const AcknowledgementBatch> batches, int16_t delivery_count_limit,
                       int64_t renewed_deadline_ms, bool& durable);
    // Releases what `member` holds: available again, or archived at the delivery count limit.
    Window release(MemberRef member, int16_t delivery_count_limit);
    // The same for every lock whose deadline is at or before `now_ms`.
    Window expire_locks(int64_t now_ms, int16_t delivery_count_limit);
    // Retention or DeleteRecords removed the records before `log_start_offset`: the start offset
    // moves up to it and the state before it goes. True when it moved.
    bool move_start_to(int64_t log_start_offset);
    // AlterShareGroupOffsets: everything forgotten, the share-partition starts at `offset`.
    void reset(int64_t offset);

    // Replay of __share_group_state: a state batch read back (acquired records were written as
    // available), then finish() once the records of a change are applied.
    void restore(const ShareStateBatch& batch);
    void finish_restore() { advance_start(); }

    // The state batches of every range that overlaps `window` (all ranges: `window` absent).
    void write_batches(const std::optional<Window>& window,
                       std::vector<ShareStateBatch>& out) const;
    // Records between the start offset and `read_end_offset` not yet acknowledged or archived.
    int64_t lag(int64_t read_end_offset) const;
    // Records from the start offset that are acknowledged or archived (Kafka's
    // DeliveryCompleteCount).
    int64_t delivery_complete() const { return (end_ - start_) - available_ - acquired_; }

  private:
    struct Range {
        int64_t last = 0;
        RecordState state = RecordState::available;
        int16_t delivery_count = 0;
        MemberRef member = 0;
        int64_t deadline_ms = 0;
        bool same_as(const Range& o) const {
            return state == o.state && delivery_count == o.delivery_count && member == o.member &&
                   deadline_ms == o.deadline_ms;
        }
    };
    using Ranges = std::map<int64_t, Range>;

    // The range holding `offset` (which must be in [start_, end_)).
    Ranges::iterator find(int64_t offset);
    Ranges::const_iterator find(int64_t offset) const;
    // Makes a range begin at `offset` (when it is inside [start_, end_)).
    void split_at(int64_t offset);
    // Appends [first, last] at the end (first == end_).
    void append(int64_t first, int64_t last, const Range& range);
    void set_state(int64_t first, Range& range, RecordState state);
    void coalesce(const Window& window);
    void advance_start();
    // A released or expired range: available again, or archived at the limit.
    void give_back(int64_t first, Range& range, int16_t delivery_count_limit);

    int64_t start_;
    int64_t end_;
    Ranges ranges_;
    int64_t available_ = 0;  // records in available ranges
    int64_t acquired_ = 0;   // records in acquired ranges
    int64_t min_deadline_ = std::numeric_limits<int64_t>::max();
};

}  // namespace skiff::broker::share
