// Idempotent-producer state: Kafka's sequence rules, duplicates acknowledged with their original
// offsets, snapshots at roll and close, and the rebuild from the log after a crash.
#include "storage/producer_state.h"

#include <gtest/gtest.h>

#include "protocol/crc32c.h"
#include "protocol/record_batch.h"
#include "storage/big_endian.h"
#include "storage/partition_log.h"
#include "storage/producer_snapshot.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// A valid batch of `records` records from producer `pid`/`epoch` starting at `sequence`.
std::vector<std::byte> idempotent_batch(int64_t pid, int16_t epoch, int32_t sequence,
                                        int32_t records = 2, size_t size_bytes = 200) {
    auto bytes = test::make_batch(records, size_bytes);
    store_be<int64_t>(bytes.data() + 43, pid);
    store_be<int16_t>(bytes.data() + 51, epoch);
    store_be<int32_t>(bytes.data() + 53, sequence);
    store_be<uint32_t>(
        bytes.data() + protocol::kBatchCrcOffset,
        protocol::crc32c(std::span(bytes).subspan(protocol::kBatchAttributesOffset)));
    return bytes;
}

Expected<AppendResult, StorageError> append_idempotent(PartitionLog& log,
                                                       const std::vector<std::byte>& b) {
    auto summaries = protocol::validate_batches(b);
    EXPECT_TRUE(summaries) << (summaries ? "" : summaries.error().message);
    return log.append(b, *summaries);
}

protocol::BatchSummary summary(int64_t pid, int16_t epoch, int32_t sequence, int32_t records) {
    protocol::BatchSummary s;
    s.producer_id = pid;
    s.producer_epoch = epoch;
    s.base_sequence = sequence;
    s.last_offset_delta = records - 1;
    s.record_count = records;
    return s;
}

TEST(ProducerStateTest, FollowsKafkasSequenceRules) {
    ProducerState state;
    EXPECT_EQ(state.check(summary(7, 0, 42, 1)).verdict, SequenceVerdict::append)
        << "an unknown producer may start anywhere";
    state.record(summary(7, 0, 0, 3), 100);  // sequences 0-2 at offsets 100-102
    EXPECT_EQ(state.check(summary(7, 0, 3, 1)).verdict, SequenceVerdict::append);
    auto dup = state.check(summary(7, 0, 0, 3));
    EXPECT_EQ(dup.verdict, SequenceVerdict::duplicate);
    EXPECT_EQ(dup.duplicate_of.first_offset, 100);
    EXPECT_EQ(dup.duplicate_of.last_offset, 102);
    EXPECT_EQ(state.check(summary(7, 0, 4, 1)).verdict, SequenceVerdict::out_of_order_sequence);
    EXPECT_EQ(state.check(summary(7, 0, 1, 1)).verdict, SequenceVerdict::out_of_order_sequence);
    EXPECT_EQ(state.check(summary(7, 1, 3, 1)).verdict, SequenceVerdict::out_of_order_sequence)
        << "a new epoch starts at sequence 0";
    EXPECT_EQ(state.check(summary(7, 1, 0, 1)).verdict, SequenceVerdict::append);
    state.record(summary(7, 1, 0, 1), 103);
    EXPECT_EQ(state.check(summary(7, 0, 3, 1)).verdict, SequenceVerdict::invalid_producer_epoch);
    EXPECT_EQ(state.check(summary(-1, -1, -1, 1)).verdict, SequenceVerdict::append);
}

TEST(ProducerStateTest, KeepsTheLastFiveBatchesAndWrapsSequences) {
    ProducerState state;
    for (int i = 0; i < 7; ++i)
        state.record(summary(1, 0, i, 1), i);
    EXPECT_EQ(state.entries().at(1).batches.size(), kProducerBatchesKept);
    EXPECT_EQ(state.check(summary(1, 0, 2, 1)).verdict, SequenceVerdict::duplicate);
    EXPECT_EQ(state.check(summary(1, 0, 1, 1)).verdict, SequenceVerdict::out_of_order_sequence)
        << "older than the five kept batches";
    ProducerState wrap;
    wrap.record(summary(2, 0, INT32_MAX - 1, 2), 0);  // INT32_MAX-1 .. INT32_MAX
    EXPECT_EQ(wrap.check(summary(2, 0, 0, 1)).verdict, SequenceVerdict::append);
    EXPECT_EQ(last_sequence_of(INT32_MAX, 2), 1);
}

