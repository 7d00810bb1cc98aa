// The rolling rule and the sparse index rule of the seeds, checked file by file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/crc32c.h"
#include "storage/big_endian.h"
#include "storage/log_segment.h"
#include "storage/partition_log.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

using test::append_batch;
using test::TempDir;

struct Entry {
    int64_t relative_offset;
    int64_t position;
    bool operator==(const Entry&) const = default;
};

// Entries of an offset index file as stored (relative offsets), up to the preallocated hole.
// (0, 0) is never a real entry: the first batch of a segment never gets one.
std::vector<Entry> index_entries(const std::filesystem::path& file) {
    auto bytes = test::read_file(file);
    std::vector<Entry> out;
    for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
        Entry e{load_be<int32_t>(bytes.data() + i), load_be<int32_t>(bytes.data() + i + 4)};
        if (e.relative_offset == 0 && e.position == 0)
            break;
        out.push_back(e);
    }
    return out;
}

// Bytes of disk the file holds (st_blocks), which is more than its size while blocks are
// reserved past its end.
int64_t allocated_bytes(const std::filesystem::path& file) {
    struct stat st {};
    EXPECT_EQ(::stat(file.c_str(), &st), 0) << file;
    return static_cast<int64_t>(st.st_blocks) * 512;
}

// Whether the file system under `dir` can reserve blocks past the end of a file.
bool file_system_reserves(const std::filesystem::path& dir) {
    auto probe = dir / "probe";
    int fd = ::open(probe.c_str(), O_RDWR | O_CREAT, 0644);
    bool ok = fd >= 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) == 0;
    if (fd >= 0)
        ::close(fd);
    std::filesystem::remove(probe);
    return ok;
}

// The seed's worked trace (SEGMENT_BYTES 90, INDEX_INTERVAL 30, sizes 20 20 20 20 35 10) cannot
// use real batches, which are at least 61 bytes. Scaling every size by 10 keeps every
// comparison of the trace (80+35 > 90 <=> 800+350 > 900; 40 > 30 <=> 400 > 300; 35 > 30 <=>
// 350 > 300) and multiplies positions by 10: entry (2, 400) in segment 0, roll at offset 4,
// entry (1, 350) in segment 4.
TEST(LogSegmentTest, SeedTraceScaledByTen) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(900, 300));
    ASSERT_TRUE(log);
    for (size_t size : {200, 200, 200, 200, 350, 100})
        append_batch(**log, 1, size);

    EXPECT_EQ((*log)->segment_count(), 2u);
    EXPECT_EQ(std::filesystem::file_size(dir.path() / segment_file_name(0, kLogSuffix)), 800u);
    EXPECT_EQ(std::filesystem::file_size(dir.path() / segment_file_name(4, kLogSuffix)), 450u);
    EXPECT_EQ(index_entries(dir.path() / segment_file_name(0, kIndexSuffix)),
              (std::vector<Entry>{{2, 400}}));
    EXPECT_EQ(index_entries(dir.path() / segment_file_name(4, kIndexSuffix)),
              (std::vector<Entry>{{1, 350}}));

    auto l3 = (*log)->lookup(3);
    ASSERT_TRUE(l3);
    EXPECT_EQ(l3->segment_base_offset, 0);
    EXPECT_EQ(l3->position, 400);
    EXPECT_EQ(l3->batches_scanned, 2);
    EXPECT_EQ(l3->records_scanned, 2);
    EXPECT_EQ(l3->batch_position, 600);

    auto l4 = (*log)->lookup(4);
    ASSERT_TRUE(l4);
    EXPECT_EQ(l4->segment_base_offset, 4);
    EXPECT_EQ(l4->position, 0);
    EXPECT_EQ(l4->batches_scanned, 1);

    // Entry (1, 350) in segment 4 means offset 5, not 1.
    auto l5 = (*log)->lookup(5);
    ASSERT_TRUE(l5);
    EXPECT_EQ(l5->segment_base_offset, 4);
    EXPECT_EQ(l5->position, 350);
    EXPECT_EQ(l5->batches_scanned, 1);
}

