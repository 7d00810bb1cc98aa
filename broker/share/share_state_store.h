// The persister of share-partition state (Kafka's share coordinator, in process): writes
// ShareSnapshot and ShareUpdate records (share_state_records.h) to the internal topic
// __share_group_state, each share-partition's records in the partition Kafka chooses for the key
// "group:topicId:partition", and reads them back at start-up.
//
// The topic's cleanup policy is delete, without time or size retention, as Kafka 4.x creates it:
// an update is a delta over the snapshot and the updates before it, so compaction (which keeps
// one record per key) would lose state. What bounds the topic is pruning, as Kafka's
// share.coordinator.state.topic.prune.interval.ms does: every share-partition writes a snapshot
// every share.coordinator.snapshot.update.records.per.snapshot updates, and prune() moves a
// partition's log start offset up to the oldest latest-snapshot of the share-partitions it holds
// (DeleteRecords), so replay always starts at or before every live snapshot.
//
// Thread-safety: appends to one log partition are serialized by the log; callers serialize the
// writes of one share-partition (the manager's per-share-partition lock), so each
// share-partition's records are in the log in the order of its changes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "broker/share/share_state_records.h"
#include "protocol/expected.h"
#include "protocol/record_builder.h"
#include "storage/group_commit.h"
#include "storage/partition_log.h"

namespace skiff::broker::share {

// __share_group_state's partitions, by index: those of the topic as it exists (empty when it does
// not), and a way to create it, called at the first write (as Kafka's share coordinator creates
// the topic when a share group first needs it, not at start-up).
struct ShareStateLogs {
    std::vector<storage::PartitionLog*> existing;
    std::function<Expected<std::vector<storage::PartitionLog*>, std::string>()> create;
    int32_t partitions_to_create = 50;  // share.coordinator.state.topic.num.partitions
};

class ShareStateStore {
  public:
    explicit ShareStateStore(ShareStateLogs logs) { rebind(std::move(logs)); }

    // broker/control's reset and restore: the same store over the new logs.
    void rebind(ShareStateLogs logs);
    // The topic's partitions, or the number it will be created with.
    int32_t partition_count() const { return partitions_.load(); }
    // The partition of __share_group_state for a share-partition's records, by the topic's
    // actual partition count; the topic is created first if it does not exist yet.
    Expected<int32_t, std::string> partition_for(const std::string& group_id,
                                                 const protocol::Uuid& topic_id, int32_t partition);

    // Appends one record (one batch); returns its offset in the log partition. `unsynced`: in
    // durable mode the append is not synced here but added there, for the caller to wait for
    // before it answers (handlers/group_commit_wait.h); without it, the log's flush settings
    // apply (a sync per append in durable mode).
    Expected<int64_t, std::string> write_snapshot(
        int32_t log_partition, const ShareStateKey& key, const ShareSnapshotValue& value,
        int64_t now_ms, std::vector<storage::PendingSync>* unsynced = nullptr);
    Expected<int64_t, std::string> write_update(
        int32_t log_partition, const ShareStateKey& key, const ShareUpdateValue& value,
        int64_t now_ms, std::vector<storage::PendingSync>* unsynced = nullptr);
    // Tombstones of both keys of a share-partition (its state deleted), in one batch.
    Expected<int64_t, std::string> write_tombstones(int32_t log_partition,
                                                    const std::string& group_id,
                                                    const protocol::Uuid& topic_id,
                                                    int32_t partition, int64_t now_ms);

    struct Replayed {
        int32_t log_partition = 0;
        int64_t offset = 0;  // of the record in its log partition
        ShareStateKey key;
        // One of: a snapshot, an update, neither (a tombstone).
        std::optional<ShareSnapshotValue> snapshot;
        std::optional<ShareUpdateValue> update;
    };
    // Every record of every partition, each partition in log order. Records of other types are
    // skipped (as Kafka skips unknown coordinator records); a malformed one is an error.
    Expected<void, std::string> replay(const std::function<void(const Replayed&)>& visit);

    // Moves the log start offset of `log_partition` up to `offset` (never back).
    void prune(int32_t log_partition, int64_t offset);

  private:
    Expected<int64_t, std::string> append(int32_t log_partition,
                                          std::vector<protocol::RecordSpec>& records,
                                          int64_t now_ms,
                                          std::vector<storage::PendingSync>* unsynced = nullptr);

    // The partition's log, the topic created first if it does not exist yet.
    Expected<storage::PartitionLog*, std::string> log_for(int32_t log_partition);

    ShareStateLogs source_;
    std::atomic<int32_t> partitions_{0};
    std::mutex logs_mutex_;  // guards logs_ until the topic exists
    std::atomic<bool> created_{false};
    std::vector<storage::PartitionLog*> logs_;
};

}  // namespace skiff::broker::share
