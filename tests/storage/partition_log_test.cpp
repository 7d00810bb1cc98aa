// PartitionLog: append, read for fetch, lookups, offset queries, write failures, concurrency.
#include "storage/partition_log.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "protocol/compression/batch_recompress.h"
#include "protocol/record_batch.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::append_batch;
using test::TempDir;

// Every batch in the slices, checked whole and valid; returns (base offset, size) pairs.
std::vector<std::pair<int64_t, size_t>> batches_in(const ReadResult& r) {
    std::vector<std::pair<int64_t, size_t>> out;
    for (const auto& slice : r.slices) {
        auto bytes = test::read_slice(slice);
        auto summaries = protocol::validate_batches(bytes);
        EXPECT_TRUE(summaries) << (summaries ? "" : summaries.error().message);
        size_t at = 0;
        while (at < bytes.size()) {
            auto h = protocol::read_batch_header(std::span<const std::byte>(bytes).subspan(at));
            out.emplace_back(h.base_offset, h.size_bytes());
            at += h.size_bytes();
        }
    }
    return out;
}

TEST(PartitionLogTest, AppendAssignsOffsetsAndRewritesTheHeader) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    auto a = append_batch(**log, 3, 150);
    auto b = append_batch(**log, 2, 120);
    EXPECT_EQ(a.base_offset, 0);
    EXPECT_EQ(a.last_offset, 2);
    EXPECT_EQ(b.base_offset, 3);
    EXPECT_EQ(b.last_offset, 4);
    EXPECT_EQ((*log)->log_end_offset(), 5);
    EXPECT_EQ((*log)->high_watermark(), 5);
    EXPECT_EQ((*log)->size_bytes(), 270);

    auto bytes = test::read_file(dir.path() / segment_file_name(0, kLogSuffix));
    ASSERT_EQ(bytes.size(), 270u);
    auto second = protocol::check_batch(std::span<const std::byte>(bytes).subspan(150));
    ASSERT_TRUE(second);
    EXPECT_EQ(second->base_offset, 3);
    EXPECT_EQ(second->partition_leader_epoch, 0);  // was 7 as produced
}

TEST(PartitionLogTest, MultiBatchAppendIsOneUnit) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    auto one = test::make_batch(2, 100);
    auto two = test::make_batch(3, 130);
    std::vector<std::byte> both(one);
    both.insert(both.end(), two.begin(), two.end());
    auto summaries = protocol::validate_batches(both);
    ASSERT_TRUE(summaries);
    auto r = (*log)->append(both, *summaries);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->base_offset, 0);
    EXPECT_EQ(r->last_offset, 4);
    auto read = (*log)->read(2, 1 << 20, false);
    ASSERT_TRUE(read);
    EXPECT_EQ(batches_in(*read), (std::vector<std::pair<int64_t, size_t>>{{2, 130}}));
    // Summaries that do not match the bytes are refused.
    auto bad = (*log)->append(one, *summaries);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, StorageErrc::invalid_argument);
}

