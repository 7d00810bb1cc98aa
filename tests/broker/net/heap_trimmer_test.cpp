#include "broker/net/heap_trimmer.h"

#include <gtest/gtest.h>

#include <malloc.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace skiff::broker {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// AddressSanitizer replaces malloc (its quarantine keeps freed blocks): glibc's trim has nothing
// to do with that heap.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kGlibcMalloc = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kGlibcMalloc = false;
#else
constexpr bool kGlibcMalloc = true;
#endif
#else
constexpr bool kGlibcMalloc = true;
#endif

TEST(HeapTrimmerTest, WorthTrimmingOnlyPastTheSlackAboveTheLeastSeen) {
    const HeapUsage usage{.resident_anonymous_bytes = 30 * kMiB, .in_use_bytes = 20 * kMiB};
    EXPECT_EQ(resident_outside_use(usage), 10 * kMiB);
    EXPECT_TRUE(worth_trimming(usage, 4 * kMiB, 4 * kMiB));
    EXPECT_TRUE(worth_trimming(usage, 6 * kMiB, 4 * kMiB));
    EXPECT_FALSE(worth_trimming(usage, 7 * kMiB, 4 * kMiB));
    EXPECT_FALSE(worth_trimming(usage, 10 * kMiB, 4 * kMiB));
    // More in use than resident (blocks handed out but never touched): nothing to return.
    const HeapUsage untouched{.resident_anonymous_bytes = 5 * kMiB, .in_use_bytes = 50 * kMiB};
    EXPECT_EQ(resident_outside_use(untouched), 0u);
    EXPECT_FALSE(worth_trimming(untouched, 0, 4 * kMiB));
}

// What a storm of connections leaves behind: many small blocks freed, a few still in use between
// them, so the arena's top cannot shrink by itself and free() returns nothing.
TEST(HeapTrimmerTest, GivesBackWhatSmallFreedBlocksHeld) {
    if (!kGlibcMalloc)
        GTEST_SKIP() << "not glibc's malloc (sanitizer build)";
    using std::chrono::seconds;
    HeapTrimmer trimmer({}, 4 * kMiB, seconds(5));
    const auto t0 = HeapTrimmer::clock::now();
    trimmer.maybe_trim(t0);  // the process before the storm (as the broker's first look at start)

    constexpr size_t kBlock = 4096 + 64;  // a small read buffer and its neighbour
    constexpr size_t kBlocks = 48 * kMiB / kBlock;
    std::vector<std::unique_ptr<char[]>> blocks(kBlocks);
    for (auto& b : blocks) {
        b = std::make_unique<char[]>(kBlock);
        std::memset(b.get(), 1, kBlock);  // resident
    }
    for (size_t i = 0; i < blocks.size(); ++i)
        if (i % 256 != 0)
            blocks[i].reset();
    const HeapUsage before = current_heap_usage();
    ASSERT_GE(resident_outside_use(before), 32 * kMiB)
        << "freed blocks should still be resident: " << before.resident_anonymous_bytes;

    // Not within the interval, whatever the figures.
    EXPECT_FALSE(trimmer.maybe_trim(t0 + seconds(1)));
    EXPECT_TRUE(trimmer.maybe_trim(t0 + seconds(6)));
    const HeapUsage after = current_heap_usage();
    EXPECT_LT(after.resident_anonymous_bytes + 32 * kMiB, before.resident_anonymous_bytes)
        << "before " << before.resident_anonymous_bytes << ", after "
        << after.resident_anonymous_bytes;
    // Nothing left to return: the next look does not trim.
    EXPECT_FALSE(trimmer.maybe_trim(t0 + seconds(12)));
}

// A thread with a task queue: its allocations come from its own malloc arena, as an I/O
// thread's do.
class Worker {
  public:
    Worker() : thread_([this] { loop(); }) {}
    ~Worker() {
        post({});
        thread_.join();
    }
    void post(std::function<void()> task) {
        std::lock_guard lock(mutex_);
        tasks_.push_back(std::move(task));
        cv_.notify_one();
    }
    void run(std::function<void()> task) {  // and wait for it
        std::promise<void> done;
        post([&] {
            task();
            done.set_value();
        });
        done.get_future().wait();
    }

  private:
    void loop() {
        for (;;) {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return !tasks_.empty(); });
            auto task = std::move(tasks_.front());
            tasks_.pop_front();
            lock.unlock();
            if (!task)
                return;
            task();
        }
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> tasks_;
    std::thread thread_;
};

// What every second storm of 10,000 connections left: the freed blocks merged into the top of
// an I/O thread's arena, below the trim threshold, where malloc_trim(0) does not reach.
TEST(HeapTrimmerTest, GivesBackWhatAThreadsArenaTopHolds) {
    if (!kGlibcMalloc)
        GTEST_SKIP() << "not glibc's malloc (sanitizer build)";
    using std::chrono::seconds;
    configure_malloc();
    Worker worker;
    worker.run([] { release_arena_top(); });  // the worker's arena exists before the baseline
    HeapTrimmer trimmer([&](std::function<void()> task) {
        worker.post(std::move(task));
        return size_t{1};
    });
    const auto t0 = HeapTrimmer::clock::now();
    trimmer.maybe_trim(t0);

    constexpr size_t kBlock = 4096 + 64;
    constexpr size_t kBlocks = 10 * kMiB / kBlock;  // under the 16 MiB trim threshold
    worker.run([&] {
        std::vector<std::unique_ptr<char[]>> blocks(kBlocks);
        for (auto& b : blocks) {
            b = std::make_unique<char[]>(kBlock);
            std::memset(b.get(), 1, kBlock);  // resident
        }
        // Freed in address order, each block merges into the top.
    });
    malloc_trim(0);
    const HeapUsage before = current_heap_usage();
    ASSERT_GE(resident_outside_use(before), 8 * kMiB)
        << "the worker's freed top should still be resident after malloc_trim(0): "
        << before.resident_anonymous_bytes;

    EXPECT_TRUE(trimmer.maybe_trim(t0 + seconds(6)));  // trims, then releases the tops
    worker.run([] {});                                 // the release has run
    const HeapUsage after = current_heap_usage();
    EXPECT_LT(after.resident_anonymous_bytes + 8 * kMiB, before.resident_anonymous_bytes)
        << "before " << before.resident_anonymous_bytes << ", after "
        << after.resident_anonymous_bytes;
    // The threshold is back: a top under 16 MiB stays again when blocks are freed.
    worker.run([&] {
        std::vector<std::unique_ptr<char[]>> blocks(kBlocks);
        for (auto& b : blocks) {
            b = std::make_unique<char[]>(kBlock);
            std::memset(b.get(), 1, kBlock);
        }
    });
    EXPECT_GE(resident_outside_use(current_heap_usage()), 8 * kMiB);
}

}  // namespace
}  // namespace skiff::broker
