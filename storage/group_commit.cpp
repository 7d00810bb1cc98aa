#include "storage/group_commit.h"

#include <algorithm>

#include "storage/partition_log.h"

namespace skiff::storage {

GroupCommitter::GroupCommitter(size_t threads) {
    threads_.reserve(threads);
    for (size_t i = 0; i < std::max<size_t>(threads, 1); ++i)
        threads_.emplace_back([this] { run(); });
}

GroupCommitter::~GroupCommitter() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_.notify_all();
    for (auto& t : threads_)
        t.join();
}

void GroupCommitter::request(PartitionLog* log) {
    {
        std::lock_guard lock(mutex_);
        if (!queued_.insert(log).second)
            return;
        queue_.push_back(log);
    }
    work_.notify_one();
}

void GroupCommitter::forget(PartitionLog* log) {
    std::unique_lock lock(mutex_);
    if (queued_.erase(log) > 0)
        queue_.erase(std::find(queue_.begin(), queue_.end(), log));
    idle_.wait(lock, [&] { return syncing_.count(log) == 0; });
}

void GroupCommitter::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_)
            return;
        PartitionLog* log = queue_.front();
        queue_.pop_front();
        // Taken off the queue before the sync starts: a request made during it queues the next.
        queued_.erase(log);
        syncing_.insert(log);
        lock.unlock();
        log->sync_appended();
        lock.lock();
        syncing_.erase(syncing_.find(log));
        idle_.notify_all();
    }
}

}  // namespace skiff::storage
