// PartitionLog group commit: durable mode's syncs and their waiters (partition_log.h,
// storage/group_commit.h).
#include "storage/partition_log.h"
#include "storage/sync_timing.h"

namespace skiff::storage {

void PartitionLog::when_durable(int64_t end, SyncDone done) {
    bool closed = false;
    {
        std::lock_guard lock(waiters_mutex_);
        if (durable_end_.load() < end) {
            // A log closes with everything flushed; one still short of `end` failed to.
            closed = closed_;
            if (!closed) {
                sync_waiters_.push_back({end, std::move(done)});
                return;
            }
        }
    }
    if (closed)
        done(unexpected(
            StorageError{StorageErrc::io_error, dir_.string() + " closed before it was synced"}));
    else
        done({});
}

void PartitionLog::sync_appended() {
    std::lock_guard sync(sync_mutex_);
    sync_appended_locked();
}

void PartitionLog::sync_appended_locked() {
    if (closed_)
        return;  // close() flushed everything and completed the waiters
    const Snapshot snap = snapshot();
    const int64_t target = snap.high_watermark;  // everything appended so far
    const int64_t from = durable_end_.load();
    if (target <= from) {
        mark_durable(target);
        return;
    }
    Expected<void, StorageError> synced;
    {
        SyncTimer timer(SyncKind::log_flush);
        // The .log files only: an acknowledged batch must survive, and recovery rebuilds the
        // indexes above the recovery point from the .log (partition_log.h).
        const SegmentSet& set = *snap.segments;
        for (size_t i = set.floor(from).value_or(0); i < set.size() && synced; ++i) {
            auto file = set[i]->file();
            synced =
                file ? (*file)->sync() : Expected<void, StorageError>(unexpected(file.error()));
        }
        // A roll since the last sync created a segment file: its directory entry too, or the
        // synced bytes could be in a file that a power cut removes.
        const int64_t active_base = set.active()->base_offset();
        if (synced && active_base != dir_synced_base_) {
            synced = sync_dir();
            if (synced)
                dir_synced_base_ = active_base;
        }
    }
    if (!synced) {
        fail_durable_waiters(synced.error());
        return;
    }
    mark_durable(target);
}

void PartitionLog::mark_durable(int64_t end) {
    advance(durable_end_, end);
    const int64_t durable = durable_end_.load();
    if (durable_mode_) {
        std::lock_guard lock(state_mutex_);
        state_.durable_end = std::max(state_.durable_end, durable);
    }
    std::vector<SyncWaiter> covered;
    {
        std::lock_guard lock(waiters_mutex_);
        auto split = std::partition(sync_waiters_.begin(), sync_waiters_.end(),
                                    [&](const SyncWaiter& w) { return w.end > durable; });
        covered.assign(std::make_move_iterator(split),
                       std::make_move_iterator(sync_waiters_.end()));
        sync_waiters_.erase(split, sync_waiters_.end());
    }
    for (auto& w : covered)
        w.done({});
}

void PartitionLog::fail_durable_waiters(const StorageError& error) {
    std::vector<SyncWaiter> failed;
    {
        std::lock_guard lock(waiters_mutex_);
        failed.swap(sync_waiters_);
    }
    for (auto& w : failed)
        w.done(unexpected(error));
}

}  // namespace skiff::storage
