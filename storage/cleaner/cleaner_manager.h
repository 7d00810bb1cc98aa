// When and which log the cleaner compacts (Kafka's LogCleaner threads and LogCleanerManager).
//
// log.cleaner.threads threads each take, in turn, the compacted log (cleanup.policy containing
// compact) with the highest dirty ratio among those that are due, mark it in progress so no other
// thread takes it, clean it once (clean_log) and record where its dirty section now starts in
// <log dir>/cleaner-offset-checkpoint (Kafka's file and format, checkpoint_file.h). A log is due
// when its dirty ratio reaches min.cleanable.dirty.ratio, or, with max.compaction.lag.ms set, when
// its oldest uncleaned record is older than that. With nothing due a thread sleeps
// log.cleaner.backoff.ms (stop() wakes it).
//
// A checkpoint below the log start offset (retention, DeleteRecords) or above the log end moves to
// the log start, as Kafka does. Entries of logs that no longer exist are dropped at the next write.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "storage/checkpoint_file.h"
#include "storage/cleaner/log_cleaner.h"
#include "storage/log_config.h"
#include "storage/log_manager.h"

namespace skiff::storage {

inline constexpr const char* kCleanerOffsetCheckpoint = "cleaner-offset-checkpoint";

struct CleanerSettings {
    bool enable = true;          // log.cleaner.enable
    int threads = 1;             // log.cleaner.threads
    int64_t backoff_ms = 15000;  // log.cleaner.backoff.ms
    CleanerConfig config;        // buffers and I/O limit, per thread
    // Told about a failed pass (the broker logs it). The log is skipped for backoff_ms * 10, so
    // one broken log does not keep the threads from the others (Kafka marks it uncleanable).
    std::function<void(const TopicPartition&, const StorageError&)> on_failure;
};

class CleanerManager {
  public:
    // Reads the checkpoint file of logs.log_dir() (a missing file: nothing cleaned yet).
    CleanerManager(LogManager& logs, CleanerSettings settings, Clock clock = {});
    ~CleanerManager();
    CleanerManager(const CleanerManager&) = delete;
    CleanerManager& operator=(const CleanerManager&) = delete;

    // Starts the threads (none when disabled or threads == 0). stop() interrupts a pass in
    // progress (its .cleaned files are removed) and joins them; the destructor calls it.
    void start();
    void stop();

    // One cleaning pass of the dirtiest due log on the calling thread (tests, tools): the
    // partition cleaned, or nullopt when none was due or the pass failed.
    std::optional<TopicPartition> clean_once();

    struct Totals {
        int64_t passes = 0;
        int64_t failures = 0;
        int64_t bytes_read = 0;
        int64_t bytes_written = 0;
        int64_t records_read = 0;
        int64_t records_kept = 0;
    };
    Totals totals() const;
    // The first dirty offset recorded for `tp` (0 when never cleaned).
    int64_t checkpoint_of(const TopicPartition& tp) const;

  private:
    struct Candidate {
        TopicPartition tp;
        PartitionLog* log = nullptr;
        int64_t first_dirty = 0;
    };
    std::optional<Candidate> take_dirtiest(int64_t now_ms);  // marks it in progress
    void finish(const Candidate& c, const Expected<CleanResult, StorageError>& result);
    void run();
    int64_t now() const { return clock_ ? clock_() : wall_clock_ms(); }

    LogManager& logs_;
    CleanerSettings settings_;
    Clock clock_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    OffsetCheckpoint checkpoints_;                    // guarded by mutex_
    std::set<TopicPartition> cleaning_;               // guarded by mutex_
    std::map<TopicPartition, int64_t> failed_until_;  // guarded by mutex_
    Totals totals_;                                   // guarded by mutex_
    bool stopping_ = false;                           // guarded by mutex_
    std::atomic<bool> stop_flag_{false};
    std::mutex checkpoint_file_mutex_;  // one writer of the file at a time
    std::vector<std::thread> threads_;
};

}  // namespace skiff::storage
