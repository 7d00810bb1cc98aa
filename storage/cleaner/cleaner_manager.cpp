#include "storage/cleaner/cleaner_manager.h"

#include <algorithm>
#include <limits>

namespace skiff::storage {

namespace {

// Kafka's max.compaction.lag.ms rule: some record of the dirty section is older than the lag.
// The time index answers it: the first offset with a timestamp at or after now - lag is past the
// first dirty offset (or no record is that recent).
bool lag_exceeded(const PartitionLog& log, const LogConfig& config, int64_t first_dirty,
                  int64_t now_ms) {
    if (config.max_compaction_lag_ms == std::numeric_limits<int64_t>::max() ||
        config.max_compaction_lag_ms > now_ms)
        return false;
    auto recent = log.offset_for_timestamp(now_ms - config.max_compaction_lag_ms);
    return !recent || recent->offset > first_dirty;
}

}  // namespace

CleanerManager::CleanerManager(LogManager& logs, CleanerSettings settings, Clock clock)
    : logs_(logs), settings_(std::move(settings)), clock_(std::move(clock)) {
    // A corrupt file only costs work: every log is then cleaned from its start again.
    if (auto read = read_checkpoint(logs_.log_dir() / kCleanerOffsetCheckpoint))
        checkpoints_ = std::move(*read);
}

CleanerManager::~CleanerManager() {
    stop();
}

void CleanerManager::start() {
    if (!settings_.enable || !threads_.empty())
        return;
    for (int i = 0; i < settings_.threads; ++i)
        threads_.emplace_back([this] { run(); });
}

void CleanerManager::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stop_flag_ = true;
    wake_.notify_all();
    for (auto& t : threads_)
        t.join();
    threads_.clear();
}

void CleanerManager::run() {
    while (true) {
        const bool cleaned = clean_once().has_value();
        std::unique_lock lock(mutex_);
        if (stopping_)
            return;
        if (!cleaned)
            wake_.wait_for(lock, std::chrono::milliseconds(settings_.backoff_ms),
                           [this] { return stopping_; });
        if (stopping_)
            return;
    }
}

std::optional<CleanerManager::Candidate> CleanerManager::take_dirtiest(int64_t now_ms) {
    std::optional<Candidate> best;
    double best_ratio = -1;
    std::lock_guard lock(mutex_);
    for (const auto& tp : logs_.partitions()) {
        if (cleaning_.count(tp))
            continue;
        if (auto failed = failed_until_.find(tp); failed != failed_until_.end()) {
            if (now_ms < failed->second)
                continue;
            failed_until_.erase(failed);
        }
        PartitionLog* log = logs_.get(tp);
        if (!log)
            continue;
        const LogConfig config = log->config();
        if (!config.cleanup_compact)
            continue;
        int64_t checkpoint = 0;
        if (auto it = checkpoints_.find(tp); it != checkpoints_.end())
            checkpoint = it->second;
        if (checkpoint < log->log_start_offset() || checkpoint > log->log_end_offset())
            checkpoint = log->log_start_offset();
        const CleanableInfo info = cleanable_info(*log, checkpoint, now_ms);
        if (info.dirty_bytes <= 0)
            continue;
        const bool due = info.dirty_ratio >= config.min_cleanable_dirty_ratio ||
                         lag_exceeded(*log, config, info.first_dirty_offset, now_ms);
        if (due && info.dirty_ratio > best_ratio) {
            best_ratio = info.dirty_ratio;
            best = Candidate{tp, log, info.first_dirty_offset};
        }
    }
    if (best)
        cleaning_.insert(best->tp);
    return best;
}

std::optional<TopicPartition> CleanerManager::clean_once() {
    const int64_t now_ms = now();
    auto candidate = take_dirtiest(now_ms);
    if (!candidate)
        return std::nullopt;
    auto result =
        clean_log(*candidate->log, candidate->first_dirty, settings_.config, now_ms, &stop_flag_);
    finish(*candidate, result);
    if (!result)
        return std::nullopt;
    return candidate->tp;
}

void CleanerManager::finish(const Candidate& c, const Expected<CleanResult, StorageError>& result) {
    if (!result) {
        {
            std::lock_guard lock(mutex_);
            cleaning_.erase(c.tp);
            ++totals_.failures;
            failed_until_[c.tp] = now() + settings_.backoff_ms * 10;
        }
        if (settings_.on_failure && !stop_flag_)
            settings_.on_failure(c.tp, result.error());
        return;
    }
    // The file lock first: two threads finishing at once write in the order they took the state,
    // so the file never goes back to an older one.
    std::lock_guard file_lock(checkpoint_file_mutex_);
    OffsetCheckpoint to_write;
    {
        std::lock_guard lock(mutex_);
        cleaning_.erase(c.tp);
        ++totals_.passes;
        totals_.bytes_read += result->bytes_read;
        totals_.bytes_written += result->bytes_written;
        totals_.records_read += result->records_read;
        totals_.records_kept += result->records_kept;
        checkpoints_[c.tp] = result->first_dirty_offset_after;
        // Only logs that still exist: a deleted topic's entries go with it.
        for (const auto& tp : logs_.partitions())
            if (auto it = checkpoints_.find(tp); it != checkpoints_.end())
                to_write.insert(*it);
        checkpoints_ = to_write;
    }
    // A failed write only costs work after a restart (those logs are cleaned again).
    (void)write_checkpoint(logs_.log_dir() / kCleanerOffsetCheckpoint, to_write);
}

CleanerManager::Totals CleanerManager::totals() const {
    std::lock_guard lock(mutex_);
    return totals_;
}

int64_t CleanerManager::checkpoint_of(const TopicPartition& tp) const {
    std::lock_guard lock(mutex_);
    auto it = checkpoints_.find(tp);
    return it == checkpoints_.end() ? 0 : it->second;
}

}  // namespace skiff::storage
