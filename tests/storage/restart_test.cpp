// Restart after a crash in bounded time: the recovery point follows rolls through the
// background flush, segments below it are trusted at the next open (not read, not changed),
// checkpoints are replaced atomically, and parallel loading gives the serial result.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "storage/checkpoint_file.h"
#include "storage/log_manager.h"
#include "storage/partition_log.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::append_batch;
using test::TempDir;

using test::config;
using test::fill;
using test::fixed_now;
using test::segment_files;

using test::base_of;

struct timespec change_time(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_ctim;
}

TEST(RestartTest, RollLeavesTheFlushToTheBackgroundAndThenMovesTheRecoveryPoint) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), config(), fixed_now);
    ASSERT_TRUE(log);
    fill(**log);
    auto bases = segment_files(dir.path(), kLogSuffix);
    ASSERT_EQ(bases.size(), 4u);
    const int64_t active_base = base_of(bases.back());
    // Rolling flushed nothing: the recovery point has not moved, the flush is pending.
    EXPECT_EQ((*log)->recovery_point(), 0);
    EXPECT_TRUE((*log)->flush_pending());
    auto flushed = (*log)->flush_rolled();
    ASSERT_TRUE(flushed);
    EXPECT_TRUE(*flushed);
    // Up to the active segment, not into it: its bytes were not flushed.
    EXPECT_EQ((*log)->recovery_point(), active_base);
    EXPECT_FALSE((*log)->flush_pending());
    flushed = (*log)->flush_rolled();
    ASSERT_TRUE(flushed);
    EXPECT_FALSE(*flushed);
    // The next roll makes it pending again.
    fill(**log, 20, 30);
    ASSERT_GT(segment_files(dir.path(), kLogSuffix).size(), 4u);
    EXPECT_TRUE((*log)->flush_pending());
    ASSERT_TRUE((*log)->flush_rolled());
    EXPECT_EQ((*log)->recovery_point(), base_of(segment_files(dir.path(), kLogSuffix).back()));
}

// Fills a log, lets the background flush move its recovery point, then drops it without
// close(): a crash. Returns the recovery point reached.
int64_t fill_flush_and_crash(const fs::path& dir) {
    auto log = PartitionLog::open(dir, config(), fixed_now);
    EXPECT_TRUE(log);
    fill(**log);
    EXPECT_TRUE((*log)->flush_rolled());
    return (*log)->recovery_point();
}

TEST(RestartTest, AfterACrashOnlyTheActiveSegmentIsValidated) {
    TempDir dir;
    const int64_t recovery_point = fill_flush_and_crash(dir.path());
    auto logs = segment_files(dir.path(), kLogSuffix);
    ASSERT_EQ(logs.size(), 4u);
    ASSERT_EQ(recovery_point, base_of(logs.back()));
    // A flipped payload byte in an old sealed segment: its CRC no longer matches, so validating
    // it would truncate it there (and delete every later segment).
    auto old_bytes = test::read_file(logs[0]);
    old_bytes[protocol::read_batch_header(old_bytes).size_bytes() + 70] ^= std::byte{0x01};
    test::write_file(logs[0], old_bytes);
    // A torn write in the active segment: its second batch cut short.
    auto active = test::read_file(logs.back());
    const size_t second = protocol::read_batch_header(active).size_bytes();
    active.resize(second + 30);
    test::write_file(logs.back(), active);
    std::vector<struct timespec> sealed_ctimes;
    for (size_t i = 0; i + 1 < logs.size(); ++i)
        for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix})
            sealed_ctimes.push_back(
                change_time(dir.path() / segment_file_name(base_of(logs[i]), suffix)));
    // ctime has the kernel's tick as granularity: let a change be visible.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));

    auto log = PartitionLog::open(dir.path(), config(), fixed_now, false, recovery_point, 0);
    ASSERT_TRUE(log);
    const RecoveryStats& stats = (*log)->recovery_stats();
    EXPECT_EQ(stats.segments, 4);
    EXPECT_EQ(stats.segments_validated, 1);  // the active one only
    EXPECT_EQ(stats.bytes_validated, static_cast<int64_t>(second));
    ASSERT_EQ((*log)->recovery_problems().size(), 1u);
    EXPECT_NE((*log)->recovery_problems()[0].find(logs.back().filename().string()),
              std::string::npos);
    // The torn batch is gone, every batch before it is there, the old segment untouched.
    EXPECT_EQ((*log)->log_end_offset(), recovery_point + 2);
    EXPECT_EQ((*log)->segment_count(), 4u);
    EXPECT_EQ(test::read_file(logs[0]), old_bytes);
    for (int64_t o = 0; o < recovery_point + 2; ++o)
        EXPECT_TRUE((*log)->lookup(o)) << o;
    // Trusted segments were not written to: not even truncated to their own size.
    size_t k = 0;
    for (size_t i = 0; i + 1 < logs.size(); ++i)
        for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix}) {
            auto now = change_time(dir.path() / segment_file_name(base_of(logs[i]), suffix));
            EXPECT_EQ(now.tv_sec, sealed_ctimes[k].tv_sec);
            EXPECT_EQ(now.tv_nsec, sealed_ctimes[k].tv_nsec) << logs[i] << suffix;
            ++k;
        }
    // Trusted segments still answer: offsets, timestamps, the max timestamp.
    auto m = (*log)->max_timestamp();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->offset, recovery_point + 1);
    auto t = (*log)->offset_for_timestamp(1000 + 100 * 5 + 5);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->offset, 11);
    EXPECT_EQ(append_batch(**log, 1, 100).base_offset, recovery_point + 2);
    // The segments it validated are handed to the background flush.
    EXPECT_FALSE((*log)->flush_pending());
}

