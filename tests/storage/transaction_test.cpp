// Transactions in storage: control batches in Kafka's format, open/closed transactions in the
// producer state, the last stable offset, read_committed reads, .txnindex files (written on
// abort, collected across segments, rebuilt after a crash), snapshots and retention.
#include <gtest/gtest.h>

#include "protocol/crc32c.h"
#include "protocol/record_batch.h"
#include "storage/big_endian.h"
#include "storage/control_batch.h"
#include "storage/partition_log.h"
#include "storage/producer_snapshot.h"
#include "storage/segment_names.h"
#include "storage/transaction_index.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// A valid batch from producer pid/epoch at `sequence`; transactional sets attribute 0x10.
std::vector<std::byte> producer_batch(int64_t pid, int16_t epoch, int32_t sequence,
                                      bool transactional, int32_t records = 2,
                                      size_t size_bytes = 200) {
    auto bytes = test::make_batch(records, size_bytes);
    store_be<int64_t>(bytes.data() + 43, pid);
    store_be<int16_t>(bytes.data() + 51, epoch);
    store_be<int32_t>(bytes.data() + 53, sequence);
    if (transactional)
        bytes[22] |= std::byte{0x10};
    store_be<uint32_t>(
        bytes.data() + protocol::kBatchCrcOffset,
        protocol::crc32c(std::span(bytes).subspan(protocol::kBatchAttributesOffset)));
    return bytes;
}

Expected<AppendResult, StorageError> append(PartitionLog& log, const std::vector<std::byte>& b,
                                            AppendOrigin origin = AppendOrigin::client) {
    auto summaries = protocol::validate_batches(b);
    EXPECT_TRUE(summaries) << (summaries ? "" : summaries.error().message);
    return log.append(b, *summaries, origin);
}

Expected<AppendResult, StorageError> marker(PartitionLog& log, int64_t pid, int16_t epoch,
                                            bool commit, int32_t coordinator_epoch = 0) {
    return log.append_marker({pid, epoch, coordinator_epoch, commit, 5000});
}

// (base offset, attributes) of every batch a read returned.
std::vector<std::pair<int64_t, int16_t>> batches_in(const ReadResult& r) {
    std::vector<std::pair<int64_t, int16_t>> out;
    for (const auto& slice : r.slices) {
        auto bytes = test::read_slice(slice);
        EXPECT_TRUE(protocol::validate_batches(bytes));
        for (size_t at = 0; at < bytes.size();) {
            auto h = protocol::read_batch_header(std::span<const std::byte>(bytes).subspan(at));
            out.emplace_back(h.base_offset, h.attributes);
            at += h.size_bytes();
        }
    }
    return out;
}

std::vector<TxnIndexEntry> txn_index_of(const fs::path& dir, int64_t base) {
    auto path = dir / segment_file_name(base, kTxnIndexSuffix);
    if (!fs::exists(path))
        return {};
    auto bytes = test::read_file(path);
    std::string problem;
    auto entries = parse_txn_index(bytes, &problem);
    EXPECT_EQ(problem, "");
    return entries;
}

