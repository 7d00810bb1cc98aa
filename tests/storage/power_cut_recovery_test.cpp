// Recovery from the on-disk states a power cut leaves (files crafted here as the page cache
// would have lost them): sealed segments below the recovery point with zeroed, untrimmed or
// emptied indexes, a sealed segment shorter than its index claims, an empty or short segment
// followed by later ones. Each test asserts the outcome of the open, that the log is contiguous,
// that lookups and retention are right, and that `skiff dump-log --verify` flags the state
// before recovery and passes after.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>

#include "storage/checkpoint_file.h"
#include "storage/partition_log.h"
#include "storage/producer_snapshot.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

#ifndef SKIFF_BINARY
#error "SKIFF_BINARY must name the built skiff executable"
#endif

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::fixed_now;
using test::segment_files;
using test::TempDir;

int verify_exit_code(const fs::path& dir, std::string* output = nullptr) {
    const std::string command =
        std::string(SKIFF_BINARY) + " dump-log --verify " + dir.string() + " 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe)
        return -1;
    std::array<char, 4096> buffer{};
    std::string out;
    size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        out.append(buffer.data(), n);
    const int status = ::pclose(pipe);
    if (output)
        *output = out;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Retention that keeps every segment of fill() by its real timestamps (1000..2905, the clock at
// 10,000) and deletes one whose max timestamp reads as 0.
LogConfig retention_config() {
    LogConfig c = test::config();
    c.retention_ms = 9'000;
    return c;
}

// A partition directory inside a broker's log dir (as dump-log --verify checks contiguity only
// there), never cleaned by the log cleaner.
class PartitionDir {
  public:
    PartitionDir() : path_(root_.path() / "t-0") {
        fs::create_directory(path_);
        EXPECT_TRUE(write_checkpoint(root_.path() / kRecoveryPointCheckpoint, {}));
    }
    const fs::path& path() const { return path_; }

  private:
    TempDir root_;
    fs::path path_;
};

using test::base_of;

// fill(): 4 segments, 40 offsets, closed cleanly (sealed indexes trimmed and fsynced).
std::vector<int64_t> write_log(const fs::path& dir) {
    auto log = PartitionLog::open(dir, retention_config(), fixed_now);
    EXPECT_TRUE(log);
    test::fill(**log);
    EXPECT_TRUE((*log)->close());
    std::vector<int64_t> bases;
    for (const auto& f : segment_files(dir, kLogSuffix))
        bases.push_back(base_of(f));
    EXPECT_EQ(bases.size(), 4u);
    return bases;
}

fs::path segment_path(const fs::path& dir, int64_t base, std::string_view suffix) {
    return dir / segment_file_name(base, suffix);
}

void write_zeros(const fs::path& path, size_t bytes) {
    test::write_file(path, std::vector<std::byte>(bytes));
}

void expect_contiguous(const PartitionLog& log) {
    auto set = log.segments();
    for (size_t i = 0; i + 1 < set->size(); ++i)
        EXPECT_EQ((*set)[i]->next_offset(), (*set)[i + 1]->base_offset()) << "segment " << i;
    EXPECT_EQ(set->active()->next_offset(), log.log_end_offset());
}

std::string joined(const std::vector<std::string>& problems) {
    std::string all;
    for (const auto& p : problems)
        all += p + "\n";
    return all;
}

// What every offset and timestamp lookup answers on an intact copy of the log.
struct Answers {
    std::vector<int64_t> batch_of_offset;
    std::vector<int64_t> offset_of_timestamp;
};

Answers answers(const PartitionLog& log) {
    Answers a;
    for (int64_t o = 0; o < log.log_end_offset(); ++o) {
        auto found = log.lookup(o);
        a.batch_of_offset.push_back(found ? found->batch_position : -1);
    }
    for (int64_t ts = 900; ts <= 3000; ts += 35) {
        auto found = log.offset_for_timestamp(ts);
        a.offset_of_timestamp.push_back(found ? found->offset : -1);
    }
    return a;
}

Answers reference_answers() {
    TempDir dir;
    write_log(dir.path());
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, true);
    EXPECT_TRUE(log);
    return answers(**log);
}

// Defect 2 of the power-cut report: sealed segments below the recovery point kept their
// preallocated all-zero indexes (the seal never reached the disk). Trusted as they were, their
// max timestamp read as 0 and retention deleted them at once.
TEST(PowerCutRecoveryTest, UntrimmedZeroedIndexesBelowTheRecoveryPointAreRebuilt) {
    const Answers expected = reference_answers();
    PartitionDir dir;
    auto bases = write_log(dir.path());
    for (int64_t base : {bases[0], bases[1], bases[2]}) {
        write_zeros(segment_path(dir.path(), base, kIndexSuffix), 4096);
        write_zeros(segment_path(dir.path(), base, kTimeIndexSuffix), 4092);
    }
    EXPECT_EQ(verify_exit_code(dir.path()), 1);
    // Unclean, the recovery point at the active segment: every sealed segment is trusted.
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, false, bases[3]);
    ASSERT_TRUE(log) << log.error().message;
    const std::string problems = joined((*log)->recovery_problems());
    EXPECT_NE(problems.find("not trimmed"), std::string::npos) << problems;
    EXPECT_EQ((*log)->log_end_offset(), 40);
    expect_contiguous(**log);
    EXPECT_EQ((*log)->apply_retention(), 0u);
    EXPECT_EQ((*log)->log_start_offset(), 0);
    const Answers got = answers(**log);
    EXPECT_EQ(got.batch_of_offset, expected.batch_of_offset);
    EXPECT_EQ(got.offset_of_timestamp, expected.offset_of_timestamp);
    // The rebuilt indexes are fsynced before anything trusts them again.
    EXPECT_TRUE((*log)->flush_pending());
    ASSERT_TRUE((*log)->flush_rolled());
    EXPECT_FALSE((*log)->flush_pending());
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
    // And the next start trusts them without a rebuild.
    auto again = PartitionLog::open(dir.path(), retention_config(), fixed_now, true);
    ASSERT_TRUE(again);
    EXPECT_TRUE((*again)->recovery_problems().empty()) << joined((*again)->recovery_problems());
}

