// queued.max.request.bytes: a byte budget, shared by every I/O thread, for the requests the
// broker has read (or is reading) but not yet answered. A connection reserves a request's bytes
// as soon as it knows the frame's size and before it allocates a buffer for it, and gives them
// back when the request has been handled. When the budget is spent, connections stop reading
// (backpressure through TCP) until earlier requests finish; nothing is refused.
//
// Waiters are served strictly first come, first served, so a large request cannot be starved by a
// stream of small ones. A request larger than the whole budget is admitted when nothing else is
// outstanding: it is slow, but it cannot deadlock. A connection holds at most one reservation
// and never waits while holding one, so the budget always drains.
//
// Thread-safe. The fast path (budget available, nobody waiting) is one compare-and-swap; only
// waiting takes the mutex.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace skiff::broker {

class RequestBudget {
  public:
    // limit < 0: unlimited (bytes are still counted, for the log and for tests).
    explicit RequestBudget(int64_t limit) : limit_(limit) {}
    RequestBudget(const RequestBudget&) = delete;
    RequestBudget& operator=(const RequestBudget&) = delete;

    // Takes n bytes if they are free and nobody is waiting.
    bool try_acquire(size_t n);
    // Takes n bytes now (true), or queues the request and returns false: `on_grant` is then
    // called once the bytes have been taken on the owner's behalf, from whichever thread released
    // them and without any lock held. It must only hand the news over (post to the owner's
    // executor); the owner then holds the bytes and must release them.
    bool acquire_or_wait(size_t n, const void* owner, std::function<void()> on_grant);
    // Withdraws the owner's queued request. False when there was none: it was granted already
    // (its on_grant has run or is running) or never queued.
    bool cancel(const void* owner);
    void release(size_t n);

    int64_t limit() const { return limit_; }
    int64_t used() const { return used_.load(); }
    size_t waiting() const { return waiting_.load(); }

  private:
    struct Waiter {
        size_t bytes;
        const void* owner;
        std::function<void()> on_grant;
    };

    bool fits(int64_t used, size_t n) const {
        return limit_ < 0 || used == 0 || used + static_cast<int64_t>(n) <= limit_;
    }
    // Takes n bytes with a CAS loop if they fit; false otherwise.
    bool take(size_t n);
    // Grants queued waiters in order while the head fits; returns their callbacks to run after
    // the lock is dropped.
    std::vector<std::function<void()>> grant_locked();

    const int64_t limit_;
    // seq_cst on purpose: a waiter publishes itself in waiting_ before re-checking used_, and a
    // releaser lowers used_ before reading waiting_; one of them must see the other.
    std::atomic<int64_t> used_{0};
    std::atomic<size_t> waiting_{0};
    std::mutex mutex_;
    std::deque<Waiter> waiters_;
};

}  // namespace skiff::broker
