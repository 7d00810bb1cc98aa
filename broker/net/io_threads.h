// The broker's network threads: one io_context per thread, each run by exactly that thread.
//
// A connection is pinned to one context when it is accepted (round robin), so everything it
// does (reads, handling, writes, timers) runs on one thread with no locking and no hand-over.
// One io_context shared by a pool of threads was measured to cost about 2.5 context switches per
// request (futex wake-ups as completions migrated between threads; perf profile in
// tests/bench/RESULTS.md). Work for a connection that starts on another thread (a produce waking
// a long-polling fetch, a group rebalance completing a JoinGroup) is posted to its context.
//
// Context 0 also runs signal handling and the group coordinator's timer. The acceptors run on a
// context and thread of their own, which does nothing else: Asio allocates its per-socket reactor
// state in the thread that accepts, and pools it for ever. Kept apart in that thread's malloc
// arena, those blocks are packed together; accepted on context 0 they were interleaved with the
// state of context 0's connections, and after 10,000 connections closed they kept 18-32 MB of
// freed pages resident that malloc_trim could not return.
#pragma once

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace skiff::broker {

class IoThreads {
  public:
    explicit IoThreads(int count);

    // The context for signals and broker-wide timers.
    asio::io_context& main() { return *contexts_.front(); }
    // The context for the acceptors only (see above).
    asio::io_context& acceptors() { return *acceptors_; }
    // The context for the next connection (round robin). Thread-safe.
    asio::io_context& next_for_connection();

    // Runs context 0 on the calling thread and every other context (and the acceptors' context)
    // on a thread of its own; returns when all have stopped.
    void run();
    // Thread-safe: stops every context (pending handlers are abandoned).
    void stop();
    // Thread-safe: posts `task` to every context, the acceptors' one included; returns how many.
    size_t post_to_each(const std::function<void()>& task);

  private:
    using WorkGuard = asio::executor_work_guard<asio::io_context::executor_type>;
    // Declared before keep_running_, so destroyed after it: a work guard outliving its context
    // touches freed memory when it is released (the broker died of SIGBUS at exit, or when a
    // listener could not bind).
    std::vector<std::unique_ptr<asio::io_context>> contexts_;
    std::unique_ptr<asio::io_context> acceptors_;
    std::vector<WorkGuard> keep_running_;  // an idle context must not return from run()
    std::atomic<size_t> next_{0};
};

}  // namespace skiff::broker