// The same with the trim on disk but not the entries: the right size, zeros inside.
TEST(PowerCutRecoveryTest, TrimmedIndexesWithZeroedEntriesAreRebuilt) {
    const Answers expected = reference_answers();
    PartitionDir dir;
    auto bases = write_log(dir.path());
    for (auto suffix : {kIndexSuffix, kTimeIndexSuffix}) {
        const fs::path p = segment_path(dir.path(), bases[1], suffix);
        const auto size = fs::file_size(p);
        ASSERT_GT(size, 0u);
        write_zeros(p, size);
    }
    EXPECT_EQ(verify_exit_code(dir.path()), 1);
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, true);
    ASSERT_TRUE(log);
    const std::string problems = joined((*log)->recovery_problems());
    EXPECT_NE(problems.find(segment_file_name(bases[1], kIndexSuffix)), std::string::npos)
        << problems;
    EXPECT_EQ((*log)->apply_retention(), 0u);
    const Answers got = answers(**log);
    EXPECT_EQ(got.batch_of_offset, expected.batch_of_offset);
    EXPECT_EQ(got.offset_of_timestamp, expected.offset_of_timestamp);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
}

// A time index emptied (0 bytes) beside a sound offset index: rebuilt, never a max timestamp
// of 0 or none.
TEST(PowerCutRecoveryTest, EmptiedTimeIndexIsRebuilt) {
    const Answers expected = reference_answers();
    PartitionDir dir;
    auto bases = write_log(dir.path());
    write_zeros(segment_path(dir.path(), bases[0], kTimeIndexSuffix), 0);
    EXPECT_EQ(verify_exit_code(dir.path()), 1);
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, true);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->recovery_problems().size(), 1u) << joined((*log)->recovery_problems());
    auto first = (*log)->segments()->segments().front();
    ASSERT_TRUE(first->max_timestamp());
    EXPECT_GT(first->max_timestamp()->timestamp, 1000);
    EXPECT_EQ((*log)->apply_retention(), 0u);
    EXPECT_EQ(answers(**log).offset_of_timestamp, expected.offset_of_timestamp);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
}