TEST(LogSegmentTest, GapOfExactlyTheIntervalCreatesNoEntry) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 300));
    ASSERT_TRUE(log);
    append_batch(**log, 1, 150);
    append_batch(**log, 1, 150);  // since = 150: no entry
    append_batch(**log, 1, 100);  // since = 300, not > 300: no entry
    EXPECT_TRUE(index_entries(dir.path() / segment_file_name(0, kIndexSuffix)).empty());
    append_batch(**log, 1, 100);  // since = 400 > 300: entry (3, 400)
    EXPECT_EQ(index_entries(dir.path() / segment_file_name(0, kIndexSuffix)),
              (std::vector<Entry>{{3, 400}}));
}

TEST(LogSegmentTest, BatchLargerThanASegmentIsStoredAlone) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(100, 4096));
    ASSERT_TRUE(log);
    auto r = append_batch(**log, 3, 200);
    EXPECT_EQ(r.base_offset, 0);
    EXPECT_EQ(r.last_offset, 2);
    EXPECT_EQ((*log)->segment_count(), 1u);  // not preceded by an empty segment
    append_batch(**log, 1, 200);
    EXPECT_EQ((*log)->segment_count(), 2u);
    EXPECT_EQ(std::filesystem::file_size(dir.path() / segment_file_name(0, kLogSuffix)), 200u);
    EXPECT_EQ(std::filesystem::file_size(dir.path() / segment_file_name(3, kLogSuffix)), 200u);
}

TEST(LogSegmentTest, CounterResetsOnRollAndEntriesAreRelative) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(500, 150));
    ASSERT_TRUE(log);
    for (int i = 0; i < 5; ++i)
        append_batch(**log, 2, 100);  // 5 batches fill segment 0
    append_batch(**log, 2, 100);      // rolls: segment 10
    append_batch(**log, 2, 100);      // since = 100: no entry
    // If the counter were not reset, segment 10 would already have an entry here.
    EXPECT_TRUE(index_entries(dir.path() / segment_file_name(10, kIndexSuffix)).empty());
    append_batch(**log, 2, 100);  // since = 200 > 150: entry names the last offset 15
    EXPECT_EQ(index_entries(dir.path() / segment_file_name(10, kIndexSuffix)),
              (std::vector<Entry>{{5, 200}}));
    // Segment 0: since 100, 200>150 -> entry at batch 2 (last offset 5, pos 200), reset, 100,
    // 200 > 150 -> entry at batch 4 (last offset 9, pos 400).
    EXPECT_EQ(index_entries(dir.path() / segment_file_name(0, kIndexSuffix)),
              (std::vector<Entry>{{5, 200}, {9, 400}}));
    for (int64_t offset = 0; offset < 16; ++offset) {
        auto l = (*log)->lookup(offset);
        ASSERT_TRUE(l) << offset;
        EXPECT_EQ(l->batch_position, (offset % 10) / 2 * 100) << offset;
    }
}

TEST(LogSegmentTest, RollsWhenRollMsPasses) {
    TempDir dir;
    int64_t now = 1'000'000;
    auto config = test::small_config(1 << 20, 4096);
    config.roll_ms = 1000;
    auto log = PartitionLog::open(dir.path(), config, [&] { return now; });
    ASSERT_TRUE(log);
    append_batch(**log, 1, 100);
    now += 1000;
    append_batch(**log, 1, 100);  // exactly roll_ms: no roll
    EXPECT_EQ((*log)->segment_count(), 1u);
    now += 1;
    append_batch(**log, 1, 100);
    EXPECT_EQ((*log)->segment_count(), 2u);
}

TEST(LogSegmentTest, RollsWhenTheIndexIsFull) {
    TempDir dir;
    auto config = test::small_config(1 << 20, 0);  // an entry for every batch but the first
    config.index_size_max_bytes = 24;              // 3 offset entries, 2 time entries
    auto log = PartitionLog::open(dir.path(), config);
    ASSERT_TRUE(log);
    for (int i = 0; i < 8; ++i)
        append_batch(**log, 1, 100, 1000 + i);
    EXPECT_GT((*log)->segment_count(), 1u);
    for (int64_t offset = 0; offset < 8; ++offset)
        EXPECT_TRUE((*log)->lookup(offset)) << offset;
}

