#include "broker/net/heap_trimmer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
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
    HeapTrimmer trimmer(4 * kMiB, seconds(5));
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

}  // namespace
}  // namespace skiff::broker