// Retention by time of a segment whose time index is empty on its own (no entry at all: its
// batches carry no timestamp) falls back to the .log's modification time, as Kafka's does.
TEST(PowerCutRecoveryTest, NoTimestampFallsBackToTheFileTime) {
    PartitionDir dir;
    LogConfig c = retention_config();
    {
        auto log = PartitionLog::open(dir.path(), c, fixed_now);
        ASSERT_TRUE(log);
        for (int i = 0; i < 10; ++i)
            test::append_batch(**log, 2, 190, -1, 0);
        ASSERT_GE((*log)->segment_count(), 2u);
        ASSERT_TRUE((*log)->close());
    }
    auto log = PartitionLog::open(dir.path(), c, Clock{}, true);
    ASSERT_TRUE(log);
    // Written just now by the file's time: kept under a 9 s retention.
    EXPECT_EQ((*log)->apply_retention(), 0u);
}

// Defect 3: a segment rolled just before the cut lost its data (0 bytes) while the next
// segment's file was on disk. The log used to keep both and jump the hole.
TEST(PowerCutRecoveryTest, EmptySegmentFollowedByLaterOnesCutsTheLogThere) {
    PartitionDir dir;
    auto bases = write_log(dir.path());
    write_zeros(segment_path(dir.path(), bases[2], kLogSuffix), 0);
    write_zeros(segment_path(dir.path(), bases[2], kIndexSuffix), 4096);
    write_zeros(segment_path(dir.path(), bases[2], kTimeIndexSuffix), 4092);
    std::string out;
    EXPECT_EQ(verify_exit_code(dir.path(), &out), 1);
    EXPECT_NE(out.find("are missing"), std::string::npos) << out;
    // The recovery point at segment 2's base: it and what follows are recovered.
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, false, bases[2]);
    ASSERT_TRUE(log) << log.error().message;
    const std::string problems = joined((*log)->recovery_problems());
    EXPECT_NE(problems.find("deleted segment " + std::to_string(bases[3])), std::string::npos)
        << problems;
    EXPECT_EQ((*log)->log_end_offset(), bases[2]);
    EXPECT_EQ((*log)->high_watermark(), bases[2]);
    EXPECT_EQ((*log)->segment_count(), 3u);
    expect_contiguous(**log);
    EXPECT_FALSE(fs::exists(segment_path(dir.path(), bases[3], kLogSuffix)));
    // No producer snapshot beyond the new end.
    for (const auto& snap : segment_files(dir.path(), kSnapshotSuffix))
        EXPECT_LE(base_of(snap), bases[2]) << snap;
    // Everything before the hole is intact; the next append continues the offsets.
    EXPECT_TRUE((*log)->lookup(bases[2] - 1));
    auto appended = test::append_batch(**log, 2, 150, 5000, 1);
    EXPECT_EQ(appended.base_offset, bases[2]);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
}

// The same loss at a batch boundary: the segment is short, not torn.
TEST(PowerCutRecoveryTest, ShortSegmentFollowedByLaterOnesCutsTheLogAtItsEnd) {
    PartitionDir dir;
    auto bases = write_log(dir.path());
    // The first batch of segment 1 (fill's batches are 100..190 bytes; read its length).
    const fs::path log_file = segment_path(dir.path(), bases[1], kLogSuffix);
    auto bytes = test::read_file(log_file);
    ASSERT_GT(bytes.size(), 12u);
    const size_t first = 12 + static_cast<size_t>((int(bytes[8]) << 24) | (int(bytes[9]) << 16) |
                                                  (int(bytes[10]) << 8) | int(bytes[11]));
    bytes.resize(first);
    test::write_file(log_file, bytes);
    EXPECT_EQ(verify_exit_code(dir.path()), 1);
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, false, bases[1]);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->log_end_offset(), bases[1] + 2);  // fill's batches hold 2 records
    EXPECT_EQ((*log)->segment_count(), 2u);
    expect_contiguous(**log);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
}