TEST(TransactionTest, MarkerIsKafkasControlBatchByteForByte) {
    auto b = make_marker_batch(0x0102030405060708, 0x0a0b, 0x11223344, true, 1700000000000);
    ASSERT_EQ(b.size(), 78u);
    auto summaries = protocol::validate_batches(b);
    ASSERT_TRUE(summaries) << summaries.error().message;  // framing and CRC-32C
    ASSERT_EQ(summaries->size(), 1u);
    EXPECT_TRUE((*summaries)[0].control);
    EXPECT_TRUE((*summaries)[0].transactional);
    EXPECT_EQ((*summaries)[0].record_count, 1);
    auto h = protocol::read_batch_header(b);
    EXPECT_EQ(h.length, 66);
    EXPECT_EQ(h.magic, 2);
    EXPECT_EQ(h.attributes, 0x30);
    EXPECT_EQ(h.base_sequence, -1);
    EXPECT_EQ(h.producer_id, 0x0102030405060708);
    EXPECT_EQ(h.producer_epoch, 0x0a0b);
    EXPECT_EQ(h.base_timestamp, 1700000000000);
    EXPECT_EQ(h.max_timestamp, 1700000000000);
    // The record as Kafka's writeEndTransactionalMarker lays it out.
    const uint8_t record[] = {0x20, 0, 0, 0,    0x08, 0,    0,    0, 1,
                              0x0c, 0, 0, 0x11, 0x22, 0x33, 0x44, 0};
    for (size_t i = 0; i < sizeof record; ++i)
        EXPECT_EQ(static_cast<uint8_t>(b[61 + i]), record[i]) << "record byte " << i;
    auto parsed = parse_control_record(b);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->type, 1);
    EXPECT_EQ(parsed->coordinator_epoch, 0x11223344);
    auto abort = make_marker_batch(1, 0, 7, false, 0);
    EXPECT_EQ(parse_control_record(abort)->type, 0);
    EXPECT_EQ(parse_control_record(abort)->coordinator_epoch, 7);
}

TEST(TransactionTest, ClientsCannotProduceControlBatches) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    auto b = make_marker_batch(1, 0, 0, true, 0);
    std::vector<std::byte> bytes(b.begin(), b.end());
    for (auto origin : {AppendOrigin::client, AppendOrigin::coordinator}) {
        auto r = append(**log, bytes, origin);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, StorageErrc::invalid_record);
    }
    EXPECT_EQ((*log)->log_end_offset(), 0);
}

TEST(TransactionTest, OpenTransactionHoldsTheLastStableOffsetUntilItsMarker) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    ASSERT_TRUE(append(**log, producer_batch(9, 0, 0, false)));  // 0-1, idempotent only
    EXPECT_EQ((*log)->last_stable_offset(), 2);
    ASSERT_TRUE(append(**log, producer_batch(5, 0, 0, true)));   // 2-3 opens pid 5's txn
    ASSERT_TRUE(append(**log, producer_batch(6, 0, 0, false)));  // 4-5
    ASSERT_TRUE(append(**log, producer_batch(5, 0, 2, true)));   // 6-7 same txn
    EXPECT_EQ((*log)->last_stable_offset(), 2);
    EXPECT_EQ((*log)->high_watermark(), 8);
    auto entries = (*log)->producer_entries();
    EXPECT_EQ(entries.at(5).current_txn_first_offset, 2);
    EXPECT_EQ(entries.at(6).current_txn_first_offset, -1);
    auto m = marker(**log, 5, 0, true);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->base_offset, 8);
    EXPECT_EQ((*log)->last_stable_offset(), 9);
    EXPECT_EQ((*log)->high_watermark(), 9);
    EXPECT_EQ((*log)->producer_entries().at(5).current_txn_first_offset, -1);
    EXPECT_TRUE(txn_index_of(dir.path(), 0).empty()) << "a commit writes no index entry";
    // The next transaction of the same producer opens at its first batch.
    ASSERT_TRUE(append(**log, producer_batch(5, 0, 4, true)));
    EXPECT_EQ((*log)->last_stable_offset(), 9);
}

TEST(TransactionTest, NonTransactionalBatchDuringAnOpenTransactionIsInvalidTxnState) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    ASSERT_TRUE(append(**log, producer_batch(5, 0, 0, true)));
    auto r = append(**log, producer_batch(5, 0, 2, false));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, StorageErrc::invalid_txn_state);
    // In one append: a transactional batch followed by a plain one of the same producer.
    auto both = producer_batch(7, 0, 0, true);
    auto plain = producer_batch(7, 0, 2, false);
    both.insert(both.end(), plain.begin(), plain.end());
    auto r2 = append(**log, both);
    ASSERT_FALSE(r2);
    EXPECT_EQ(r2.error().code, StorageErrc::invalid_txn_state);
    EXPECT_EQ((*log)->log_end_offset(), 2);
    ASSERT_TRUE(marker(**log, 5, 0, false));
    EXPECT_TRUE(append(**log, producer_batch(5, 0, 2, false))) << "allowed once it is closed";
}

