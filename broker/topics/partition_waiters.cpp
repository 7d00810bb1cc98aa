#include "broker/topics/partition_waiters.h"

#include <algorithm>
#include <asio/post.hpp>

namespace skiff::broker {

std::string PartitionWaiters::key(const std::string& topic, int32_t partition) {
    return topic + '\0' + std::to_string(partition);
}

void PartitionWaiters::add(const std::vector<std::string>& keys,
                           const std::shared_ptr<Waiter>& waiter) {
    std::lock_guard lock(mutex_);
    for (const auto& k : keys)
        by_partition_[k].push_back(waiter);
}

void PartitionWaiters::remove(const std::vector<std::string>& keys,
                              const std::shared_ptr<Waiter>& waiter) {
    std::lock_guard lock(mutex_);
    for (const auto& k : keys) {
        auto it = by_partition_.find(k);
        if (it == by_partition_.end())
            continue;
        auto& v = it->second;
        std::erase_if(v, [&](const std::weak_ptr<Waiter>& w) {
            auto s = w.lock();
            return !s || s == waiter;
        });
        if (v.empty())
            by_partition_.erase(it);
    }
}

void PartitionWaiters::release_all() {
    releases_.fetch_add(1, std::memory_order_acq_rel);
    std::vector<std::shared_ptr<Waiter>> wake;
    {
        std::lock_guard lock(mutex_);
        for (auto& [key, waiters] : by_partition_)
            for (auto& w : waiters)
                if (auto s = w.lock())
                    wake.push_back(std::move(s));
    }
    for (auto& w : wake)
        asio::post(w->timer.get_executor(), [w] {
            w->woken = true;
            w->timer.cancel();
        });
}

void PartitionWaiters::notify(const std::string& key) {
    std::vector<std::shared_ptr<Waiter>> wake;
    {
        std::lock_guard lock(mutex_);
        auto it = by_partition_.find(key);
        if (it == by_partition_.end())
            return;
        for (auto& w : it->second)
            if (auto s = w.lock())
                wake.push_back(std::move(s));
    }
    for (auto& w : wake) {
        asio::post(w->timer.get_executor(), [w] {
            w->woken = true;
            w->timer.cancel();
        });
    }
}

}  // namespace skiff::broker