// A trusted segment (below the recovery point) whose .log is shorter than its index claims:
// the index fails its check, the segment is recovered, and what follows it goes.
TEST(PowerCutRecoveryTest, TrustedSegmentShorterThanItsIndexCutsTheLog) {
    PartitionDir dir;
    auto bases = write_log(dir.path());
    const fs::path log_file = segment_path(dir.path(), bases[0], kLogSuffix);
    fs::resize_file(log_file, 150);  // inside the second batch: torn
    EXPECT_EQ(verify_exit_code(dir.path()), 1);
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, true);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->log_end_offset(), 2);
    EXPECT_EQ((*log)->segment_count(), 1u);
    expect_contiguous(**log);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
}

// A compacted log's segments may end before the next begins: only a torn one cuts the log.
TEST(PowerCutRecoveryTest, CleanedLogKeepsSegmentsThatEndEarly) {
    PartitionDir dir;
    auto bases = write_log(dir.path());
    const fs::path log_file = segment_path(dir.path(), bases[1], kLogSuffix);
    auto bytes = test::read_file(log_file);
    const size_t first = 12 + static_cast<size_t>((int(bytes[8]) << 24) | (int(bytes[9]) << 16) |
                                                  (int(bytes[10]) << 8) | int(bytes[11]));
    bytes.resize(first);
    test::write_file(log_file, bytes);
    fs::remove(segment_path(dir.path(), bases[1], kIndexSuffix));
    fs::remove(segment_path(dir.path(), bases[1], kTimeIndexSuffix));
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, false, bases[1], 0,
                                  /*cleaned_before=*/true);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->segment_count(), 4u);
    EXPECT_EQ((*log)->log_end_offset(), 40);
}

// The last segment empty is the normal state after a roll: nothing is cut.
TEST(PowerCutRecoveryTest, EmptyActiveSegmentIsKept) {
    PartitionDir dir;
    auto bases = write_log(dir.path());
    write_zeros(segment_path(dir.path(), bases[3], kLogSuffix), 0);
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, false, bases[3]);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->segment_count(), 4u);
    EXPECT_EQ((*log)->log_end_offset(), bases[3]);
    expect_contiguous(**log);
}

// Appends zeros to a .log: what durable mode's reservation ahead of the data leaves (the file
// grown past it, LogSegment::append) when a crash comes before the segment is trimmed.
void append_zeros(const fs::path& path, size_t bytes) {
    auto content = test::read_file(path);
    content.resize(content.size() + bytes);
    test::write_file(path, content);
}

// A power cut between a roll and the sync of the sealed segment's trim: the segment's data is
// whole, but its file is still as long as durable mode grew it. The zeros go; the segments
// after it, acknowledged and synced, stay (a torn tail would remove them).
TEST(PowerCutRecoveryTest, ZerosPastASealedSegmentsDataAreCutAndTheLaterSegmentsKept) {
    PartitionDir dir;
    auto bases = write_log(dir.path());
    const fs::path log_file = segment_path(dir.path(), bases[1], kLogSuffix);
    const auto data = fs::file_size(log_file);
    append_zeros(log_file, 100'000);
    std::string out;
    EXPECT_EQ(verify_exit_code(dir.path(), &out), 1);
    EXPECT_NE(out.find("sealed with zeros from position " + std::to_string(data)),
              std::string::npos)
        << out;
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, false, bases[1]);
    ASSERT_TRUE(log) << log.error().message;
    EXPECT_TRUE((*log)->recovery_problems().empty()) << joined((*log)->recovery_problems());
    EXPECT_EQ((*log)->segment_count(), 4u);
    EXPECT_EQ((*log)->log_end_offset(), 40);
    expect_contiguous(**log);
    EXPECT_EQ(fs::file_size(log_file), data);
    EXPECT_EQ(answers(**log).batch_of_offset, reference_answers().batch_of_offset);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
}

