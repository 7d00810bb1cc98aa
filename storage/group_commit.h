// Group commit for durable mode (flush.messages=1): the threads that fdatasync partitions whose
// appends are waiting to be acknowledged.
//
// A produce handler appends (PartitionLog::append with Durability::group_commit), registers a
// completion with PartitionLog::when_durable and asks for a sync here. One of these threads
// then runs PartitionLog::sync_appended(), which makes everything appended so far durable with
// one fdatasync per segment file and completes every waiter it covers. Produce requests that
// arrive while that fdatasync runs are appended meanwhile (appends never wait for the disk) and
// are covered by the next sync of the partition, which starts as soon as this one ends: under
// load each fdatasync acknowledges as many requests as arrived during the previous one, instead
// of each request paying for its own.
//
// Several threads so that one slow partition does not hold up the others; a partition is synced
// by one thread at a time (the log's own sync lock).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

namespace skiff::storage {

class PartitionLog;

// An append that durable mode wrote but has not synced yet: whoever answers for it waits until
// `log` is durable below `end` (PartitionLog::when_durable, then request() here).
struct PendingSync {
    PartitionLog* log = nullptr;
    int64_t end = -1;  // the offset after the append's last one
};

class GroupCommitter {
  public:
    explicit GroupCommitter(size_t threads);
    ~GroupCommitter();  // stops the threads; syncs not yet started are dropped
    GroupCommitter(const GroupCommitter&) = delete;
    GroupCommitter& operator=(const GroupCommitter&) = delete;

    // Queues a sync of `log` (once: a log already queued is not queued twice).
    void request(PartitionLog* log);
    // Removes `log` from the queue and waits until no thread is syncing it, before it is freed.
    void forget(PartitionLog* log);

  private:
    void run();

    std::mutex mutex_;
    std::condition_variable work_;
    std::condition_variable idle_;  // a sync ended (forget waits on it)
    std::deque<PartitionLog*> queue_;
    std::unordered_set<PartitionLog*> queued_;
    std::unordered_multiset<PartitionLog*> syncing_;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace skiff::storage