TEST(RestartTest, WithoutTheBackgroundFlushTheCrashValidatesEverySegment) {
    // The control for the test above: the same damage with the recovery point left at 0.
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), config(), fixed_now);
        fill(**log);
    }
    auto logs = segment_files(dir.path(), kLogSuffix);
    auto old_bytes = test::read_file(logs[0]);
    const size_t first = protocol::read_batch_header(old_bytes).size_bytes();
    old_bytes[first + 70] ^= std::byte{0x01};
    test::write_file(logs[0], old_bytes);
    auto log = PartitionLog::open(dir.path(), config(), fixed_now, false, 0, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->recovery_stats().segments_validated, 1);  // then the rest was deleted
    EXPECT_EQ((*log)->segment_count(), 1u);
    EXPECT_EQ(fs::file_size(logs[0]), first);
    EXPECT_EQ((*log)->log_end_offset(), 2);
}

TEST(RestartTest, ValidatedSegmentsAboveTheRecoveryPointAreFlushedInTheBackground) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), config(), fixed_now);
        fill(**log);
    }
    auto log = PartitionLog::open(dir.path(), config(), fixed_now, false, 0, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->recovery_stats().segments_validated, 4);
    EXPECT_EQ((*log)->recovery_point(), 0);
    EXPECT_TRUE((*log)->flush_pending());
    ASSERT_TRUE((*log)->flush_rolled());
    EXPECT_EQ((*log)->recovery_point(), base_of(segment_files(dir.path(), kLogSuffix).back()));
}

TEST(RestartTest, ImplausibleIndexOfATrustedSegmentIsRebuiltAndReported) {
    TempDir dir;
    const int64_t recovery_point = fill_flush_and_crash(dir.path());
    auto indexes = segment_files(dir.path(), kIndexSuffix);
    auto original = test::read_file(indexes[1]);
    ASSERT_GE(original.size(), 16u);
    auto bad = original;
    bad[bad.size() - 4] = std::byte{0x7f};  // last entry's position far outside the .log
    test::write_file(indexes[1], bad);
    auto log = PartitionLog::open(dir.path(), config(), fixed_now, false, recovery_point, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->recovery_stats().segments_validated, 2);  // it and the active one
    EXPECT_EQ((*log)->recovery_problems().size(), 1u);          // the active one's tail is sound
    EXPECT_EQ(test::read_file(indexes[1]), original);
    EXPECT_EQ((*log)->log_end_offset(), 40);
}

