// Committed consumer offsets, kept in memory and made durable in an internal log, as Kafka does
// with __consumer_offsets (one partition here: one broker needs no spreading of the load).
//
// Records in Kafka's format (offset_records.h), so its tools could read the log, in uncompressed
// batches v2.
//
// Why snapshots instead of compaction: skiff's storage has retention by size but no cleaner.
// Every time half a segment's worth of commits has been written since the last snapshot, the
// store appends one batch set holding every live offset (a snapshot is just ordinary commit
// records, appended in one PartitionLog::append so it sits inside one segment). The log is
// configured with retention.bytes = 2 x segment.bytes and no time retention: what retention
// keeps is always at least one whole snapshot plus everything after it, so replaying the kept
// log from its start rebuilds exactly the current state, and the log stays below about three
// segments. The segment size grows with the snapshot so a snapshot never fills a segment.
// A snapshot is also written at start-up, since the bytes since the last one are not known.
//
// Transactional commits (TxnOffsetCommit): the offsets are written as one transactional batch
// (attributes 0x10, the producer's id and epoch, base sequence -1, appended with the coordinator
// origin) and kept pending per producer id until the transaction's marker: complete_transaction()
// appends the control batch, then applies (COMMIT) or drops (ABORT) every pending offset of that
// producer, in every group. A committed pending offset replaces the current one only if it was
// written later in the log (Kafka keeps the newer record). Replay rebuilds pending offsets from
// transactional batches and settles them at the control batches that follow. A snapshot writes,
// in one append: the committed offsets older than a pending one of the same partition, then each
// producer's pending offsets as a transactional batch of its id and epoch, then the other
// committed offsets; so retention never loses an open transaction's offsets and their order
// against plain commits is kept (up to two producers with pending offsets for one partition,
// whose relative order is then that of their first pending write).
//
// Group state (Kafka's GroupMetadata record, type 2, and the consumer group records, types 3 to 8
// and 16) lives in the same log: the coordinator stages each change of a group as records
// (record_codec.h; a null value deletes its key), write_staged() appends what was staged in the
// order it was staged, dropping a record equal to the value the store holds for its key, and the
// store keeps the latest value of every key, by group, for snapshots and for the coordinator to
// restore its groups at start-up. Kafka compacts __consumer_offsets to the latest record of each
// key; here snapshots do the same: the kept log always holds the latest value of every live key
// and nothing of a deleted one. Staging is cheap and may happen under the coordinator's lock;
// writing happens outside it, and staging order is log order because one writer at a time
// drains the queue under the store's mutex.
//
// Durability: commit() returns only after the append returned (the bytes are in the page cache,
// which survives a process kill; fsync follows log.flush.* like any partition). In durable mode
// (the log's flush.messages=1) commit() and commit_transactional() append without waiting for
// the disk, as a produce does, and return the PendingSync their caller waits for before it
// answers (broker/handlers/group_commit_wait.h): concurrent commits share one fdatasync, and
// neither a network thread nor this store's mutex is held while the disk works. Group records
// (write_staged) are appended the same way and their sync is asked of the group-commit threads
// but not waited for: a member's answer comes from the coordinator's memory, and what a power
// cut can take back is the last membership change, whose members are then fenced and rejoin (an
// offset commit, which is waited for, is synced with every group record before it). Markers
// without a waiting request and snapshots still flush on the appending thread. A plain commit
// is applied in memory when appended, so an OffsetFetch may see it before it is synced; what a
// power cut can then take away is a commit that was never acknowledged, and the consumer that
// read it resumes from the older one (at-least-once, as ever). A transactional commit stays
// pending until its marker, which is synced before it is applied.
//
// Thread-safe: one mutex serializes appends and the in-memory map, so the map always reflects
// the log in order. Appends are short positional writes, as on the produce path.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "broker/group/record_codec.h"
#include "protocol/expected.h"
#include "storage/group_commit.h"
#include "storage/partition_log.h"
#include "storage/topic_partition.h"

namespace skiff::broker::group {

inline constexpr const char* kOffsetsTopic = "__consumer_offsets";

struct CommittedOffset {
    int64_t offset = -1;
    int32_t leader_epoch = -1;
    std::string metadata;
    int64_t commit_timestamp_ms = 0;
    int64_t record_offset = -1;  // where in the log it was written (set by the store)
};

using GroupOffsets = std::map<storage::TopicPartition, CommittedOffset>;

// The latest value of every key of each group, by group id, then key.
using GroupRecordMap = std::map<std::string, std::map<std::string, std::string>>;

class OffsetStore {
  public:
    // Replays `log` (already opened by the log manager) and writes a start-up snapshot.
    static Expected<std::unique_ptr<OffsetStore>, std::string> open(storage::PartitionLog& log,
                                                                    storage::LogConfig base);

    // broker/control's reset and restore: forgets everything (offsets, pending transactional
    // offsets, group records, staged records) and loads `log` instead, as open() does. The
    // coordinator's groups must be cleared first (GroupCoordinator::clear_groups), or a tick
    // would stage their records again. A write racing with this goes to the old log or is
    // dropped with the staged queue: both mutexes are held while the store switches logs.
    Expected<void, std::string> reopen(storage::PartitionLog& log);

    // In durable mode, the append the caller waits for before it answers; else nothing.
    using Unsynced = std::optional<storage::PendingSync>;