TEST(ProducerStateTest, DuplicateAppendIsAcknowledgedWithItsOriginalOffsetsAndStoredOnce) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    test::append_batch(**log, 3, 150);  // a non-idempotent batch at offsets 0-2
    auto first = append_idempotent(**log, idempotent_batch(5, 0, 0));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->base_offset, 3);
    EXPECT_FALSE(first->duplicate);
    const int64_t size = (*log)->size_bytes();
    auto retry = append_idempotent(**log, idempotent_batch(5, 0, 0));
    ASSERT_TRUE(retry);
    EXPECT_TRUE(retry->duplicate);
    EXPECT_EQ(retry->base_offset, 3);
    EXPECT_EQ(retry->last_offset, 4);
    EXPECT_EQ((*log)->log_end_offset(), 5);
    EXPECT_EQ((*log)->size_bytes(), size);

    auto gap = append_idempotent(**log, idempotent_batch(5, 0, 5));
    ASSERT_FALSE(gap);
    EXPECT_EQ(gap.error().code, StorageErrc::out_of_order_sequence);
    ASSERT_TRUE(append_idempotent(**log, idempotent_batch(5, 1, 0)));  // epoch bump
    auto stale = append_idempotent(**log, idempotent_batch(5, 0, 2));
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, StorageErrc::invalid_producer_epoch);
    EXPECT_EQ((*log)->log_end_offset(), 7);
}

TEST(ProducerStateTest, SnapshotRoundTripsInKafkasFormat) {
    TempDir dir;
    ProducerState state;
    state.record(summary(11, 3, 10, 5), 200);  // sequences 10-14 at offsets 200-204
    state.record(summary(12, 0, 0, 1), 205);
    ASSERT_TRUE(write_producer_snapshot(dir.path(), 206, state.entries()));
    auto file = dir.path() / "00000000000000000206.snapshot";
    ASSERT_TRUE(fs::exists(file));
    EXPECT_EQ(fs::file_size(file), 10u + 2 * 46u);
    auto read = read_producer_snapshot(file);
    ASSERT_TRUE(read) << read.error().message;
    const auto& e = read->at(11);
    EXPECT_EQ(e.epoch, 3);
    ASSERT_EQ(e.batches.size(), 1u);
    EXPECT_EQ(e.batches[0].first_sequence, 10);
    EXPECT_EQ(e.batches[0].last_sequence, 14);
    EXPECT_EQ(e.batches[0].first_offset, 200);
    EXPECT_EQ(e.batches[0].last_offset, 204);
    // A flipped byte is caught by the CRC.
    auto bytes = test::read_file(file);
    bytes[20] ^= std::byte{1};
    test::write_file(file, bytes);
    EXPECT_FALSE(read_producer_snapshot(file));
}

TEST(ProducerStateTest, RollAndCloseWriteSnapshotsAndAReopenContinuesTheSequence) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), test::small_config(500, 4096));
        ASSERT_TRUE(log);
        for (int i = 0; i < 6; ++i)  // 200-byte batches in 500-byte segments: rolls
            ASSERT_TRUE(append_idempotent(**log, idempotent_batch(9, 0, i * 2)));
        EXPECT_GT((*log)->segment_count(), 1u);
        EXPECT_FALSE(list_producer_snapshots(dir.path()).empty()) << "a roll writes a snapshot";
        ASSERT_TRUE((*log)->close());
    }
    auto snapshots = list_producer_snapshots(dir.path());
    ASSERT_FALSE(snapshots.empty());
    EXPECT_EQ(snapshots.back(), 12) << "clean close snapshots at the log end";
    auto log = PartitionLog::open(dir.path(), test::small_config(500, 4096), {}, true, 12);
    ASSERT_TRUE(log);
    auto retry = append_idempotent(**log, idempotent_batch(9, 0, 10));
    ASSERT_TRUE(retry);
    EXPECT_TRUE(retry->duplicate);
    EXPECT_EQ(retry->base_offset, 10);
    EXPECT_FALSE(append_idempotent(**log, idempotent_batch(9, 0, 14))) << "gap after restart";
    auto next = append_idempotent(**log, idempotent_batch(9, 0, 12));
    ASSERT_TRUE(next);
    EXPECT_EQ(next->base_offset, 12);
}