TEST(TransactionTest, MarkersCheckEpochAndCoordinatorEpoch) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    ASSERT_TRUE(append(**log, producer_batch(5, 3, 0, true)));
    auto stale = marker(**log, 5, 2, false);
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, StorageErrc::invalid_producer_epoch);
    // A fence: the coordinator aborts with the bumped epoch and coordinator epoch 4.
    ASSERT_TRUE(marker(**log, 5, 4, false, 4));
    auto fenced = marker(**log, 5, 4, true, 3);
    ASSERT_FALSE(fenced);
    EXPECT_EQ(fenced.error().code, StorageErrc::transaction_coordinator_fenced);
    auto entry = (*log)->producer_entries().at(5);
    EXPECT_EQ(entry.epoch, 4);
    EXPECT_EQ(entry.coordinator_epoch, 4);
    // The fenced producer's data is refused now.
    auto old = append(**log, producer_batch(5, 3, 2, true));
    ASSERT_FALSE(old);
    EXPECT_EQ(old.error().code, StorageErrc::invalid_producer_epoch);
    // A marker for a producer without an open transaction is written and changes nothing.
    auto lone = marker(**log, 77, 0, false);
    ASSERT_TRUE(lone);
    EXPECT_EQ((*log)->last_stable_offset(), (*log)->high_watermark());
    ASSERT_EQ(txn_index_of(dir.path(), 0).size(), 1u) << "only the real abort is indexed";
}

TEST(TransactionTest, CoordinatorAppendsSkipSequenceChecks) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    auto b = producer_batch(40, 1, -1, true);
    auto first = append(**log, b, AppendOrigin::coordinator);
    ASSERT_TRUE(first);
    auto second = append(**log, b, AppendOrigin::coordinator);
    ASSERT_TRUE(second);
    EXPECT_FALSE(second->duplicate) << "sequence -1 batches are never duplicates";
    EXPECT_EQ(second->base_offset, 2);
    EXPECT_EQ((*log)->last_stable_offset(), 0);
    auto stale = append(**log, producer_batch(40, 0, -1, true), AppendOrigin::coordinator);
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, StorageErrc::invalid_producer_epoch);
    ASSERT_TRUE(marker(**log, 40, 1, true));
    EXPECT_EQ((*log)->last_stable_offset(), 5);
}