    // Appends the commits, then applies them. Errors leave memory unchanged.
    Expected<Unsynced, std::string> commit(const std::string& group, const GroupOffsets& offsets);
    // Writes tombstones for these partitions of the group (all of them when `which` is empty).
    Expected<size_t, std::string> remove(const std::string& group,
                                         const std::vector<storage::TopicPartition>& which = {});
    // Removes every offset for which expired(group, offset) is true. Returns how many.
    size_t expire(const std::function<bool(const std::string&, const CommittedOffset&)>& expired);

    // TxnOffsetCommit: appends `offsets` as one transactional batch of (producer_id,
    // producer_epoch) and keeps them pending for that producer. Errors leave memory unchanged
    // (invalid_producer_epoch: the log knows a newer epoch of this producer).
    Expected<Unsynced, storage::StorageError> commit_transactional(const std::string& group,
                                                                   int64_t producer_id,
                                                                   int16_t producer_epoch,
                                                                   const GroupOffsets& offsets);
    // Appends the transaction marker to the log, then applies (commit) or drops (abort) every
    // pending offset of this producer. A producer without pending offsets still gets the marker.
    // With Durability::group_commit in durable mode the marker comes back unsynced, as a plain
    // commit does (its offsets are applied at once, one sync early); the transaction
    // coordinator waits for it before it records the transaction complete.
    Expected<Unsynced, storage::StorageError> complete_transaction(
        int64_t producer_id, int16_t producer_epoch, int32_t coordinator_epoch, bool commit,
        storage::Durability durability = storage::Durability::flush_settings);
    // Whether a transactional commit for (group, tp) waits for its transaction's marker.
    bool has_pending(const std::string& group, const storage::TopicPartition& tp) const;
    // Producer ids with pending offsets (for tests and tooling).
    std::vector<int64_t> pending_producers() const;

    // Queues records of `group`'s state for write_staged(). `erase_group`: first delete every key
    // the store holds for the group (a deleted or converted group).
    void stage(const std::string& group, GroupRecords records, bool erase_group = false);
    // Appends everything staged so far, in staging order, without the records that would not
    // change a key's value. On an error nothing of the drained queue is kept as written: the
    // coordinator stages a group's whole state again at its next change (see
    // GroupCoordinator::persist_locked).
    Expected<void, std::string> write_staged();
    // Durable mode: write_staged() leaves its append to a sync it asks `committer` for, instead of
    // fdatasyncing on the calling thread (a network thread, for most group requests). Set once,
    // before any request; unset (tests, tools) the records flush as the log's settings say.
    void set_group_committer(storage::GroupCommitter* committer) { committer_ = committer; }
    GroupRecordMap group_records() const;
    // Group records skipped at replay because their key could not be read.
    int64_t unreadable_group_records() const;

    std::optional<CommittedOffset> get(const std::string& group,
                                       const storage::TopicPartition& tp) const;
    GroupOffsets group_offsets(const std::string& group) const;
    std::vector<std::string> groups() const;
    size_t size() const;
    int64_t snapshots_written() const;

    // Bytes written since the last snapshot after which a new one is due: half a segment.
    int64_t snapshot_threshold_bytes() const;

  private:
    OffsetStore(storage::PartitionLog& log, storage::LogConfig base)
        : log_(&log), base_(std::move(base)) {}
    struct Entry {
        std::string group;
        storage::TopicPartition tp;
        std::optional<CommittedOffset> value;  // nullopt: tombstone
    };
    // The offsets of one producer's open transaction, by group.
    struct PendingTxn {
        int16_t producer_epoch = -1;
        int64_t first_record_offset = -1;
        std::map<std::string, GroupOffsets> groups;
    };
    // Entries to write as batches: plain (producer_id -1) or transactional.
    struct Run {
        int64_t producer_id = -1;
        int16_t producer_epoch = -1;
        std::vector<Entry> entries;
        GroupRecords group_records;  // written before the entries (plain runs only)
    };
    struct Staged {
        std::string group;
        GroupRecords records;
        bool erase_group = false;
    };
    Expected<void, std::string> replay();
    // open()'s work after construction: the log's config, the replay, the start-up snapshot.
    Expected<void, std::string> load();
    // Appends the runs in one PartitionLog::append; sets each entry's value's record_offset.
    // Durability::group_commit: in durable mode, not synced here (the result says what to wait
    // for); flush_settings flushes as the log's settings say.
    Expected<Unsynced, storage::StorageError> append_locked(
        std::vector<Run>& runs,
        storage::Durability durability = storage::Durability::flush_settings);
    Expected<void, std::string> append_plain_locked(std::vector<Entry>& entries);
    Expected<void, std::string> snapshot_locked();
    void apply_locked(const Entry& e);
    void add_pending_locked(int64_t producer_id, int16_t producer_epoch, const Entry& e);
    void settle_locked(int64_t producer_id, bool commit);
    bool has_pending_locked(const std::string& group, const storage::TopicPartition& tp) const;

    storage::PartitionLog* log_;  // a pointer, not a reference: reopen() changes it
    storage::LogConfig base_;
    storage::GroupCommitter* committer_ = nullptr;
    mutable std::mutex mutex_;
    std::map<std::string, GroupOffsets> offsets_;
    std::map<int64_t, PendingTxn> pending_;  // by producer id
    GroupRecordMap group_records_;
    int64_t unreadable_group_records_ = 0;
    std::mutex staged_mutex_;  // after mutex_ when both are held
    std::vector<Staged> staged_;
    int64_t bytes_since_snapshot_ = 0;
    int64_t segment_bytes_ = 0;
    int64_t snapshots_written_ = 0;
};

}  // namespace skiff::broker::group
