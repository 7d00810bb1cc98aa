#include "broker/net/request_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace skiff::broker {
namespace {

TEST(RequestBudget, TakesWhatFitsAndQueuesTheRest) {
    RequestBudget budget(100);
    EXPECT_TRUE(budget.try_acquire(60));
    EXPECT_FALSE(budget.try_acquire(50));
    int granted = 0;
    EXPECT_FALSE(budget.acquire_or_wait(50, &granted, [&] { ++granted; }));
    EXPECT_EQ(budget.waiting(), 1u);
    // Someone is waiting: a newcomer that would fit goes behind it.
    EXPECT_FALSE(budget.try_acquire(10));
    budget.release(60);
    EXPECT_EQ(granted, 1);
    EXPECT_EQ(budget.used(), 50);
    EXPECT_EQ(budget.waiting(), 0u);
    budget.release(50);
    EXPECT_EQ(budget.used(), 0);
}

TEST(RequestBudget, ARequestLargerThanTheBoundIsAdmittedAlone) {
    RequestBudget budget(100);
    EXPECT_TRUE(budget.try_acquire(250));  // nothing outstanding: admitted
    EXPECT_FALSE(budget.try_acquire(1));
    budget.release(250);
    EXPECT_TRUE(budget.try_acquire(10));
    int granted = 0;
    EXPECT_FALSE(budget.acquire_or_wait(250, &granted, [&] { ++granted; }));
    budget.release(10);
    EXPECT_EQ(granted, 1);
    EXPECT_EQ(budget.used(), 250);
    budget.release(250);
}

TEST(RequestBudget, WaitersAreServedInOrder) {
    RequestBudget budget(100);
    EXPECT_TRUE(budget.try_acquire(100));
    std::vector<int> order;
    int a = 0, b = 0, c = 0;
    EXPECT_FALSE(budget.acquire_or_wait(80, &a, [&] { order.push_back(1); }));
    EXPECT_FALSE(budget.acquire_or_wait(30, &b, [&] { order.push_back(2); }));
    EXPECT_FALSE(budget.acquire_or_wait(10, &c, [&] { order.push_back(3); }));
    budget.release(100);  // 80 fits; 30 does not (110) and 10 must not overtake it
    EXPECT_EQ(order, std::vector<int>{1});
    budget.release(80);
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(budget.used(), 40);
}

TEST(RequestBudget, CancelledWaiterDoesNotBlockTheQueue) {
    RequestBudget budget(100);
    EXPECT_TRUE(budget.try_acquire(50));
    int a = 0, b = 0;
    EXPECT_FALSE(budget.acquire_or_wait(90, &a, [&] { ++a; }));
    EXPECT_FALSE(budget.acquire_or_wait(40, &b, [&] { ++b; }));
    EXPECT_TRUE(budget.cancel(&a));
    EXPECT_EQ(a, 0);
    EXPECT_EQ(b, 1);  // 50 + 40 fits once the head is gone
    EXPECT_FALSE(budget.cancel(&b));
    EXPECT_EQ(budget.used(), 90);
}

TEST(RequestBudget, UnlimitedCountsButNeverWaits) {
    RequestBudget budget(-1);
    EXPECT_TRUE(budget.try_acquire(size_t{1} << 40));
    EXPECT_TRUE(budget.acquire_or_wait(5, nullptr, [] { FAIL(); }));
    EXPECT_EQ(budget.used(), (int64_t{1} << 40) + 5);
}

TEST(RequestBudget, ConcurrentUseNeverExceedsTheBoundAndLosesNoWakeUp) {
    constexpr int64_t kLimit = 1000;
    RequestBudget budget(kLimit);
    std::atomic<int64_t> peak{0};
    std::atomic<int> done{0};
    auto worker = [&](int id) {
        for (int i = 0; i < 2000; ++i) {
            const size_t n = 100 + static_cast<size_t>((id * 37 + i * 11) % 300);
            std::atomic<bool> granted{false};
            if (!budget.acquire_or_wait(n, &granted, [&] { granted.store(true); })) {
                while (!granted.load())
                    std::this_thread::yield();
            }
            int64_t used = budget.used();
            int64_t p = peak.load();
            while (used > p && !peak.compare_exchange_weak(p, used)) {
            }
            budget.release(n);
        }
        ++done;
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back(worker, t);
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(done.load(), 4);
    EXPECT_EQ(budget.used(), 0);
    EXPECT_LE(peak.load(), kLimit);
}

}  // namespace
}  // namespace skiff::broker
