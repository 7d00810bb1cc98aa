// Long polling for Fetch: a fetch that found too little data parks here until a produce makes
// data available on one of the partitions it reads, or its max_wait_ms runs out.
//
// A waiter is a steady_timer owned by the fetching connection and only touched on that
// connection's I/O thread; notify() may be called from any thread and posts the wake-up onto the
// waiter's executor, so timers are never used from two threads at once.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace skiff::broker {

class PartitionWaiters {
  public:
    // Shared between the fetch coroutine and the registry; `woken` is set before the cancel so a
    // notify that lands between two checks of the fetch loop is not lost.
    struct Waiter {
        explicit Waiter(const asio::any_io_executor& ex) : timer(ex) {}
        asio::steady_timer timer;
        bool woken = false;  // only read/written on the timer's executor
    };

    // Registers `waiter` for every partition key (see key()). Returns a token for remove().
    void add(const std::vector<std::string>& keys, const std::shared_ptr<Waiter>& waiter);
    void remove(const std::vector<std::string>& keys, const std::shared_ptr<Waiter>& waiter);
    // Wakes every waiter registered on this partition.
    void notify(const std::string& key);
    // Ends every long poll now (a waiter checks released() and stops waiting): the control API
    // does this before a reset or restore, so that no fetch is left reading the old state.
    void release_all();
    uint64_t releases() const { return releases_.load(std::memory_order_acquire); }

    static std::string key(const std::string& topic, int32_t partition);

  private:
    std::mutex mutex_;
    std::atomic<uint64_t> releases_{0};
    std::unordered_map<std::string, std::vector<std::weak_ptr<Waiter>>> by_partition_;
};

}  // namespace skiff::broker