TEST(RestartTest, CheckpointsAreReplacedAtomicallyAndFollowTheBackgroundFlush) {
    TempDir dir;
    auto m = LogManager::open(dir.path(), config(), fixed_now);
    ASSERT_TRUE(m);
    auto log = (*m)->get_or_create({"t", 0});
    ASSERT_TRUE(log);
    fill(**log);
    const fs::path file = dir.path() / kRecoveryPointCheckpoint;
    ASSERT_TRUE((*m)->checkpoint());
    EXPECT_EQ(test::read_text(file), "0\n1\nt 0 0\n");
    struct stat before {};
    ASSERT_EQ(::stat(file.c_str(), &before), 0);

    auto report = (*m)->flush_rolled();
    EXPECT_EQ(report.advanced, 1u);
    EXPECT_TRUE(report.errors.empty());
    EXPECT_EQ((*m)->flush_rolled().advanced, 0u);  // nothing new
    ASSERT_TRUE((*m)->checkpoint_recovery_points());
    const int64_t point = (**log).recovery_point();
    EXPECT_GT(point, 0);
    EXPECT_EQ(test::read_text(file), "0\n1\nt 0 " + std::to_string(point) + "\n");
    // A new file renamed over the old one (never rewritten in place), no temporary left.
    struct stat after {};
    ASSERT_EQ(::stat(file.c_str(), &after), 0);
    EXPECT_NE(after.st_ino, before.st_ino);
    EXPECT_FALSE(fs::exists(dir.path() / (std::string(kRecoveryPointCheckpoint) + ".tmp")));
    // The log start offsets have their own file and call.
    ASSERT_TRUE((*m)->checkpoint_log_start_offsets());
    EXPECT_EQ(test::read_text(dir.path() / kLogStartOffsetCheckpoint), "0\n1\nt 0 0\n");

    // A crash now: the next open trusts everything below the checkpointed point.
    m->reset();
    auto reopened = LogManager::open(dir.path(), config(), fixed_now);
    ASSERT_TRUE(reopened);
    EXPECT_FALSE((*reopened)->recovered_cleanly());
    EXPECT_EQ((*reopened)->recovery_stats().segments, 4);
    EXPECT_EQ((*reopened)->recovery_stats().segments_validated, 1);
    EXPECT_EQ((*reopened)->get({"t", 0})->log_end_offset(), 40);
}

// One partition's state after open, to compare serial and parallel loading.
struct Loaded {
    int64_t log_start = 0, log_end = 0, recovery_point = 0;
    size_t segments = 0, problems = 0;
    int64_t validated = 0;
    bool operator==(const Loaded&) const = default;
};

std::map<TopicPartition, Loaded> load_all(const fs::path& dir, int threads) {
    auto m = LogManager::open(dir, config(), fixed_now, threads);
    EXPECT_TRUE(m);
    std::map<TopicPartition, Loaded> out;
    for (const auto& tp : (*m)->partitions()) {
        auto* log = (*m)->get(tp);
        out[tp] = Loaded{log->log_start_offset(),         log->log_end_offset(),
                         log->recovery_point(),           log->segment_count(),
                         log->recovery_problems().size(), log->recovery_stats().segments_validated};
    }
    return out;
}

TEST(RestartTest, ParallelRecoveryGivesTheSerialResult) {
    TempDir one;
    {
        auto m = LogManager::open(one.path(), config(), fixed_now);
        for (int p = 0; p < 16; ++p) {
            auto log = (*m)->get_or_create({"t", p});
            ASSERT_TRUE(log);
            fill(**log, 0, 4 + p);  // 1 to 4 segments
            if (p % 2 == 0)
                (void)(*log)->flush_rolled();
        }
        ASSERT_TRUE((*m)->checkpoint());
        // A crash; then damage: a torn tail in every third partition.
    }
    for (int p = 0; p < 16; p += 3) {
        auto logs = segment_files(one.path() / ("t-" + std::to_string(p)), kLogSuffix);
        fs::resize_file(logs.back(), fs::file_size(logs.back()) - 7);
    }
    TempDir two;
    fs::copy(one.path(), two.path(), fs::copy_options::recursive);

    auto serial = load_all(one.path(), 1);
    auto parallel = load_all(two.path(), 4);
    ASSERT_EQ(serial.size(), 16u);
    EXPECT_EQ(serial, parallel);
    size_t repaired = 0;
    for (const auto& [tp, l] : serial)
        repaired += l.problems > 0;
    EXPECT_EQ(repaired, 6u);  // partitions 0, 3, 6, 9, 12, 15
    // Byte for byte the same files.
    for (const auto& e : fs::recursive_directory_iterator(one.path())) {
        if (!e.is_regular_file() || e.path().filename() == kCleanShutdownMarker)
            continue;
        auto rel = fs::relative(e.path(), one.path());
        ASSERT_TRUE(fs::exists(two.path() / rel)) << rel;
        EXPECT_EQ(test::read_file(e.path()), test::read_file(two.path() / rel)) << rel;
    }
}

}  // namespace
}  // namespace skiff::storage
