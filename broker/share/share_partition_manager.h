// Every share-partition of every share group (KIP-932; Kafka's SharePartitionManager and
// SharePartition, with the share coordinator's persister folded in): for each (group, topic,
// partition) the start offset, the in-flight records (acquired by a member until a lock
// expires, acknowledged, released, rejected, archived) and their delivery counts, kept durable
// in the internal `__share_group_state` topic as Kafka's ShareSnapshot / ShareUpdate records.
//
// ShareFetch (broker/handlers/share_fetch.cpp) asks where to read, reads the log itself (the
// same read and sendfile path as Fetch), and hands the batches it read to acquire(); the
// records go to the client as read, with the acquired offset ranges beside them (a client drops
// what it did not acquire). ShareFetch's piggy-backed acknowledgements and ShareAcknowledge call
// acknowledge(). The membership side (share_membership.h) says when a member leaves.
//
// Work is per batch of offsets, never per record where a range will do: acquisition and
// acknowledgement take ranges, and each request that changes state writes at most one record
// per share-partition to __share_group_state.
//
// Thread-safety: every public method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker/share/share_group_config.h"
#include "broker/share/share_offsets_admin.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"
#include "storage/group_commit.h"
#include "storage/topic_partition.h"

namespace skiff::broker::share {

// The __share_group_state writes of one request that durable mode appended without a sync: the
// request is answered only once they are on disk (handlers/group_commit_wait.h), so concurrent
// requests share the syncs and none holds its network thread while the disk works. In the
// default mode nothing is added.
using UnsyncedWrites = std::vector<storage::PendingSync>;

// One share-partition: a group's view of one topic partition. The topic id is what
// __share_group_state's keys carry.
struct SharePartitionKey {
    std::string group_id;
    storage::TopicPartition tp;
    protocol::Uuid topic_id;
};

// The log's bounds as the caller sees them now, for the first read of a share-partition
// (share.auto.offset.reset) and to move the start offset past retention and DeleteRecords.
struct LogBounds {
    int64_t log_start_offset = 0;
    // The end of what a share consumer may read: the high watermark, or with read_committed the
    // last stable offset.
    int64_t read_end_offset = 0;
    // share.auto.offset.reset=by_duration: the first offset with a timestamp at or after a
    // time, or nullopt when there is none (then: the end).
    std::function<std::optional<int64_t>(int64_t timestamp_ms)> offset_for_time;
};

// A batch the caller read from the log, by its offsets. `skip`: records a share consumer
// must never get (a control batch, or with read_committed an aborted transaction's): they are
// archived as they are passed, never acquired.
struct FetchedBatch {
    int64_t base_offset = 0;
    int64_t last_offset = 0;
    bool skip = false;
};

// ShareFetch's AcquiredRecords.
struct AcquiredRecords {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    int16_t delivery_count = 0;
};

// ShareAcknowledge's and ShareFetch's AcknowledgementBatch: `types` holds one type for the
// whole range, or one per offset (first..last). 0 is a gap (an offset with no record, e.g. a
// compacted one), 1 ACCEPT, 2 RELEASE, 3 REJECT, 4 RENEW (v2: extend the lock).
struct AcknowledgementBatch {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    std::vector<int8_t> types;
};

class SharePartitionManager : public ShareOffsetsAdmin {
  public:
    ~SharePartitionManager() override = default;

    // Where a fetch for this share-partition should read from: the first offset at or after the
    // start offset that is available to acquire, initialising the share-partition from
    // share.auto.offset.reset (and persisting it) on first use. nullopt when nothing can be
    // acquired now: the in-flight limit (partition_max_record_locks) is reached, or everything
    // up to bounds.read_end_offset is in flight or done.
    virtual std::optional<int64_t> next_fetch_offset(const SharePartitionKey& key,
                                                     const ShareGroupConfig& config,
                                                     const LogBounds& bounds, int64_t now_ms) = 0;

    // Acquires for `member_id` the available offsets within `batches` (in offset order, as read
    // from next_fetch_offset on), at most `max_records` of them (whole batches may overshoot
    // it, as Kafka's batch-optimized mode does), each lock expiring after
    // config.record_lock_duration_ms. Delivery counts go up by one; the change is written (one
    // record) before this returns, and synced by then unless it is in `unsynced`. Empty when
    // nothing was available. `unsynced` (acquire and acknowledge): in durable mode the write is
    // appended without a sync and added there; the caller answers only once it is on disk
    // (UnsyncedWrites).
    virtual std::vector<AcquiredRecords> acquire(const SharePartitionKey& key,
                                                 const std::string& member_id,
                                                 std::span<const FetchedBatch> batches,
                                                 int32_t max_records,
                                                 const ShareGroupConfig& config, int64_t now_ms,
                                                 UnsyncedWrites& unsynced) = 0;

    // Applies acknowledgements of this member, all or nothing per share-partition: NONE, or
    // INVALID_RECORD_STATE when any offset is not acquired by `member_id` with an unexpired
    // lock (then nothing changes), INVALID_REQUEST for malformed batches (overlapping,
    // unordered, a types array of the wrong length, an unknown type). RELEASE makes records
    // available again (archived once their delivery count reached
    // config.delivery_count_limit); REJECT archives them; ACCEPT acknowledges them; RENEW
    // extends the lock. Written (one record) before this returns, as acquire().
    virtual protocol::ErrorCode acknowledge(const SharePartitionKey& key,
                                            const std::string& member_id,
                                            std::span<const AcknowledgementBatch> batches,
                                            const ShareGroupConfig& config, int64_t now_ms,
                                            UnsyncedWrites& unsynced) = 0;

    // A member left, was fenced or closed its share session: whatever it holds is released
    // (available again, delivery counts kept), in every share-partition of the group.
    virtual void release_member(const std::string& group_id, const std::string& member_id,
                                int64_t now_ms) = 0;
    // DeleteGroups of a share group: its share-partitions' state goes (tombstones).
    virtual void delete_group(const std::string& group_id) = 0;

    // Expired acquisition locks: records become available again (or archived at the delivery
    // count limit). Run by the broker's timer.
    virtual void tick(int64_t now_ms) = 0;

    // For /metrics: per share-partition, the records in flight (acquired) and the lag.
    struct PartitionStats {
        SharePartitionKey key;
        int64_t start_offset = 0;
        int64_t in_flight = 0;
        int64_t lag = 0;
    };
    virtual std::vector<PartitionStats> stats() const = 0;
};

}  // namespace skiff::broker::share
