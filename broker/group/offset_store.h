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
// Durability: commit() returns only after the append returned (the bytes are in the page cache,
// which survives a process kill; fsync follows log.flush.* like any partition).
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

#include "protocol/expected.h"
#include "storage/partition_log.h"
#include "storage/topic_partition.h"

namespace skiff::broker::group {

inline constexpr const char* kOffsetsTopic = "__consumer_offsets";

struct CommittedOffset {
    int64_t offset = -1;
    int32_t leader_epoch = -1;
    std::string metadata;
    int64_t commit_timestamp_ms = 0;
};

using GroupOffsets = std::map<storage::TopicPartition, CommittedOffset>;

class OffsetStore {
  public:
    // Replays `log` (already opened by the log manager) and writes a start-up snapshot.
    static Expected<std::unique_ptr<OffsetStore>, std::string> open(storage::PartitionLog& log,
                                                                    storage::LogConfig base);

    // Appends the commits, then applies them. Errors leave memory unchanged.
    Expected<void, std::string> commit(const std::string& group, const GroupOffsets& offsets);
    // Writes tombstones for these partitions of the group (all of them when `which` is empty).
    Expected<size_t, std::string> remove(const std::string& group,
                                         const std::vector<storage::TopicPartition>& which = {});
    // Removes every offset for which expired(group, offset) is true. Returns how many.
    size_t expire(const std::function<bool(const std::string&, const CommittedOffset&)>& expired);

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
        : log_(log), base_(std::move(base)) {}
    struct Entry {
        std::string group;
        storage::TopicPartition tp;
        std::optional<CommittedOffset> value;  // nullopt: tombstone
    };
    Expected<void, std::string> replay();
    Expected<void, std::string> append_locked(const std::vector<Entry>& entries);
    Expected<void, std::string> snapshot_locked();
    void apply_locked(const Entry& e);

    storage::PartitionLog& log_;
    storage::LogConfig base_;
    mutable std::mutex mutex_;
    std::map<std::string, GroupOffsets> offsets_;
    int64_t bytes_since_snapshot_ = 0;
    int64_t segment_bytes_ = 0;
    int64_t snapshots_written_ = 0;
};

}  // namespace skiff::broker::group
