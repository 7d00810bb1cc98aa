#include "broker/net/request_budget.h"

#include <algorithm>
#include <vector>

namespace skiff::broker {

bool RequestBudget::take(size_t n) {
    int64_t cur = used_.load();
    while (fits(cur, n)) {
        if (used_.compare_exchange_weak(cur, cur + static_cast<int64_t>(n)))
            return true;
    }
    return false;
}

bool RequestBudget::try_acquire(size_t n) {
    // Someone queued first: newcomers go behind them (first come, first served).
    if (waiting_.load() > 0)
        return false;
    return take(n);
}

bool RequestBudget::acquire_or_wait(size_t n, const void* owner, std::function<void()> on_grant) {
    if (try_acquire(n))
        return true;
    std::unique_lock lock(mutex_);
    // Announce ourselves before looking at used_ again: a release that happens after this
    // look sees waiting_ > 0 and grants us under the mutex (no lost wake-up).
    waiting_.fetch_add(1);
    if (waiters_.empty() && take(n)) {
        waiting_.fetch_sub(1);
        return true;
    }
    waiters_.push_back(Waiter{n, owner, std::move(on_grant)});
    return false;
}

bool RequestBudget::cancel(const void* owner) {
    // Every connection cancels when it goes: nobody queued (the usual case) costs no lock. A
    // queued owner is counted in waiting_ from before it was pushed until it is removed.
    if (waiting_.load() == 0)
        return false;
    std::vector<std::function<void()>> granted;
    bool found = false;
    {
        std::lock_guard lock(mutex_);
        auto it = std::find_if(waiters_.begin(), waiters_.end(),
                               [&](const Waiter& w) { return w.owner == owner; });
        if (it != waiters_.end()) {
            waiters_.erase(it);
            waiting_.fetch_sub(1);
            found = true;
            // The withdrawn waiter may have been the head that did not fit.
            granted = grant_locked();
        }
    }
    for (auto& g : granted)
        g();
    return found;
}

void RequestBudget::release(size_t n) {
    used_.fetch_sub(static_cast<int64_t>(n));
    if (waiting_.load() == 0)
        return;
    std::vector<std::function<void()>> granted;
    {
        std::lock_guard lock(mutex_);
        granted = grant_locked();
    }
    for (auto& g : granted)
        g();
}

std::vector<std::function<void()>> RequestBudget::grant_locked() {
    std::vector<std::function<void()>> granted;
    while (!waiters_.empty() && take(waiters_.front().bytes)) {
        granted.push_back(std::move(waiters_.front().on_grant));
        waiters_.pop_front();
        waiting_.fetch_sub(1);
    }
    return granted;
}

}  // namespace skiff::broker
