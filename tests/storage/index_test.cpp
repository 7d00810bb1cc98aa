// MappedIndex, OffsetIndex, TimeIndex and segment file names on their own.
#include <gtest/gtest.h>

#include "storage/mapped_index.h"
#include "storage/offset_index.h"
#include "storage/segment_names.h"
#include "storage/time_index.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

TEST(SegmentNamesTest, TwentyDigitNames) {
    EXPECT_EQ(segment_file_name(0, kLogSuffix), "00000000000000000000.log");
    EXPECT_EQ(segment_file_name(368769, kIndexSuffix), "00000000000000368769.index");
    EXPECT_EQ(parse_segment_file_name("00000000000000005000.timeindex", kTimeIndexSuffix), 5000);
    EXPECT_FALSE(parse_segment_file_name("0000000000000005000.log", kLogSuffix));
    EXPECT_FALSE(parse_segment_file_name("00000000000000005000.log", kIndexSuffix));
    EXPECT_FALSE(parse_segment_file_name("0000000000000000500x.log", kLogSuffix));
    EXPECT_FALSE(parse_segment_file_name("99999999999999999999.log", kLogSuffix));  // > int64
}

TEST(OffsetIndexTest, PreallocatesSearchesAndTrims) {
    TempDir dir;
    auto file = MappedIndex::create(dir.path() / "x.index", OffsetIndex::kEntrySize, 1003);
    ASSERT_TRUE(file);
    EXPECT_EQ(fs::file_size(dir.path() / "x.index"), 1000u);  // rounded down to whole entries
    OffsetIndex index(std::move(*file), 100);
    EXPECT_FALSE(index.lookup(150));
    for (int i = 1; i <= 10; ++i)
        ASSERT_TRUE(index.append(100 + 10 * i, 1000 * i));
    EXPECT_FALSE(index.lookup(109));
    EXPECT_EQ(index.lookup(110)->position, 1000);
    EXPECT_EQ(index.lookup(155)->offset, 150);
    EXPECT_EQ(index.lookup(10'000)->offset, 200);
    EXPECT_EQ(index.lookup_by_position(4500)->position, 4000);
    EXPECT_EQ(index.sanity_problem(100'000), "");
    EXPECT_NE(index.sanity_problem(10'000), "");  // last entry outside a 10'000-byte log
    ASSERT_TRUE(index.file().trim());
    EXPECT_EQ(fs::file_size(dir.path() / "x.index"), 80u);
    EXPECT_FALSE(index.append(300, 20'000));    // sealed
    EXPECT_EQ(index.lookup(155)->offset, 150);  // still readable after trimming
}

TEST(OffsetIndexTest, ReopenStopsAtThePreallocatedHole) {
    TempDir dir;
    {
        auto file = MappedIndex::create(dir.path() / "x.index", OffsetIndex::kEntrySize, 800);
        OffsetIndex index(std::move(*file), 0);
        index.append(3, 300);
        index.append(7, 700);
    }
    EXPECT_EQ(fs::file_size(dir.path() / "x.index"), 800u);
    auto file = MappedIndex::open(dir.path() / "x.index", OffsetIndex::kEntrySize, 800, true);
    ASSERT_TRUE(file);
    EXPECT_EQ((*file)->entries(), 2u);
    EXPECT_EQ((*file)->capacity(), 100u);
    auto odd = dir.path() / "odd.index";
    test::write_file(odd, std::vector<std::byte>(13));
    auto bad = MappedIndex::open(odd, OffsetIndex::kEntrySize, 800, false);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, StorageErrc::corrupt);
}

TEST(TimeIndexTest, AppendsOnlyGrowingTimestampsAndLooksUp) {
    TempDir dir;
    auto file = MappedIndex::create(dir.path() / "x.timeindex", TimeIndex::kEntrySize, 10485760);
    ASSERT_TRUE(file);
    EXPECT_EQ(fs::file_size(dir.path() / "x.timeindex"), 10485756u);
    TimeIndex index(std::move(*file), 1000);
    EXPECT_TRUE(index.maybe_append(500, 1003));
    EXPECT_FALSE(index.maybe_append(500, 1004));  // did not grow
    EXPECT_FALSE(index.maybe_append(400, 1005));
    EXPECT_TRUE(index.maybe_append(900, 1010));
    EXPECT_EQ(index.entries(), 2u);
    EXPECT_FALSE(index.lookup(499));
    EXPECT_EQ(index.lookup(500)->offset, 1003);
    EXPECT_EQ(index.lookup(899)->offset, 1003);
    EXPECT_EQ(index.lookup(5000)->offset, 1010);
    EXPECT_EQ(index.sanity_problem(1011), "");
    EXPECT_NE(index.sanity_problem(1010), "");
    ASSERT_TRUE(index.file().trim());
    EXPECT_EQ(fs::file_size(dir.path() / "x.timeindex"), 24u);
}

}  // namespace
}  // namespace skiff::storage
