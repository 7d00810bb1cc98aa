// All partition logs of one log dir: <log dir>/<topic>-<partition>/ per partition, plus the
// dir-level files Kafka keeps there:
//   .kafka_cleanshutdown               present only after a clean close(); removed at open so a
//                                      later crash is noticed
//   recovery-point-offset-checkpoint   offsets up to which each log is known flushed
//   log-start-offset-checkpoint        first offset still readable in each log
// (formats in checkpoint_file.h).
//
// Every partition dir also holds partition.metadata with its topic's id (partition_metadata.h).
// open() reads them all: a file that cannot be parsed, or a partition whose id differs from its
// topic's other partitions, fails the open naming the directory (Kafka fails the log dir on an
// inconsistent topic id); a partition dir without the file (written before topic ids existed)
// gets the id of its topic's other partitions, or a new one. Partitions created later get their
// topic's id; a topic removed and created again under the same name gets a new one.
//
// A deleted topic's partition dirs are renamed to <topic>-<partition>.<n>-delete at once (so
// the topic is gone) and removed from disk by delete_removed() on the maintenance thread; a
// leftover one (crash in between) is removed at open.
//
// open() loads the partition dirs on `recovery_threads` threads (Kafka's
// num.recovery.threads.per.data.dir): each log is loaded by one thread, independently of the
// others, so the result does not depend on the number of threads. close() closes them on as
// many, as Kafka does at shutdown.
//
// Checkpoints: both files are written by checkpoint() (the maintenance thread, periodically and
// after retention deleted something), and at close(). checkpoint_recovery_points() alone is
// also written after flush_rolled() moved a recovery point, so that a crash re-validates only
// what was written since the last roll, not everything since the last periodic checkpoint.
//
// Thread-safety: get/get_or_create/partitions/remove may be called from any thread (a shared
// mutex guards the map). A removed log is closed but its object lives on for a grace period, so
// a handler that got its pointer just before the removal fails with an error, not a crash.
// Retention, flushing and checkpointing are meant for one background thread; the logs serialize
// themselves, and checkpoint writes are serialized here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/expected.h"
#include "storage/checkpoint_file.h"
#include "storage/group_commit.h"
#include "storage/log_config.h"
#include "storage/partition_log.h"
#include "storage/partition_metadata.h"
#include "storage/storage_error.h"
#include "storage/topic_partition.h"