TEST(LogSegmentTest, RollsBeforeARelativeOffsetOverflows32Bits) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 0));
    ASSERT_TRUE(log);
    // One record whose batch spans offsets 0 .. 2^31 - 2 (legal after compaction).
    auto wide = test::make_batch(1, 100);
    store_be<int32_t>(wide.data() + 23, INT32_MAX - 1);
    store_be<uint32_t>(wide.data() + 17,
                       protocol::crc32c(std::span<const std::byte>(wide).subspan(21)));
    auto summaries = protocol::validate_batches(wide);
    ASSERT_TRUE(summaries) << summaries.error().message;
    ASSERT_TRUE((*log)->append(wide, *summaries));
    // Offset 2^31 - 1: relative offset INT32_MAX still fits.
    EXPECT_EQ(append_batch(**log, 1, 100).base_offset, int64_t{INT32_MAX});
    EXPECT_EQ((*log)->segment_count(), 1u);
    // Offset 2^31 would not: roll.
    EXPECT_EQ(append_batch(**log, 1, 100).base_offset, int64_t{INT32_MAX} + 1);
    EXPECT_EQ((*log)->segment_count(), 2u);
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "00000000002147483648.log"));
    EXPECT_EQ(index_entries(dir.path() / segment_file_name(0, kIndexSuffix)),
              (std::vector<Entry>{{INT32_MAX, 100}}));
    auto l = (*log)->lookup(12345);
    ASSERT_TRUE(l);
    EXPECT_EQ(l->batch_position, 0);
}

// The active segment reserves disk blocks ahead of its end without changing its size (the
// write then skips ext4's delayed allocation); sealing it, at a roll or at close, gives back what
// it did not use. Sizes, offsets and everything readers see stay exactly as without it.
TEST(LogSegmentTest, ActiveSegmentReservesBlocksAheadAndSealingReleasesThem) {
    TempDir dir;
    if (!file_system_reserves(dir.path()))
        GTEST_SKIP() << "the file system under " << dir.path() << " cannot reserve blocks";
    auto log = PartitionLog::open(dir.path(), test::small_config(900, 300));
    ASSERT_TRUE(log);
    const auto first = dir.path() / segment_file_name(0, kLogSuffix);
    append_batch(**log, 1, 200);
    EXPECT_EQ(std::filesystem::file_size(first), 200u);
    EXPECT_GE(allocated_bytes(first), 1 << 20);

    for (int i = 0; i < 4; ++i)  // 800 bytes, then a batch that does not fit: roll at offset 4
        append_batch(**log, 1, 200);
    ASSERT_EQ((*log)->segment_count(), 2u);
    EXPECT_EQ(std::filesystem::file_size(first), 800u);
    EXPECT_LT(allocated_bytes(first), 64 * 1024);  // 800 bytes need one block, not 1 MiB

    const auto second = dir.path() / segment_file_name(4, kLogSuffix);
    EXPECT_GE(allocated_bytes(second), 1 << 20);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(std::filesystem::file_size(second), 200u);
    EXPECT_LT(allocated_bytes(second), 64 * 1024);
}

// Durable mode grows the active segment's file with the reservation (an fdatasync after an
// append inside the file's size need not write the size), and nothing a reader sees changes: the
// batches read back the same, the sizes are the data's, and a roll and a close cut the zeros off.
TEST(LogSegmentTest, DurableModeGrowsTheActiveFileAndTheRollAndCloseCutItBack) {
    TempDir dir;
    if (!file_system_reserves(dir.path()))
        GTEST_SKIP() << "the file system under " << dir.path() << " cannot reserve blocks";
    LogConfig durable = test::small_config(900, 300);
    durable.flush_interval_messages = 1;
    auto log = PartitionLog::open(dir.path(), durable);
    ASSERT_TRUE(log);
    const auto first = dir.path() / segment_file_name(0, kLogSuffix);
    append_batch(**log, 1, 200);
    EXPECT_EQ(std::filesystem::file_size(first), 1u << 20);
    EXPECT_EQ((*log)->segments()->active()->size_bytes(), 200);
    for (int i = 0; i < 4; ++i)  // the fifth batch does not fit: roll at offset 4
        append_batch(**log, 1, 200);
    ASSERT_EQ((*log)->segment_count(), 2u);
    EXPECT_EQ(std::filesystem::file_size(first), 800u);
    const auto second = dir.path() / segment_file_name(4, kLogSuffix);
    EXPECT_EQ(std::filesystem::file_size(second), 1u << 20);
    auto found = (*log)->lookup(4);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->batch_position, 0);
    EXPECT_FALSE((*log)->lookup(5));  // nothing past the data, although the file goes on
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(std::filesystem::file_size(second), 200u);
}

}  // namespace
}  // namespace skiff::storage
