// Retention: the pure decision and the partition log deleting whole sealed segments.
#include "storage/retention.h"

#include <gtest/gtest.h>

#include "storage/partition_log.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::append_batch;
using test::TempDir;

TEST(RetentionTest, BytesFollowKafkaSemantics) {
    LogConfig c;
    c.retention_ms = -1;
    c.retention_bytes = 250;
    std::vector<SegmentRetentionInfo> sealed{{100, 0}, {100, 0}, {100, 0}};
    // total 350 (3 x 100 sealed + 50 active): 350-100 = 250 >= 250 -> delete; 150 < 250 stop.
    EXPECT_EQ(segments_to_delete(sealed, 350, c, 0), 1u);
    c.retention_bytes = 0;
    EXPECT_EQ(segments_to_delete(sealed, 350, c, 0), 3u);  // never the active one
    c.retention_bytes = -1;
    EXPECT_EQ(segments_to_delete(sealed, 350, c, 0), 0u);
}

TEST(RetentionTest, TimeDeletesSegmentsWhoseLargestTimestampIsTooOld) {
    LogConfig c;
    c.retention_ms = 1000;
    std::vector<SegmentRetentionInfo> sealed{{100, 500}, {100, 1999}, {100, 900}};
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 2999), 1u);  // 1999 is not < 1999: stop there
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 3000), 3u);
    c.retention_ms = -1;
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 1'000'000), 0u);
}

// cleanup.policy=compact without delete: neither age nor size removes segments (the cleaner
// shrinks the log instead), but DeleteRecords' log start offset still does. compact,delete
// behaves like delete.
TEST(RetentionTest, CompactOnlyLogsKeepTheirSegmentsExceptBelowTheLogStartOffset) {
    LogConfig c;
    c.retention_ms = 1000;
    c.retention_bytes = 0;
    std::vector<SegmentRetentionInfo> sealed{{100, 0, 10}, {100, 0, 20}, {100, 0, 30}};
    ASSERT_EQ(segments_to_delete(sealed, 400, c, 1'000'000), 3u);  // delete: all sealed go

    c.cleanup_delete = false;
    c.cleanup_compact = true;
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 1'000'000), 0u);
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 1'000'000, 20), 2u);

    c.cleanup_delete = true;  // compact,delete
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 1'000'000), 3u);
    c.retention_bytes = -1;
    c.retention_ms = 1'000'000;  // timestamp 0 is not older than now - 1'000'000
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 1'000'000), 0u);
}

TEST(RetentionTest, SegmentsWhollyBelowTheLogStartOffsetGo) {
    LogConfig c;
    c.retention_ms = -1;
    // Segments [0, 10), [10, 20), [20, 30); the active one starts at 30.
    std::vector<SegmentRetentionInfo> sealed{{100, 0, 10}, {100, 0, 20}, {100, 0, 30}};
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 0, 0), 0u);
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 0, 19), 1u);  // 19 is still in [10, 20)
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 0, 20), 2u);
    EXPECT_EQ(segments_to_delete(sealed, 400, c, 0, 35), 3u);  // never the active one
}

TEST(RetentionTest, PartitionLogDeletesOldSegmentsByBytes) {
    TempDir dir;
    auto config = test::small_config(400, 4096);
    config.retention_bytes = 500;
    auto log = PartitionLog::open(dir.path(), config);
    ASSERT_TRUE(log);
    for (int i = 0; i < 10; ++i)
        append_batch(**log, 1, 200);  // 5 segments of 2 batches
    ASSERT_EQ((*log)->segment_count(), 5u);
    // 2000 bytes: delete while total - 400 >= 500: 1600, 1200, 800, (400 < 500 stop).
    EXPECT_EQ((*log)->apply_retention(), 3u);
    EXPECT_EQ((*log)->segment_count(), 2u);
    EXPECT_EQ((*log)->log_start_offset(), 6);
    EXPECT_EQ((*log)->size_bytes(), 800);
    EXPECT_FALSE(fs::exists(dir.path() / segment_file_name(4, kLogSuffix)));
    EXPECT_FALSE(fs::exists(dir.path() / segment_file_name(4, kIndexSuffix)));
    EXPECT_TRUE(fs::exists(dir.path() / segment_file_name(6, kLogSuffix)));
    EXPECT_EQ((*log)->apply_retention(), 0u);
    EXPECT_EQ(append_batch(**log, 1, 200).base_offset, 10);
}

TEST(RetentionTest, PartitionLogDeletesOldSegmentsByTime) {
    TempDir dir;
    int64_t now = 100'000;
    auto config = test::small_config(400, 4096);
    config.retention_ms = 10'000;
    auto log = PartitionLog::open(dir.path(), config, [&] { return now; });
    ASSERT_TRUE(log);
    // Segment i holds timestamps 10'000 * i + {0, 1}.
    for (int i = 0; i < 8; ++i)
        append_batch(**log, 1, 200, 10'000 * (i / 2) + i % 2);
    ASSERT_EQ((*log)->segment_count(), 4u);
    now = 30'000;  // cutoff 20'000: segments with largest 1 and 10'001 go
    EXPECT_EQ((*log)->apply_retention(), 2u);
    EXPECT_EQ((*log)->log_start_offset(), 4);
    now = 1'000'000;  // everything expired, but the active segment stays
    EXPECT_EQ((*log)->apply_retention(), 1u);
    EXPECT_EQ((*log)->segment_count(), 1u);
    EXPECT_EQ((*log)->log_start_offset(), 6);
    EXPECT_EQ((*log)->log_end_offset(), 8);
}

}  // namespace
}  // namespace skiff::storage