namespace skiff::storage {

inline constexpr const char* kCleanShutdownMarker = ".kafka_cleanshutdown";

// [a-zA-Z0-9._-]{1,249}, and not "." or "..".
bool is_valid_topic_name(std::string_view topic);
// "<topic>-<partition>" back to a TopicPartition (the topic may itself contain '-').
std::optional<TopicPartition> parse_partition_dir_name(std::string_view name);

class LogManager {
  public:
    static Expected<std::unique_ptr<LogManager>, StorageError> open(
        const std::filesystem::path& log_dir, LogConfig defaults, Clock clock = {},
        int recovery_threads = 1);
    PartitionLog* get(const TopicPartition& tp) const;
    // A new partition gets the topic's config when set_topic_config named one, else defaults.
    Expected<PartitionLog*, StorageError> get_or_create(const TopicPartition& tp);
    // Creates partitions [from, to) of `topic`, all or nothing. The new logs are opened outside
    // the map and become visible to get() together, once every one is open. When one fails
    // (EMFILE, ENOSPC, ...), the logs opened so far are destroyed at once (their descriptors
    // freed: nothing else can hold them yet), the partition directories this call made are
    // removed, and the error names the partition that failed. Partitions already present are
    // left as they are.
    Expected<void, StorageError> create_partitions(const std::string& topic, int32_t from,
                                                   int32_t to);
    // The topic's id; nullopt when it has no partitions.
    std::optional<TopicId> topic_id(const std::string& topic) const;
    std::map<std::string, TopicId> topic_ids() const;
    // Per-topic settings: applied to the topic's open logs and to partitions created later.
    void set_topic_config(const std::string& topic, LogConfig config);
    // Forgets what set_topic_config set (a topic creation rolled back); open logs keep theirs.
    void clear_topic_config(const std::string& topic);
    const LogConfig& defaults() const { return defaults_; }
    // Closes every partition of `topic` and renames its dirs for deletion; returns how many.
    size_t remove(const std::string& topic);
    // broker/control's reset and restore: remove() of every topic at once, faster. The logs are
    // abandoned (PartitionLog::abandon: no flush, their files are going), their dirs renamed for
    // deletion and the log dir fsynced once for all the renames; they stay in removed_ for the
    // grace period like remove()'s, so a background thread holding a pointer is safe. Returns
    // the topics removed.
    std::vector<std::string> remove_all();
    // broker/control's restore: opens the partition dirs found in the log dir that have no open
    // log yet (moved in after open()), trusted as flushed up to `recovery_points` (a snapshot's
    // logs were flushed when it was taken), as open() does.
    Expected<void, StorageError> open_new_partitions(const OffsetCheckpoint& recovery_points,
                                                     const OffsetCheckpoint& log_start_offsets);
    // Deletes renamed dirs and frees removed logs whose grace period is over. Maintenance thread.
    void delete_removed();
    std::vector<TopicPartition> partitions() const;
    size_t run_retention();  // also checkpoints log start offsets when something was deleted
    void flush_due();
    struct FlushReport {
        size_t advanced = 0;              // logs whose recovery point moved
        std::vector<std::string> errors;  // flushes that failed (retried next time)
    };
    // flush_rolled() of every log with sealed segments waiting for it. Maintenance thread.
    FlushReport flush_rolled();
    Expected<void, StorageError> checkpoint();  // both files
    Expected<void, StorageError> checkpoint_recovery_points();
    Expected<void, StorageError> checkpoint_log_start_offsets();
    // What loading the logs at open cost, summed over the partitions.
    const RecoveryStats& recovery_stats() const { return recovery_stats_; }
    Expected<void, StorageError> close();
    const std::filesystem::path& log_dir() const { return log_dir_; }
    bool recovered_cleanly() const { return recovered_cleanly_; }
    // Every log now, by topic and partition (the metrics endpoint). Use a pointer within one
    // synchronous step, as handlers do: a removed topic's logs live on for delete_removed's grace.
    std::vector<std::pair<TopicPartition, PartitionLog*>> logs() const;
    // The threads that make durable-mode appends durable (storage/group_commit.h).
    GroupCommitter& group_commit() { return *group_commit_; }

  private:
    LogManager(std::filesystem::path log_dir, LogConfig defaults, Clock clock)
        : log_dir_(std::move(log_dir)), defaults_(std::move(defaults)), clock_(std::move(clock)) {}
    // The topic's id, drawn now when it has none yet.
    TopicId topic_id_or_new(const std::string& topic) const;

    std::filesystem::path log_dir_;
    LogConfig defaults_;
    Clock clock_;
    int recovery_threads_ = 1;  // also used to close the logs
    bool recovered_cleanly_ = false;
    RecoveryStats recovery_stats_;
    mutable std::shared_mutex mutex_;
    std::map<TopicPartition, std::unique_ptr<PartitionLog>> logs_;
    std::map<std::string, LogConfig> topic_configs_;  // guarded by mutex_
    std::map<std::string, TopicId> topic_ids_;        // guarded by mutex_
    struct Removed {
        std::unique_ptr<PartitionLog> log;
        std::filesystem::path renamed_dir;
        int64_t removed_at_ms = 0;
    };
    std::vector<Removed> removed_;  // guarded by mutex_
    uint64_t removals_ = 0;         // guarded by mutex_; makes renamed dir names unique
    std::mutex checkpoint_mutex_;
    // Last, so it stops before any log is freed. Four threads: a sync of one partition never
    // waits for another's, up to four partitions at once; more would only queue in the disk.
    std::unique_ptr<GroupCommitter> group_commit_ = std::make_unique<GroupCommitter>(4);
};

}  // namespace skiff::storage