TEST(TransactionTest, ReadCommittedStopsAtTheLastStableOffsetAndListsAborts) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    ASSERT_TRUE(append(**log, producer_batch(5, 0, 0, true)));   // 0-1 txn A (pid 5)
    ASSERT_TRUE(append(**log, producer_batch(6, 0, 0, true)));   // 2-3 txn B (pid 6)
    ASSERT_TRUE(append(**log, producer_batch(9, 0, 0, false)));  // 4-5
    ASSERT_TRUE(marker(**log, 5, 0, false));                     // 6 abort A
    // B still open: read_committed stops at 2.
    auto rc = (*log)->read(0, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(rc);
    EXPECT_EQ(rc->last_stable_offset, 2);
    EXPECT_EQ(batches_in(*rc), (std::vector<std::pair<int64_t, int16_t>>{{0, 0x10}}));
    EXPECT_EQ(rc->aborted, (std::vector<AbortedTxn>{{5, 0}}));
    auto ru = (*log)->read(0, 1 << 20, false);
    ASSERT_TRUE(ru);
    EXPECT_EQ(batches_in(*ru).size(), 4u);
    EXPECT_TRUE(ru->aborted.empty());
    EXPECT_EQ(ru->last_stable_offset, 2);
    // At or past the LSO a read_committed fetch gets nothing (not an error).
    auto at_lso = (*log)->read(2, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(at_lso);
    EXPECT_TRUE(at_lso->slices.empty());
    auto past = (*log)->read(4, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(past);
    EXPECT_TRUE(past->slices.empty());
    // The abort's index entry: LSO at the time = B's first offset.
    EXPECT_EQ(txn_index_of(dir.path(), 0), (std::vector<TxnIndexEntry>{{5, 0, 6, 2}}));
    ASSERT_TRUE(marker(**log, 6, 0, false));  // 7 abort B: LSO = 8
    EXPECT_EQ(txn_index_of(dir.path(), 0),
              (std::vector<TxnIndexEntry>{{5, 0, 6, 2}, {6, 2, 7, 8}}));
    auto all = (*log)->read(0, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(all);
    EXPECT_EQ(batches_in(*all).size(), 5u);
    EXPECT_EQ(all->aborted, (std::vector<AbortedTxn>{{5, 0}, {6, 2}}));
    // A fetch of only the plain batch at 4-5 overlaps no aborted transaction... but B's data at
    // 2-3 ends below 4 while its marker (7) is above: Kafka lists it (last >= fetch offset and
    // first < upper bound).
    auto mid = (*log)->read(4, 200, false, Isolation::read_committed);
    ASSERT_TRUE(mid);
    EXPECT_EQ(batches_in(*mid), (std::vector<std::pair<int64_t, int16_t>>{{4, 0}}));
    EXPECT_EQ(mid->aborted, (std::vector<AbortedTxn>{{5, 0}, {6, 2}}));
    auto end = (*log)->read(7, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(end);
    EXPECT_EQ(end->aborted, (std::vector<AbortedTxn>{{6, 2}}));
}

TEST(TransactionTest, AbortMarkerSeveralSegmentsAfterTheDataIsFound) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(500, 4096));  // 2 batches each
    ASSERT_TRUE(log);
    for (int i = 0; i < 10; ++i)  // offsets 0-19 in 5 segments
        ASSERT_TRUE(append(**log, producer_batch(5, 0, i * 2, true)));
    EXPECT_EQ((*log)->last_stable_offset(), 0);
    auto none = (*log)->read(0, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->slices.empty());
    ASSERT_TRUE(marker(**log, 5, 0, false));                     // offset 20
    ASSERT_TRUE(append(**log, producer_batch(9, 0, 0, false)));  // 21-22
    ASSERT_GE((*log)->segment_count(), 5u);
    // The entry is in the segment of the marker, not of the data.
    EXPECT_TRUE(txn_index_of(dir.path(), 0).empty());
    int64_t marker_segment = -1;
    for (const auto& p : test::segment_files(dir.path(), kLogSuffix)) {
        int64_t base = *parse_segment_file_name(p.filename().string(), kLogSuffix);
        if (base <= 20)
            marker_segment = base;
    }
    EXPECT_EQ(txn_index_of(dir.path(), marker_segment),
              (std::vector<TxnIndexEntry>{{5, 0, 20, 21}}));
    // Small fetches in the first segments, as a consumer walks the aborted data.
    for (int64_t offset : {0, 4, 10, 18}) {
        auto r = (*log)->read(offset, 200, false, Isolation::read_committed);
        ASSERT_TRUE(r);
        ASSERT_FALSE(r->slices.empty());
        EXPECT_EQ(r->aborted, (std::vector<AbortedTxn>{{5, 0}})) << "fetch at " << offset;
    }
    auto after = (*log)->read(21, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(after);
    EXPECT_TRUE(after->aborted.empty());
}

TEST(TransactionTest, ReadCommittedStopsAtATransactionOpeningASegment) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(500, 4096));
    ASSERT_TRUE(log);
    ASSERT_TRUE(append(**log, producer_batch(9, 0, 0, false)));  // 0-1
    ASSERT_TRUE(append(**log, producer_batch(9, 0, 2, false)));  // 2-3
    ASSERT_TRUE(append(**log, producer_batch(5, 0, 0, true)));   // 4-5: rolls, opens a txn
    ASSERT_TRUE(append(**log, producer_batch(9, 0, 4, false)));  // 6-7
    ASSERT_TRUE(fs::exists(dir.path() / segment_file_name(4, kLogSuffix)));
    auto r = (*log)->read(0, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(r);
    EXPECT_EQ(batches_in(*r), (std::vector<std::pair<int64_t, int16_t>>{{0, 0}, {2, 0}}));
    EXPECT_TRUE(r->aborted.empty());
    auto one = (*log)->read(2, 0, true, Isolation::read_committed);  // min_one_batch
    ASSERT_TRUE(one);
    EXPECT_EQ(batches_in(*one), (std::vector<std::pair<int64_t, int16_t>>{{2, 0}}));
    ASSERT_TRUE(marker(**log, 5, 0, true));
    auto all = (*log)->read(0, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(all);
    EXPECT_EQ(batches_in(*all).size(), 5u);
}

TEST(TransactionTest, RetentionKeepsSegmentsFromTheLastStableOffsetOn) {
    TempDir dir;
    auto config = test::small_config(500, 4096);
    config.retention_bytes = 1;  // everything sealed is due
    auto log = PartitionLog::open(dir.path(), config);
    ASSERT_TRUE(log);
    ASSERT_TRUE(append(**log, producer_batch(9, 0, 0, false)));  // 0-1
    ASSERT_TRUE(append(**log, producer_batch(9, 0, 2, false)));  // 2-3
    ASSERT_TRUE(append(**log, producer_batch(5, 0, 0, true)));   // 4-5 open txn, segment 2
    for (int i = 0; i < 6; ++i)
        ASSERT_TRUE(append(**log, producer_batch(9, 0, 4 + 2 * i, false)));
    ASSERT_GE((*log)->segment_count(), 4u);
    EXPECT_EQ((*log)->last_stable_offset(), 4);
    (*log)->apply_retention();
    EXPECT_EQ((*log)->log_start_offset(), 4) << "only the segment wholly below the LSO goes";
    auto deleted = (*log)->delete_records_before(-1);
    ASSERT_TRUE(deleted);
    EXPECT_EQ((*log)->read(4, 1 << 20, false).error().code, StorageErrc::offset_out_of_range);
    EXPECT_TRUE(fs::exists(dir.path() / segment_file_name(4, kLogSuffix)))
        << "DeleteRecords moves the start but keeps the open transaction's segment";
    ASSERT_TRUE(marker(**log, 5, 0, false));
    (*log)->apply_retention();
    EXPECT_FALSE(fs::exists(dir.path() / segment_file_name(4, kLogSuffix)));
}

TEST(TransactionTest, SnapshotCarriesCoordinatorEpochAndOpenTransaction) {
    TempDir dir;
    ProducerState state;
    protocol::BatchSummary s;
    s.producer_id = 11;
    s.producer_epoch = 2;
    s.base_sequence = 0;
    s.last_offset_delta = 1;
    s.record_count = 2;
    s.transactional = true;
    state.record(s, 300);
    state.complete_txn(12, 0, 6);
    ASSERT_TRUE(write_producer_snapshot(dir.path(), 302, state.entries()));
    auto file = dir.path() / segment_file_name(302, kSnapshotSuffix);
    auto bytes = test::read_file(file);
    ASSERT_EQ(bytes.size(), 10u + 2 * 46u);
    // Entry 0 (pid 11): coordinator epoch -1, open txn at 300; entry 1 (pid 12): 6 and -1.
    EXPECT_EQ(load_be<int32_t>(bytes.data() + 10 + 34), -1);
    EXPECT_EQ(load_be<int64_t>(bytes.data() + 10 + 38), 300);
    EXPECT_EQ(load_be<int32_t>(bytes.data() + 56 + 34), 6);
    EXPECT_EQ(load_be<int64_t>(bytes.data() + 56 + 38), -1);
    auto read = read_producer_snapshot(file);
    ASSERT_TRUE(read);
    ProducerState restored;
    restored.restore(std::move(*read));
    EXPECT_EQ(restored.first_unstable_offset(), 300);
    EXPECT_EQ(restored.entries().at(12).coordinator_epoch, 6);
}

TEST(TransactionTest, OpenTransactionsAndAbortsSurviveACleanRestart) {
    TempDir dir;
    auto config = test::small_config(500, 4096);
    {
        auto log = PartitionLog::open(dir.path(), config);
        ASSERT_TRUE(log);
        ASSERT_TRUE(append(**log, producer_batch(5, 0, 0, true)));   // 0-1
        ASSERT_TRUE(marker(**log, 5, 0, false, 3));                  // 2
        ASSERT_TRUE(append(**log, producer_batch(6, 0, 0, true)));   // 3-4 stays open
        ASSERT_TRUE(append(**log, producer_batch(9, 0, 0, false)));  // 5-6
        ASSERT_TRUE((*log)->close());
    }
    auto log = PartitionLog::open(dir.path(), config, {}, true, 7);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->last_stable_offset(), 3);
    EXPECT_EQ((*log)->producer_entries().at(5).coordinator_epoch, 3);
    auto fenced = marker(**log, 5, 0, true, 2);
    ASSERT_FALSE(fenced);
    EXPECT_EQ(fenced.error().code, StorageErrc::transaction_coordinator_fenced);
    auto r = (*log)->read(0, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->aborted, (std::vector<AbortedTxn>{{5, 0}}));
    auto refused = append(**log, producer_batch(6, 0, 2, false));
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, StorageErrc::invalid_txn_state);
    ASSERT_TRUE(marker(**log, 6, 0, true));
    EXPECT_EQ((*log)->last_stable_offset(), (*log)->high_watermark());
}

TEST(TransactionTest, CrashReplayReopensTransactionsAndRebuildsTheTxnIndex) {
    TempDir dir;
    auto config = test::small_config(1 << 20, 4096);
    {
        auto log = PartitionLog::open(dir.path(), config, test::fixed_now);
        ASSERT_TRUE(log);
        ASSERT_TRUE(append(**log, producer_batch(5, 0, 0, true)));  // 0-1
        ASSERT_TRUE(append(**log, producer_batch(6, 0, 0, true)));  // 2-3
        ASSERT_TRUE(marker(**log, 5, 0, false));                    // 4: entry {5,0,4,2}
        ASSERT_TRUE(append(**log, producer_batch(7, 0, 0, true)));  // 5-6
        ASSERT_TRUE(marker(**log, 7, 1, false));                    // 7: entry {7,5,7,2}
        ASSERT_TRUE((*log)->flush());
        // No close: as after kill -9.
    }
    const auto expected = std::vector<TxnIndexEntry>{{5, 0, 4, 2}, {7, 5, 7, 2}};
    EXPECT_EQ(txn_index_of(dir.path(), 0), expected);
    for (int64_t offset : list_producer_snapshots(dir.path()))
        fs::remove(dir.path() / segment_file_name(offset, kSnapshotSuffix));
    fs::remove(dir.path() / segment_file_name(0, kTxnIndexSuffix));
    {
        auto log = PartitionLog::open(dir.path(), config, test::fixed_now, false, 0);
        ASSERT_TRUE(log);
        EXPECT_EQ((*log)->last_stable_offset(), 2) << "pid 6's transaction is open again";
        EXPECT_EQ(txn_index_of(dir.path(), 0), expected) << "rebuilt by the replay";
        auto r = (*log)->read(0, 1 << 20, false, Isolation::read_committed);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->aborted, (std::vector<AbortedTxn>{{5, 0}}));
        EXPECT_EQ((*log)->producer_entries().at(7).epoch, 1);
    }
    // A torn tail: the last marker (78 bytes at the end) is cut short. The segment is recovered,
    // the abort of pid 7 is gone from the index and pid 7's transaction is open again.
    auto log_path = dir.path() / segment_file_name(0, kLogSuffix);
    fs::resize_file(log_path, fs::file_size(log_path) - 10);
    for (int64_t offset : list_producer_snapshots(dir.path()))
        fs::remove(dir.path() / segment_file_name(offset, kSnapshotSuffix));
    auto log = PartitionLog::open(dir.path(), config, test::fixed_now, false, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ((*log)->log_end_offset(), 7);
    EXPECT_EQ(txn_index_of(dir.path(), 0), (std::vector<TxnIndexEntry>{{5, 0, 4, 2}}));
    EXPECT_EQ((*log)->last_stable_offset(), 2);
    EXPECT_EQ((*log)->producer_entries().at(7).current_txn_first_offset, 5);
    ASSERT_TRUE(marker(**log, 7, 1, false));  // the coordinator writes it again
    EXPECT_EQ(txn_index_of(dir.path(), 0),
              (std::vector<TxnIndexEntry>{{5, 0, 4, 2}, {7, 5, 7, 2}}));
}

TEST(TransactionTest, UncleanOpenReplaysFromASnapshotAtTheRecoveryPoint) {
    // Snapshots written at rolls above the recovery point may describe .txnindex entries that a
    // power loss took; the replay starts at or below the recovery point and writes them back.
    TempDir dir;
    auto config = test::small_config(500, 4096);
    std::vector<fs::path> indexes;
    {
        auto log = PartitionLog::open(dir.path(), config, test::fixed_now);
        ASSERT_TRUE(log);
        for (int t = 0; t < 4; ++t) {  // four aborted transactions, rolls in between
            ASSERT_TRUE(append(**log, producer_batch(5, 0, 2 * t, true)));
            ASSERT_TRUE(marker(**log, 5, 0, false));
            ASSERT_TRUE(append(**log, producer_batch(9, 0, 2 * t, false)));
        }
        ASSERT_GT((*log)->segment_count(), 2u);
        ASSERT_FALSE(list_producer_snapshots(dir.path()).empty());
        indexes = test::segment_files(dir.path(), kTxnIndexSuffix);
        ASSERT_EQ(indexes.size(), 4u);
    }
    std::vector<std::vector<TxnIndexEntry>> before;
    for (const auto& p : indexes) {
        before.push_back(parse_txn_index(test::read_file(p), nullptr));
        fs::remove(p);
    }
    auto log = PartitionLog::open(dir.path(), config, test::fixed_now, false, 0);
    ASSERT_TRUE(log);
    for (size_t i = 0; i < indexes.size(); ++i)
        EXPECT_EQ(parse_txn_index(test::read_file(indexes[i]), nullptr), before[i]) << indexes[i];
    auto r = (*log)->read(0, 1 << 20, false, Isolation::read_committed);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->aborted.size(), 4u);
}

TEST(TransactionTest, TxnIndexGoesWithItsSegment) {
    TempDir dir;
    auto config = test::small_config(500, 4096);
    auto log = PartitionLog::open(dir.path(), config);
    ASSERT_TRUE(log);
    ASSERT_TRUE(append(**log, producer_batch(5, 0, 0, true)));  // 0-1
    ASSERT_TRUE(marker(**log, 5, 0, false));                    // 2
    for (int i = 0; i < 6; ++i)
        ASSERT_TRUE(append(**log, producer_batch(9, 0, 2 * i, false)));
    ASSERT_TRUE(fs::exists(dir.path() / segment_file_name(0, kTxnIndexSuffix)));
    ASSERT_TRUE((*log)->delete_records_before(-1));
    EXPECT_FALSE(fs::exists(dir.path() / segment_file_name(0, kTxnIndexSuffix)));
}

}  // namespace
}  // namespace skiff::storage
