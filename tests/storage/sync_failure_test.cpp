// A failed sync of a segment file reaches the installed handler (the broker's halts) before the
// error is returned, and only the error is returned without one (tools, tests).
#include "storage/sync_failure.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/log_file.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

std::vector<std::string> g_reported;

void record(const StorageError& error) {
    g_reported.push_back(error.message);
}

struct Recording {
    Recording() {
        g_reported.clear();
        set_sync_failure_handler(record);
    }
    ~Recording() { set_sync_failure_handler(nullptr); }
};

// fdatasync of a character device fails (EINVAL): a real failed sync without a broken disk.
TEST(SyncFailure, AFailedSegmentSyncIsReportedThenReturned) {
    Recording recording;
    auto file = LogFile::open("/dev/null", false);
    ASSERT_TRUE(file) << file.error().message;
    auto synced = (*file)->sync();
    ASSERT_FALSE(synced);
    ASSERT_EQ(g_reported.size(), 1u);
    EXPECT_EQ(g_reported[0], synced.error().message);
    EXPECT_NE(g_reported[0].find("fsync /dev/null"), std::string::npos) << g_reported[0];
}

TEST(SyncFailure, WithoutAHandlerTheErrorIsOnlyReturned) {
    g_reported.clear();
    auto file = LogFile::open("/dev/null", false);
    ASSERT_TRUE(file) << file.error().message;
    EXPECT_FALSE((*file)->sync());
    EXPECT_TRUE(g_reported.empty());
}

TEST(SyncFailure, AGoodSyncReportsNothing) {
    Recording recording;
    test::TempDir dir;
    auto file = LogFile::open(dir.path() / "00000000000000000000.log", true);
    ASSERT_TRUE(file) << file.error().message;
    EXPECT_TRUE((*file)->sync());
    EXPECT_TRUE(g_reported.empty());
}

}  // namespace
}  // namespace skiff::storage