TEST(ProducerStateTest, CrashWithoutSnapshotsRebuildsFromBatchHeaders) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
        ASSERT_TRUE(log);
        for (int i = 0; i < 4; ++i)
            ASSERT_TRUE(append_idempotent(**log, idempotent_batch(3, 2, i * 2)));
        ASSERT_TRUE((*log)->flush());
        // No close: as after kill -9. Remove any snapshot so only the log is left.
    }
    for (int64_t offset : list_producer_snapshots(dir.path()))
        fs::remove(dir.path() / segment_file_name(offset, kSnapshotSuffix));
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096), {}, false, 0);
    ASSERT_TRUE(log);
    auto entries = (*log)->producer_entries();
    ASSERT_EQ(entries.count(3), 1u);
    EXPECT_EQ(entries.at(3).epoch, 2);
    EXPECT_EQ(entries.at(3).batches.size(), 4u);
    auto retry =
        append_idempotent(**log, idempotent_batch(3, 2, 2));  // the second batch, offsets 2-3
    ASSERT_TRUE(retry);
    EXPECT_TRUE(retry->duplicate);
    EXPECT_EQ(retry->base_offset, 2);
    auto stale = append_idempotent(**log, idempotent_batch(3, 1, 8));
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, StorageErrc::invalid_producer_epoch);
}

// A power cut in default mode lost the tail of what an idempotent producer had been acknowledged
// (here: its last two batches, sequences 4-7). Kafka 3.9 answers the producer's next batch as
// ProducerStateManager.checkSequence does: the producer is still known (its first batches
// survived), its sequence does not follow, so OUT_OF_ORDER_SEQUENCE_NUMBER (librdkafka then
// raises a fatal error and the application makes a new producer; the Java client bumps the
// epoch). A new epoch starting at sequence 0 is accepted. When every batch of the producer was
// lost it is unknown, and Kafka accepts any sequence (as after retention removed its state).
TEST(ProducerStateTest, AProducerWhoseAcknowledgedTailWasLostIsAnsweredAsKafkaDoes) {
    TempDir dir;
    const auto batch_bytes = idempotent_batch(3, 0, 0).size();
    {
        auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
        ASSERT_TRUE(log);
        for (int i = 0; i < 4; ++i)
            ASSERT_TRUE(append_idempotent(**log, idempotent_batch(3, 0, i * 2)));
        // No close: the power cut left only the first two batches on disk.
    }
    for (int64_t offset : list_producer_snapshots(dir.path()))
        fs::remove(dir.path() / segment_file_name(offset, kSnapshotSuffix));
    const auto log_file = test::segment_files(dir.path(), ".log").at(0);
    fs::resize_file(log_file, 2 * batch_bytes);
    {
        auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096), {}, false, 0);
        ASSERT_TRUE(log);
        EXPECT_EQ((*log)->log_end_offset(), 4);
        auto next = append_idempotent(**log, idempotent_batch(3, 0, 8));
        ASSERT_FALSE(next);
        EXPECT_EQ(next.error().code, StorageErrc::out_of_order_sequence);
        auto bumped = append_idempotent(**log, idempotent_batch(3, 1, 0));
        ASSERT_TRUE(bumped) << bumped.error().message;
        EXPECT_EQ(bumped->base_offset, 4);
        ASSERT_TRUE((*log)->close());
    }
    TempDir lost_all;
    {
        auto log = PartitionLog::open(lost_all.path(), test::small_config(1 << 20, 4096));
        ASSERT_TRUE(log);
        for (int i = 0; i < 2; ++i)
            ASSERT_TRUE(append_idempotent(**log, idempotent_batch(5, 0, i * 2)));
    }
    fs::resize_file(test::segment_files(lost_all.path(), ".log").at(0), 0);
    auto log = PartitionLog::open(lost_all.path(), test::small_config(1 << 20, 4096), {}, false, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->log_end_offset(), 0);
    auto resumed = append_idempotent(**log, idempotent_batch(5, 0, 4));
    ASSERT_TRUE(resumed) << resumed.error().message;
    EXPECT_EQ(resumed->base_offset, 0);
}

}  // namespace
}  // namespace skiff::storage
