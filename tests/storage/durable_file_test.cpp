// write_file_atomically and what start-up does with a checkpoint a power cut left 0 bytes long
// or torn (the state every file renamed into place without an fsync could be left in).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>

#include "storage/checkpoint_file.h"
#include "storage/durable_file.h"
#include "storage/log_manager.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::read_text;
using test::TempDir;

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

mode_t mode_of(const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 0777;
}

TEST(DurableFile, ReplacesTheFileAndLeavesNoTemporary) {
    TempDir dir;
    const fs::path file = dir.path() / "meta.properties";
    ASSERT_TRUE(write_file_atomically(file, "first\n"));
    EXPECT_EQ(read_text(file), "first\n");
    // A leftover .tmp of an earlier crash is replaced, not appended to.
    write_text(dir.path() / "meta.properties.tmp", "stale bytes of a crashed write");
    ASSERT_TRUE(write_file_atomically(file, "second\n"));
    EXPECT_EQ(read_text(file), "second\n");
    EXPECT_FALSE(fs::exists(dir.path() / "meta.properties.tmp"));
    EXPECT_EQ(
        mode_of(file), 0644u & ~[] {
            mode_t m = ::umask(0);
            ::umask(m);
            return m;
        }());
}

TEST(DurableFile, BinaryBytesAndAModeOfItsOwn) {
    TempDir dir;
    const fs::path file = dir.path() / "secret";
    const std::string bytes("a\0b\0", 4);
    ASSERT_TRUE(write_file_atomically(file, bytes, 0600));
    EXPECT_EQ(read_text(file), bytes);
    EXPECT_EQ(mode_of(file), 0600u);
}

TEST(DurableFile, FailureLeavesTheOldFile) {
    TempDir dir;
    const fs::path file = dir.path() / "ckpt";
    ASSERT_TRUE(write_file_atomically(file, "old"));
    // The temporary cannot be created (a directory holds its name): the old file stays whole.
    fs::create_directory(dir.path() / "ckpt.tmp");
    fs::create_directory(dir.path() / "ckpt.tmp" / "x");
    auto written = write_file_atomically(file, "new");
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("ckpt.tmp"), std::string::npos)
        << written.error().message;
    EXPECT_EQ(read_text(file), "old");
    // A directory that does not exist: an error naming the file, nothing created.
    auto missing = write_file_atomically(dir.path() / "no" / "such", "x");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("no/such.tmp"), std::string::npos);
}

TEST(DurableFile, RemoveIsDurableAndAbsentIsFine) {
    TempDir dir;
    const fs::path file = dir.path() / ".kafka_cleanshutdown";
    ASSERT_TRUE(write_file_atomically(file, ""));
    EXPECT_TRUE(fs::exists(file));
    EXPECT_TRUE(remove_file_durably(file));
    EXPECT_FALSE(fs::exists(file));
    EXPECT_TRUE(remove_file_durably(file));
}

// A log dir with one partition of 4 segments, closed cleanly: marker, checkpoints.
void make_log_dir(const fs::path& dir) {
    auto manager = LogManager::open(dir, test::config(), test::fixed_now);
    ASSERT_TRUE(manager);
    auto log = (*manager)->get_or_create({"t", 0});
    ASSERT_TRUE(log);
    test::fill(**log);
    ASSERT_TRUE((*manager)->close());
}

struct Reopened {
    std::unique_ptr<LogManager> manager;
    PartitionLog* log = nullptr;
};

Reopened reopen(const fs::path& dir) {
    auto manager = LogManager::open(dir, test::config(), test::fixed_now);
    EXPECT_TRUE(manager) << manager.error().message;
    if (!manager)
        return {};
    Reopened r{std::move(*manager), nullptr};
    r.log = r.manager->get({"t", 0});
    return r;
}

TEST(DurableFile, ZeroByteOrTornRecoveryPointCheckpointCostsAFullRecoveryOnly) {
    for (const std::string& content :
         {std::string(), std::string("0\n1\nt 0"), std::string(64, '\0')}) {
        TempDir dir;
        make_log_dir(dir.path());
        // Even with the clean-shutdown marker: a checkpoint that does not parse is not trusted.
        ASSERT_TRUE(fs::exists(dir.path() / kCleanShutdownMarker));
        write_text(dir.path() / kRecoveryPointCheckpoint, content);
        auto r = reopen(dir.path());
        ASSERT_NE(r.log, nullptr);
        EXPECT_EQ(r.manager->recovery_stats().segments_validated, 4)
            << "content size " << content.size();
        EXPECT_EQ(r.log->log_start_offset(), 0);
        EXPECT_EQ(r.log->log_end_offset(), 40);
        EXPECT_TRUE(r.log->recovery_problems().empty());
        // The marker is gone at once, and the next close writes a whole checkpoint again.
        EXPECT_FALSE(fs::exists(dir.path() / kCleanShutdownMarker));
        ASSERT_TRUE(r.manager->close());
        auto points = read_checkpoint(dir.path() / kRecoveryPointCheckpoint);
        ASSERT_TRUE(points);
        EXPECT_EQ(points->at({"t", 0}), 40);
    }
}

TEST(DurableFile, ZeroByteLogStartCheckpointFallsBackToTheFirstSegment) {
    TempDir dir;
    make_log_dir(dir.path());
    write_text(dir.path() / kLogStartOffsetCheckpoint, "");
    auto r = reopen(dir.path());
    ASSERT_NE(r.log, nullptr);
    EXPECT_EQ(r.log->log_start_offset(), 0);
    EXPECT_EQ(r.log->log_end_offset(), 40);
    EXPECT_EQ(r.manager->recovery_stats().segments_validated, 0);  // the marker still counts
}

TEST(DurableFile, CheckpointsAndMarkerAreWrittenWhole) {
    TempDir dir;
    make_log_dir(dir.path());
    for (const char* name : {kRecoveryPointCheckpoint, kLogStartOffsetCheckpoint})
        EXPECT_TRUE(read_checkpoint(dir.path() / name)) << name;
    EXPECT_TRUE(fs::exists(dir.path() / kCleanShutdownMarker));
    for (const auto& entry : fs::recursive_directory_iterator(dir.path()))
        EXPECT_FALSE(entry.path().string().ends_with(".tmp")) << entry.path();
}

}  // namespace
}  // namespace skiff::storage
