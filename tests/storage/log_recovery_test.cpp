// Loading a partition directory: clean reopen, recovery of torn or corrupt tails, rebuilding
// missing or corrupt indexes, stray files.
#include "storage/log_recovery.h"

#include <gtest/gtest.h>

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

TEST(LogRecoveryTest, CleanReopenGivesTheSameState) {
    TempDir dir;
    int64_t size = 0;
    {
        auto log = PartitionLog::open(dir.path(), config(), fixed_now);
        ASSERT_TRUE(log);
        fill(**log);
        size = (*log)->size_bytes();
        ASSERT_TRUE((*log)->close());
    }
    auto files_before = segment_files(dir.path(), kIndexSuffix);
    std::vector<std::vector<std::byte>> indexes;
    for (const auto& f : files_before)
        indexes.push_back(test::read_file(f));

    auto log = PartitionLog::open(dir.path(), config(), fixed_now, true, 40, 0);
    ASSERT_TRUE(log);
    EXPECT_TRUE((*log)->recovery_problems().empty());
    EXPECT_EQ((*log)->log_end_offset(), 40);
    EXPECT_EQ((*log)->size_bytes(), size);
    EXPECT_EQ((*log)->recovery_point(), 40);
    EXPECT_EQ((*log)->segment_count(), files_before.size());
    for (int64_t o = 0; o < 40; ++o)
        EXPECT_TRUE((*log)->lookup(o)) << o;
    auto m = (*log)->max_timestamp();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->timestamp, 1000 + 100 * 19 + 5);
    EXPECT_EQ(m->offset, 39);
    // Sealed indexes untouched.
    for (size_t i = 0; i + 1 < files_before.size(); ++i)
        EXPECT_EQ(test::read_file(files_before[i]), indexes[i]);
    EXPECT_EQ(append_batch(**log, 1, 100).base_offset, 40);
}

TEST(LogRecoveryTest, ReopeningMidwayWritesTheSameFilesAsOneRun) {
    TempDir one, two;
    {
        auto log = PartitionLog::open(one.path(), config(), fixed_now);
        fill(**log);
        ASSERT_TRUE((*log)->close());
    }
    {
        auto log = PartitionLog::open(two.path(), config(), fixed_now);
        fill(**log, 0, 13);
        ASSERT_TRUE((*log)->close());
    }
    {
        auto log = PartitionLog::open(two.path(), config(), fixed_now, true, 26, 0);
        fill(**log, 13, 20);
        ASSERT_TRUE((*log)->close());
    }
    // The index counter is restored on reopen, so the .log and .index files are identical.
    // (.timeindex differs by design: close() adds a final entry to the then-active segment.)
    for (auto suffix : {kLogSuffix, kIndexSuffix}) {
        auto a = segment_files(one.path(), suffix), b = segment_files(two.path(), suffix);
        ASSERT_EQ(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].filename(), b[i].filename());
            EXPECT_EQ(test::read_file(a[i]), test::read_file(b[i])) << a[i];
        }
    }
}

enum class Damage { cut_mid_batch, garbage_appended, flipped_crc_covered_byte };

class TornTailTest : public ::testing::TestWithParam<Damage> {};

TEST_P(TornTailTest, KeepsEveryBatchBeforeTheDamageAndContinuesAfterIt) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), config(), fixed_now);
        fill(**log);  // no close(): an unclean shutdown
    }
    auto logs = segment_files(dir.path(), kLogSuffix);
    ASSERT_GE(logs.size(), 3u);
    fs::path last = logs.back();
    auto bytes = test::read_file(last);
    int64_t base = *parse_segment_file_name(last.filename().string(), kLogSuffix);
    // The last segment's batches: find the position of its second batch.
    auto first = protocol::read_batch_header(bytes);
    size_t second = first.size_bytes();
    int64_t expect_end = 0;
    switch (GetParam()) {
        case Damage::cut_mid_batch:
            bytes.resize(second + 30);
            expect_end = base + 2;
            break;
        case Damage::garbage_appended:
            bytes.insert(bytes.end(), 77, std::byte{0x5a});
            expect_end = 40;
            break;
        case Damage::flipped_crc_covered_byte:
            bytes[second + 70] ^= std::byte{0x01};
            expect_end = base + 2;
            break;
    }
    test::write_file(last, bytes);

    auto log = PartitionLog::open(dir.path(), config(), fixed_now, false, 0, 0);
    ASSERT_TRUE(log);
    EXPECT_FALSE((*log)->recovery_problems().empty());
    EXPECT_EQ((*log)->log_end_offset(), expect_end);
    EXPECT_EQ((*log)->segment_count(), logs.size());
    for (int64_t o = 0; o < expect_end; ++o)
        EXPECT_TRUE((*log)->lookup(o)) << o;
    EXPECT_EQ(append_batch(**log, 1, 100).base_offset, expect_end);
    auto r = (*log)->read(0, 1 << 30, false);
    ASSERT_TRUE(r);
    for (const auto& slice : r->slices)
        EXPECT_TRUE(protocol::validate_batches(test::read_slice(slice)));
}