TEST(PartitionLogTest, ReadReturnsWholeBatchesWithinMaxBytes) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(500, 200));
    ASSERT_TRUE(log);
    for (int i = 0; i < 12; ++i)
        append_batch(**log, 2, 100 + 10 * (i % 3));  // 3+ segments
    ASSERT_GE((*log)->segment_count(), 3u);

    auto all = (*log)->read(0, 1 << 20, false);
    ASSERT_TRUE(all);
    auto batches = batches_in(*all);
    ASSERT_EQ(batches.size(), 12u);  // spans into the following segments
    for (size_t i = 0; i < batches.size(); ++i)
        EXPECT_EQ(batches[i].first, 2 * int64_t(i));
    EXPECT_EQ(all->total_bytes, (*log)->size_bytes());
    EXPECT_EQ(all->high_watermark, 24);
    // The offsets the slices span (what the fetched-records metric counts).
    EXPECT_EQ(all->first_offset, 0);
    EXPECT_EQ(all->next_offset, 24);

    // From the middle of a batch: starts at the batch holding the offset.
    auto mid = (*log)->read(5, 250, false);
    ASSERT_TRUE(mid);
    auto got = batches_in(*mid);
    ASSERT_EQ(got.size(), 2u);  // 120 + 100 fit in 250, + 110 does not
    EXPECT_EQ(got[0].first, 4);
    EXPECT_LE(mid->total_bytes, 250);
    EXPECT_EQ(mid->first_offset, 4);
    EXPECT_EQ(mid->next_offset, 8);  // the batch that did not fit

    // Smaller than the first batch: nothing, unless min_one_batch.
    auto none = (*log)->read(0, 50, false);
    ASSERT_TRUE(none);
    EXPECT_EQ(none->total_bytes, 0);
    EXPECT_EQ(none->first_offset, -1);
    EXPECT_EQ(none->next_offset, -1);
    auto one = (*log)->read(0, 50, true);
    ASSERT_TRUE(one);
    EXPECT_EQ(batches_in(*one), (std::vector<std::pair<int64_t, size_t>>{{0, 100}}));
    EXPECT_EQ(one->first_offset, 0);
    EXPECT_EQ(one->next_offset, 2);

    // Ending exactly at a segment's end: the next segment's base offset.
    for (int64_t from = 0; from < 24; from += 2) {
        auto r = (*log)->read(from, 230, false);
        ASSERT_TRUE(r);
        int64_t next = from;
        for (const auto& [base, size] : batches_in(*r))
            next = base + 2;
        EXPECT_EQ(r->next_offset, next) << "from " << from;
    }

    // At the high watermark: empty; past it or before the start: out of range.
    auto end = (*log)->read(24, 100, true);
    ASSERT_TRUE(end);
    EXPECT_TRUE(end->slices.empty());
    auto past = (*log)->read(25, 100, true);
    ASSERT_FALSE(past);
    EXPECT_EQ(past.error().code, StorageErrc::offset_out_of_range);
    EXPECT_FALSE((*log)->read(-1, 100, true));
    EXPECT_FALSE((*log)->lookup(24));
}

TEST(PartitionLogTest, MinOneBatchReturnsALargeFirstBatch) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
    ASSERT_TRUE(log);
    append_batch(**log, 10, 5000);
    append_batch(**log, 1, 100);
    auto r = (*log)->read(3, 1000, true);
    ASSERT_TRUE(r);
    EXPECT_EQ(batches_in(*r), (std::vector<std::pair<int64_t, size_t>>{{0, 5000}}));
    EXPECT_EQ(r->first_offset, 0);
    EXPECT_EQ(r->next_offset, 10);
}

// ListOffsets by timestamp answers the record inside a compressed batch, as Kafka's
// FileRecords.searchForTimestamp does, not the batch's first offset (a consumer seeking to a time
// would get records from before it).
TEST(PartitionLogTest, TimestampQueriesOpenCompressedBatches) {
    for (auto codec : {protocol::Compression::gzip, protocol::Compression::snappy,
                       protocol::Compression::lz4, protocol::Compression::zstd}) {
        SCOPED_TRACE(protocol::compression_name(codec));
        TempDir dir;
        auto log = PartitionLog::open(dir.path(), test::small_config(600, 100));
        ASSERT_TRUE(log);
        // Batch i: 4 records, timestamps 1000*i + 0, 10, 20, 30, compressed.
        for (int i = 1; i <= 10; ++i) {
            auto plain = test::make_batch(4, 150, 1000 * i, 10);
            std::vector<std::byte> scratch, compressed;
            ASSERT_TRUE(protocol::compression::recompress_batches(plain, codec, 1 << 20, scratch,
                                                                  compressed));
            auto summaries = protocol::validate_batches(compressed);
            ASSERT_TRUE(summaries);
            ASSERT_TRUE((*log)->append(compressed, *summaries));
        }
        auto t = (*log)->offset_for_timestamp(5015);  // batch 5 (offsets 16..19), record ts 5020
        ASSERT_TRUE(t);
        EXPECT_EQ(t->offset, 18);
        EXPECT_EQ(t->timestamp, 5020);
        t = (*log)->offset_for_timestamp(5030);  // its last record, exactly
        ASSERT_TRUE(t);
        EXPECT_EQ(t->offset, 19);
        EXPECT_EQ(t->timestamp, 5030);
        t = (*log)->offset_for_timestamp(5031);  // the next batch's first record
        ASSERT_TRUE(t);
        EXPECT_EQ(t->offset, 20);
        EXPECT_EQ(t->timestamp, 6000);
    }
}

