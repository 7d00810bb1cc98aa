// A roll makes the sealed segment durable (its .log, its trimmed indexes with the time index's
// final entry) before the recovery point may pass it, whatever the flush settings.
#include <gtest/gtest.h>

#include <atomic>

#include "storage/partition_log.h"
#include "storage/segment_names.h"
#include "storage/sync_timing.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::append_batch;
using test::TempDir;

std::atomic<int> g_fsyncs{0};

void count_fsyncs(SyncKind kind, int64_t) {
    if (kind == SyncKind::fsync)
        ++g_fsyncs;
}

struct CountFsyncs {
    CountFsyncs() {
        g_fsyncs = 0;
        set_sync_observer(count_fsyncs);
    }
    ~CountFsyncs() { set_sync_observer(nullptr); }
};

LogConfig flush_every_message() {
    LogConfig c = test::config();
    c.flush_interval_messages = 1;
    return c;
}

// With log.flush.interval.messages=1 the recovery point reached the roll's base offset before
// the roll (the previous append flushed it), so nothing used to flush the seal's index work:
// the sealed segment's .index and .timeindex stayed as they were in the page cache.
TEST(DurabilityTest, FlushPerMessageSyncsTheSealedSegmentAfterTheRoll) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), flush_every_message(), test::fixed_now);
    ASSERT_TRUE(log);
    // 190-byte batches in 800-byte segments: the fifth rolls.
    for (int i = 0; i < 4; ++i)
        append_batch(**log, 2, 190, 1000 + 10 * i);
    ASSERT_EQ((*log)->segment_count(), 1u);
    EXPECT_EQ((*log)->recovery_point(), 8);
    CountFsyncs counter;
    append_batch(**log, 2, 190, 1040);
    ASSERT_EQ((*log)->segment_count(), 2u);
    // The sealed segment's .log, .index and .timeindex, then the new active .log.
    EXPECT_EQ(g_fsyncs.load(), 4);
    EXPECT_EQ((*log)->recovery_point(), 10);
    EXPECT_FALSE((*log)->flush_pending());
    // Nothing is left for the background flush, and the next append syncs the active one only.
    auto flushed = (*log)->flush_rolled();
    ASSERT_TRUE(flushed);
    EXPECT_FALSE(*flushed);
    g_fsyncs = 0;
    append_batch(**log, 2, 190, 1050);
    EXPECT_EQ(g_fsyncs.load(), 1);
}

// Default flush settings: the roll leaves the sealed segment to flush_rolled, which syncs it
// once; a later time-based flush does not sync it again.
TEST(DurabilityTest, BackgroundFlushSyncsTheSealedSegmentOnce) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::config(), test::fixed_now);
    ASSERT_TRUE(log);
    for (int i = 0; i < 5; ++i)
        append_batch(**log, 2, 190, 1000 + 10 * i);
    ASSERT_EQ((*log)->segment_count(), 2u);
    EXPECT_TRUE((*log)->flush_pending());
    CountFsyncs counter;
    auto flushed = (*log)->flush_rolled();
    ASSERT_TRUE(flushed);
    EXPECT_TRUE(*flushed);
    EXPECT_EQ(g_fsyncs.load(), 3);
    EXPECT_EQ((*log)->recovery_point(), 8);
    g_fsyncs = 0;
    ASSERT_TRUE((*log)->flush());
    EXPECT_EQ(g_fsyncs.load(), 1);  // the active .log only
    EXPECT_EQ((*log)->recovery_point(), 10);
}

// A flush of the whole log that comes before the background one (log.flush.interval.ms, a
// close) takes the sealed segment along, so the recovery point never passes an unsynced seal.
TEST(DurabilityTest, ForegroundFlushTakesAPendingSealAlong) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::config(), test::fixed_now);
    ASSERT_TRUE(log);
    for (int i = 0; i < 5; ++i)
        append_batch(**log, 2, 190, 1000 + 10 * i);
    CountFsyncs counter;
    ASSERT_TRUE((*log)->flush());
    EXPECT_EQ(g_fsyncs.load(), 4);
    EXPECT_EQ((*log)->recovery_point(), 10);
    EXPECT_FALSE((*log)->flush_pending());
}

}  // namespace
}  // namespace skiff::storage