// Zeros followed by anything else are no reservation: a torn or overwritten tail, cut with
// everything after it as before.
TEST(PowerCutRecoveryTest, ATailOfZerosThatEndsInGarbageIsTorn) {
    PartitionDir dir;
    auto bases = write_log(dir.path());
    const fs::path log_file = segment_path(dir.path(), bases[1], kLogSuffix);
    append_zeros(log_file, 100'000);
    auto bytes = test::read_file(log_file);
    bytes.back() = std::byte{1};
    test::write_file(log_file, bytes);
    EXPECT_EQ(verify_exit_code(dir.path()), 1);
    auto log = PartitionLog::open(dir.path(), retention_config(), fixed_now, false, bases[1]);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->segment_count(), 2u);
    EXPECT_EQ((*log)->log_end_offset(), bases[2]);
    expect_contiguous(**log);
}

// Durable mode (flush.messages=1) grows the active segment's file ahead of its data, so that a
// sync after an append writes the data but not the file size. After a crash the zeros past the
// data are cut without a word; everything appended is there, and the next append follows it.
TEST(PowerCutRecoveryTest, ACrashedDurableLogLosesNothingToItsReservedZeros) {
    PartitionDir dir;
    LogConfig durable = retention_config();
    durable.flush_interval_messages = 1;
    const fs::path active = segment_path(dir.path(), 0, kLogSuffix);
    int64_t data = 0;
    {
        auto log = PartitionLog::open(dir.path(), durable, fixed_now);
        ASSERT_TRUE(log);
        for (int i = 0; i < 3; ++i)
            test::append_batch(**log, 2, 150, 1000 + i);
        data = (*log)->segments()->active()->size_bytes();
        EXPECT_EQ(data, 450);
        EXPECT_GE(fs::file_size(active), 1u << 20) << "not grown ahead of the data";
        // Dropped without close(): a crash.
    }
    EXPECT_EQ(verify_exit_code(dir.path()), 0);  // zeros in the active segment are no problem
    {
        auto log = PartitionLog::open(dir.path(), durable, fixed_now, false, 0);
        ASSERT_TRUE(log) << log.error().message;
        EXPECT_TRUE((*log)->recovery_problems().empty()) << joined((*log)->recovery_problems());
        EXPECT_EQ((*log)->log_end_offset(), 6);
        EXPECT_EQ(fs::file_size(active), static_cast<uintmax_t>(data));
        EXPECT_EQ(test::append_batch(**log, 2, 150, 1003).base_offset, 6);
        ASSERT_TRUE((*log)->close());
    }
    // A clean close leaves the file exactly as long as its batches.
    EXPECT_EQ(fs::file_size(active), static_cast<uintmax_t>(data + 150));
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
    // The same crash, with the log reopened as if cleanly closed (a power cut took back the
    // close's trim): the active segment's zeros are not data either.
    {
        auto log = PartitionLog::open(dir.path(), durable, fixed_now);
        ASSERT_TRUE(log);
        test::append_batch(**log, 2, 150, 1004);
    }
    {
        auto log = PartitionLog::open(dir.path(), durable, fixed_now, true);
        ASSERT_TRUE(log) << log.error().message;
        EXPECT_TRUE((*log)->recovery_problems().empty()) << joined((*log)->recovery_problems());
        EXPECT_EQ((*log)->log_end_offset(), 10);
        EXPECT_EQ(test::append_batch(**log, 2, 150, 1005).base_offset, 10);
        ASSERT_TRUE((*log)->close());
    }
    uintmax_t on_disk = 0;  // (the reopened segment may have rolled by time: all of them)
    for (const auto& f : segment_files(dir.path(), kLogSuffix))
        on_disk += fs::file_size(f);
    EXPECT_EQ(on_disk, static_cast<uintmax_t>(data + 450));
    EXPECT_EQ(verify_exit_code(dir.path()), 0);
}

}  // namespace
}  // namespace skiff::storage