TEST(PartitionLogTest, TimestampQueries) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(600, 100));
    ASSERT_TRUE(log);
    // Batch i: 4 records, timestamps 1000*i + 0, 10, 20, 30.
    for (int i = 1; i <= 10; ++i)
        append_batch(**log, 4, 150, 1000 * i, 10);
    ASSERT_GT((*log)->segment_count(), 1u);
    auto t = (*log)->offset_for_timestamp(0);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->offset, 0);
    EXPECT_EQ(t->timestamp, 1000);
    t = (*log)->offset_for_timestamp(5015);  // batch 5 (offsets 16..19), record ts 5020
    ASSERT_TRUE(t);
    EXPECT_EQ(t->offset, 18);
    EXPECT_EQ(t->timestamp, 5020);
    t = (*log)->offset_for_timestamp(5031);  // next batch's first record
    ASSERT_TRUE(t);
    EXPECT_EQ(t->offset, 20);
    EXPECT_EQ(t->timestamp, 6000);
    EXPECT_FALSE((*log)->offset_for_timestamp(10031));
    auto m = (*log)->max_timestamp();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->timestamp, 10030);
    EXPECT_EQ(m->offset, 39);
}

TEST(PartitionLogTest, ActiveIndexesArePreallocatedAndTrimmedWhenSealed) {
    TempDir dir;
    LogConfig config;  // index_size_max_bytes 10 MiB
    config.segment_bytes = 2000;
    config.index_interval_bytes = 100;
    auto log = PartitionLog::open(dir.path(), config);
    ASSERT_TRUE(log);
    EXPECT_EQ(fs::file_size(dir.path() / segment_file_name(0, kIndexSuffix)), 10485760u);
    EXPECT_EQ(fs::file_size(dir.path() / segment_file_name(0, kTimeIndexSuffix)), 10485756u);
    for (int i = 0; i < 20; ++i)
        append_batch(**log, 1, 150, 1000 + i);
    ASSERT_EQ((*log)->segment_count(), 2u);  // 13 batches (1950 bytes) in segment 0
    // 13 batches, entries at batches 1..12 when since > 100: every batch but the first.
    EXPECT_EQ(fs::file_size(dir.path() / segment_file_name(0, kIndexSuffix)), 12u * 8);
    // Same moments, timestamps growing each time, plus no extra final entry (already max).
    EXPECT_EQ(fs::file_size(dir.path() / segment_file_name(0, kTimeIndexSuffix)), 12u * 12);
    EXPECT_EQ(fs::file_size(dir.path() / segment_file_name(13, kIndexSuffix)), 10485760u);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(fs::file_size(dir.path() / segment_file_name(13, kIndexSuffix)), 6u * 8);
}

// A produce that races DeleteTopics finds the partition's log closed: that is "not found"
// (UNKNOWN_TOPIC_OR_PARTITION for the client, which retries), not a disk error, and nothing is
// written.
TEST(PartitionLogTest, AppendToAClosedLogIsNotFound) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 100));
    ASSERT_TRUE(log);
    append_batch(**log, 1, 150);
    ASSERT_TRUE((*log)->close());
    auto batch = test::make_batch(1, 150);
    auto summaries = protocol::validate_batches(batch);
    ASSERT_TRUE(summaries);
    auto r = (*log)->append(batch, *summaries);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, StorageErrc::not_found);
    EXPECT_EQ(fs::file_size(dir.path() / segment_file_name(0, kLogSuffix)), 150u);
}

TEST(PartitionLogTest, FailedWriteLeavesTheLogUnchanged) {
    TempDir dir;
    auto faults = std::make_shared<FaultInjector>();
    auto config = test::small_config(1 << 20, 100);
    config.fault_injector = faults;
    auto log = PartitionLog::open(dir.path(), config);
    ASSERT_TRUE(log);
    for (int i = 0; i < 5; ++i)
        append_batch(**log, 2, 150);
    fs::path file = dir.path() / segment_file_name(0, kLogSuffix);
    auto before = test::read_file(file);
    auto index_before = test::read_file(dir.path() / segment_file_name(0, kIndexSuffix));

    for (int err : {ENOSPC, EIO}) {
        faults->before_log_write = [err](const fs::path&, int64_t, int64_t) {
            return WriteFault{err, 100};  // 100 bytes really land, then the failure
        };
        auto batch = test::make_batch(3, 300);
        auto summaries = protocol::validate_batches(batch);
        auto r = (*log)->append(batch, *summaries);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, err == ENOSPC ? StorageErrc::no_space : StorageErrc::io_error);
        EXPECT_EQ(test::read_file(file), before);
        EXPECT_EQ(test::read_file(dir.path() / segment_file_name(0, kIndexSuffix)), index_before);
        EXPECT_EQ((*log)->log_end_offset(), 10);
        EXPECT_EQ((*log)->size_bytes(), 750);
        auto read = (*log)->read(0, 1 << 20, false);
        ASSERT_TRUE(read);
        EXPECT_EQ(batches_in(*read).size(), 5u);
    }
    faults->before_log_write = nullptr;
    auto next = append_batch(**log, 1, 100);
    EXPECT_EQ(next.base_offset, 10);
    auto read = (*log)->read(0, 1 << 20, false);
    ASSERT_TRUE(read);
    EXPECT_EQ(batches_in(*read).size(), 6u);
}