INSTANTIATE_TEST_SUITE_P(Damages, TornTailTest,
                         ::testing::Values(Damage::cut_mid_batch, Damage::garbage_appended,
                                           Damage::flipped_crc_covered_byte));

TEST(LogRecoveryTest, CorruptionInAnEarlierSegmentDeletesTheLaterOnes) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), config(), fixed_now);
        fill(**log);
    }
    auto logs = segment_files(dir.path(), kLogSuffix);
    auto bytes = test::read_file(logs[1]);
    int64_t base = *parse_segment_file_name(logs[1].filename().string(), kLogSuffix);
    bytes[protocol::read_batch_header(bytes).size_bytes() + 65] ^= std::byte{0x80};
    test::write_file(logs[1], bytes);

    // A recovery point in segment 1 still covers it.
    auto log = PartitionLog::open(dir.path(), config(), fixed_now, false, base + 1, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->segment_count(), 2u);
    EXPECT_EQ((*log)->log_end_offset(), base + 2);
    EXPECT_EQ(segment_files(dir.path(), kLogSuffix).size(), 2u);
    EXPECT_EQ(segment_files(dir.path(), kIndexSuffix).size(), 2u);
    EXPECT_EQ(append_batch(**log, 1, 100).base_offset, base + 2);
}

TEST(LogRecoveryTest, RecoveryPointLimitsRevalidation) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), config(), fixed_now);
        fill(**log);
    }
    auto logs = segment_files(dir.path(), kLogSuffix);
    auto bytes = test::read_file(logs[0]);
    bytes[protocol::read_batch_header(bytes).size_bytes() + 65] ^= std::byte{0x80};
    test::write_file(logs[0], bytes);
    // Segment 0 lies wholly before the recovery point: trusted, not re-validated.
    auto log = PartitionLog::open(dir.path(), config(), fixed_now, false, 38, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->log_end_offset(), 40);
    EXPECT_EQ((*log)->recovery_point(), 38);
}

class IndexRebuildTest : public ::testing::TestWithParam<std::string_view> {};

TEST_P(IndexRebuildTest, MissingOrCorruptIndexIsRebuiltByteIdentical) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), config(), fixed_now);
        fill(**log);
        ASSERT_TRUE((*log)->close());
    }
    auto files = segment_files(dir.path(), GetParam());
    ASSERT_GE(files.size(), 4u);
    std::vector<std::vector<std::byte>> originals;
    for (const auto& f : files)
        originals.push_back(test::read_file(f));
    ASSERT_FALSE(originals[1].empty());

    fs::remove(files[0]);         // missing
    auto garbage = originals[1];  // out of order
    std::reverse(garbage.begin(), garbage.end());
    test::write_file(files[1], garbage);
    auto truncated = originals[2];  // not whole entries
    truncated.resize(truncated.size() - 3);
    test::write_file(files[2], truncated);

    auto log = PartitionLog::open(dir.path(), config(), fixed_now, true, 40, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->recovery_problems().size(), 3u);
    for (size_t i = 0; i < 3; ++i)
        EXPECT_EQ(test::read_file(files[i]), originals[i]) << files[i];
    EXPECT_EQ((*log)->log_end_offset(), 40);
}

INSTANTIATE_TEST_SUITE_P(Indexes, IndexRebuildTest,
                         ::testing::Values(kIndexSuffix, kTimeIndexSuffix));

TEST(LogRecoveryTest, StrayFilesAreRemoved) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), config(), fixed_now);
        fill(**log, 0, 3);
        ASSERT_TRUE((*log)->close());
    }
    for (const char* name : {"00000000000000000000.log.tmp", "00000000000000000000.log.cleaned",
                             "00000000000000000000.log.deleted", "00000000000000000099.index",
                             "00000000000000000099.timeindex"})
        test::write_file(dir.path() / name, {std::byte{1}});
    auto log = PartitionLog::open(dir.path(), config(), fixed_now, true, 6, 0);
    ASSERT_TRUE(log);
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir.path()))
        names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names,
              (std::vector<std::string>{"00000000000000000000.index", "00000000000000000000.log",
                                        "00000000000000000000.timeindex",
                                        // producer state written by the clean close above
                                        "00000000000000000006.snapshot"}));
    EXPECT_EQ((*log)->log_end_offset(), 6);
}

}  // namespace
}  // namespace skiff::storage
