// Descriptors held by the logs: one per partition while idle (its active .log), sealed segments
// opened on read and bounded by OpenSegmentFiles, none for the memory-mapped indexes.
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/open_segment_files.h"
#include "storage/partition_log.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// The files under `dir` this process has open, by name (" (deleted)" marks unlinked ones).
std::vector<std::string> open_files_under(const fs::path& dir) {
    std::vector<std::string> out;
    const std::string prefix = fs::canonical(dir).string() + "/";
    for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        auto target = fs::read_symlink(entry.path(), ec);
        if (!ec && target.string().rfind(prefix, 0) == 0)
            out.push_back(target.string().substr(prefix.size()));
    }
    return out;
}

TEST(OpenSegmentFilesTest, KeepsTheMostRecentlyReadAndClosesTheRestUnlessInUse) {
    TempDir dir;
    OpenSegmentFiles cache(2);
    std::vector<fs::path> paths;
    for (const char* name : {"a.log", "b.log", "c.log"})
        paths.push_back(dir.path() / name);
    {
        for (const auto& p : paths) {
            auto f = LogFile::open(p, true);
            ASSERT_TRUE(f);
            cache.touch(*f);
        }
    }
    EXPECT_EQ(cache.size(), 2u);
    auto open = open_files_under(dir.path());
    std::sort(open.begin(), open.end());
    EXPECT_EQ(open, (std::vector<std::string>{"b.log", "c.log"}));  // a: least recently read

    // Touching b makes c the oldest; a file someone still reads survives its eviction.
    auto held = LogFile::open_read_only(paths[2]);
    ASSERT_TRUE(held);
    auto again = LogFile::open(paths[0], false);
    ASSERT_TRUE(again);
    cache.touch(*again);
    EXPECT_EQ(cache.size(), 2u);
    again->reset();
    held->reset();
    open = open_files_under(dir.path());
    std::sort(open.begin(), open.end());
    EXPECT_EQ(open, (std::vector<std::string>{"a.log", "c.log"}));
}

TEST(DescriptorsTest, AnIdlePartitionHoldsOnlyItsActiveLog) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), test::config(), test::fixed_now);
        ASSERT_TRUE(log);
        test::fill(**log);  // 4 segments
        ASSERT_GE((*log)->segment_count(), 4u);
        // While writing: the active .log only; the sealed ones and every index hold none once
        // the cache lets go of them (it keeps recently sealed files for readers).
        for (const auto& name : open_files_under(dir.path()))
            EXPECT_TRUE(name.ends_with(".log")) << name;
        ASSERT_TRUE((*log)->close());
    }
    // As the log manager reopens after a clean shutdown: everything below the end is trusted.
    int64_t end = 0;
    {
        auto probe = PartitionLog::open(dir.path(), test::config(), test::fixed_now, true);
        ASSERT_TRUE(probe);
        end = (*probe)->log_end_offset();
        ASSERT_TRUE((*probe)->close());
    }
    auto log = PartitionLog::open(dir.path(), test::config(), test::fixed_now, true, end);
    ASSERT_TRUE(log);
    const int64_t active_base = (*log)->lookup(end - 1)->segment_base_offset;
    EXPECT_EQ(open_files_under(dir.path()),
              std::vector<std::string>{segment_file_name(active_base, kLogSuffix)});

    // A read of the first segment opens it; the records come back whole.
    auto read = (*log)->read(0, 1 << 20, true);
    ASSERT_TRUE(read) << read.error().message;
    ASSERT_FALSE(read->slices.empty());
    EXPECT_EQ(test::read_slice(read->slices[0]).size(),
              static_cast<size_t>(read->slices[0].length));
    auto open = open_files_under(dir.path());
    EXPECT_NE(std::find(open.begin(), open.end(), segment_file_name(0, kLogSuffix)), open.end());
}

TEST(DescriptorsTest, ASegmentDeletedByRetentionIsClosedAndLaterReadsAreOutOfRange) {
    TempDir dir;
    auto config = test::config();
    auto log = PartitionLog::open(dir.path(), config, test::fixed_now);
    ASSERT_TRUE(log);
    test::fill(**log);
    // Read the first segment so that it is open, and keep the slice as a fetch in flight would.
    auto before = (*log)->read(0, 1 << 20, true);
    ASSERT_TRUE(before);
    ASSERT_FALSE(before->slices.empty());

    config.retention_bytes = 1;  // everything but the active segment goes
    (*log)->update_config(config);
    ASSERT_GT((*log)->apply_retention(), 0u);
    EXPECT_FALSE(fs::exists(dir.path() / segment_file_name(0, kLogSuffix)));
    // The slice in flight still reads the whole batch from the unlinked file...
    auto slices = std::move(before->slices);
    auto bytes = test::read_slice(slices[0]);
    EXPECT_EQ(bytes.size(), static_cast<size_t>(slices[0].length));
    EXPECT_TRUE(protocol::validate_batches(bytes));
    // ...and once it is gone no descriptor keeps the deleted file's space.
    slices.clear();
    for (const auto& name : open_files_under(dir.path()))
        EXPECT_EQ(name.find("(deleted)"), std::string::npos) << name;
    auto after = (*log)->read(0, 1 << 20, true);
    ASSERT_FALSE(after);
    EXPECT_EQ(after.error().code, StorageErrc::offset_out_of_range);
}

}  // namespace
}  // namespace skiff::storage