TEST(PartitionLogTest, ConcurrentReaderSeesWholeBatches) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(5000, 300));
    ASSERT_TRUE(log);
    std::atomic<bool> done{false};
    std::atomic<int> reads{0};
    std::thread reader([&] {
        while (!done) {
            int64_t hw = (*log)->high_watermark();
            int64_t from = hw > 0 ? (hw * 7919) % hw : 0;
            auto r = (*log)->read(from, 2000, true);
            ASSERT_TRUE(r);
            int64_t expected = -1;
            for (auto [base, size] : batches_in(*r)) {
                if (expected >= 0)
                    ASSERT_EQ(base, expected);
                expected = base + 3;
            }
            if (hw > 0)
                ASSERT_TRUE((*log)->lookup(hw - 1));
            ++reads;
        }
    });
    for (int i = 0; i < 500; ++i)
        append_batch(**log, 3, 100 + (i % 7) * 30);
    done = true;
    reader.join();
    EXPECT_GT(reads.load(), 0);
    EXPECT_EQ((*log)->log_end_offset(), 1500);
}

TEST(PartitionLogTest, ConcurrentReaderDuringRollsAndRetention) {
    TempDir dir;
    auto config = test::small_config(1000, 200);
    config.retention_bytes = 3000;
    auto log = PartitionLog::open(dir.path(), config);
    ASSERT_TRUE(log);
    std::atomic<bool> done{false};
    std::thread reader([&] {
        while (!done) {
            int64_t start = (*log)->log_start_offset();
            auto r = (*log)->read(start, 1500, true);
            if (!r) {  // retention moved the start in between
                ASSERT_EQ(r.error().code, StorageErrc::offset_out_of_range);
                continue;
            }
            for (const auto& slice : r->slices)  // deleted files stay readable
                ASSERT_TRUE(protocol::validate_batches(test::read_slice(slice)));
            (void)(*log)->offset_for_timestamp(1000);
            (void)(*log)->max_timestamp();
        }
    });
    for (int i = 0; i < 400; ++i) {
        append_batch(**log, 2, 100 + (i % 5) * 20, 1000 + i, 1);
        if (i % 10 == 0)
            (*log)->apply_retention();
    }
    done = true;
    reader.join();
    EXPECT_EQ((*log)->log_end_offset(), 800);
    (*log)->apply_retention();
    // Kafka semantics: the oldest segment stays while dropping it would go below the limit.
    EXPECT_LT((*log)->size_bytes(), 3000 + 1000);
    EXPECT_GE((*log)->size_bytes(), 3000);
}

TEST(PartitionLogTest, SliceOutlivesRetention) {
    TempDir dir;
    auto config = test::small_config(300, 4096);
    config.retention_bytes = 0;
    auto log = PartitionLog::open(dir.path(), config);
    ASSERT_TRUE(log);
    for (int i = 0; i < 6; ++i)
        append_batch(**log, 1, 150);
    auto r = (*log)->read(0, 150, false);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->slices.size(), 1u);
    EXPECT_EQ((*log)->apply_retention(), 2u);
    EXPECT_FALSE(fs::exists(dir.path() / segment_file_name(0, kLogSuffix)));
    EXPECT_EQ(batches_in(*r), (std::vector<std::pair<int64_t, size_t>>{{0, 150}}));
    EXPECT_EQ((*log)->log_start_offset(), 4);
    auto gone = (*log)->read(0, 150, false);
    ASSERT_FALSE(gone);
    EXPECT_EQ(gone.error().code, StorageErrc::offset_out_of_range);
}

}  // namespace
}  // namespace skiff::storage
