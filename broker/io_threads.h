// The broker's network threads: one io_context per thread, each run by exactly that thread.
//
// A connection is pinned to one context when it is accepted (round robin), so everything it
// does (reads, handling, writes, timers) runs on one thread with no locking and no hand-over.
// One io_context shared by a pool of threads was measured to cost about 2.5 context switches per
// request (futex wake-ups as completions migrated between threads; perf profile in
// tests/bench/RESULTS.md). Work for a connection that starts on another thread (a produce waking
// a long-polling fetch, a group rebalance completing a JoinGroup) is posted to its context.
//
// Context 0 also runs the acceptors, signal handling and the group coordinator's timer.
#pragma once

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <memory>
#include <vector>

namespace skiff::broker {

class IoThreads {
  public:
    explicit IoThreads(int count);

    // The context for acceptors, signals and broker-wide timers.
    asio::io_context& main() { return *contexts_.front(); }
    // The context for the next connection (round robin). Thread-safe.
    asio::io_context& next_for_connection();

    // Runs context 0 on the calling thread and every other context on a thread of its own;
    // returns when all have stopped.
    void run();
    // Thread-safe: stops every context (pending handlers are abandoned).
    void stop();

  private:
    using WorkGuard = asio::executor_work_guard<asio::io_context::executor_type>;
    std::vector<std::unique_ptr<asio::io_context>> contexts_;
    std::vector<WorkGuard> keep_running_;  // an idle context must not return from run()
    std::atomic<size_t> next_{0};
};

}  // namespace skiff::broker
