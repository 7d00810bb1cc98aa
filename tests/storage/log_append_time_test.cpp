// message.timestamp.type=LogAppendTime: the append stamps each batch's header with the append
// time (timestamp-type bit, MaxTimestamp, CRC), the indexes and offset queries follow it, and
// recovery after a crash accepts the stamped batches.
#include <gtest/gtest.h>

#include "protocol/compression/batch_recompress.h"
#include "protocol/crc32c.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "storage/partition_log.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

constexpr int64_t kAppendTime = 1'700'000'000'000;

LogConfig append_time_config() {
    LogConfig c = test::small_config(1 << 20, 0);  // an index entry for every batch
    c.log_append_time = true;
    return c;
}

int64_t clock_ms() {
    return kAppendTime;
}

Expected<AppendResult, StorageError> append(PartitionLog& log, const std::vector<std::byte>& b) {
    auto summaries = protocol::validate_batches(b);
    EXPECT_TRUE(summaries);
    return log.append(b, *summaries);
}

// Every batch header of the segment starting at offset 0, each checked (CRC included).
std::vector<protocol::BatchHeader> headers_on_disk(const fs::path& dir) {
    auto bytes = test::read_file(dir / segment_file_name(0, kLogSuffix));
    std::vector<protocol::BatchHeader> out;
    size_t at = 0;
    while (at < bytes.size()) {
        auto h = protocol::check_batch(std::span<const std::byte>(bytes).subspan(at));
        EXPECT_TRUE(h) << (h ? "" : h.error().message);
        if (!h)
            break;
        out.push_back(*h);
        at += h->size_bytes();
    }
    return out;
}

TEST(LogAppendTimeTest, StampsTheHeaderAndRecomputesTheCrc) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), append_time_config(), clock_ms);
    ASSERT_TRUE(log);
    auto a = append(**log, test::make_batch(3, 150, /*base_timestamp=*/1000));
    ASSERT_TRUE(a);
    EXPECT_EQ(a->log_append_time, kAppendTime);

    auto headers = headers_on_disk(dir.path());
    ASSERT_EQ(headers.size(), 1u);
    EXPECT_TRUE(headers[0].log_append_time());
    EXPECT_EQ(headers[0].max_timestamp, kAppendTime);
    EXPECT_EQ(headers[0].base_timestamp, 1000);  // as sent, as Kafka's in-place stamping
    EXPECT_EQ(headers[0].base_offset, 0);
    EXPECT_EQ(headers[0].records_count, 3);
}

TEST(LogAppendTimeTest, CreateTimeKeepsTheProducersTimestamps) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 0), clock_ms);
    ASSERT_TRUE(log);
    auto a = append(**log, test::make_batch(3, 150, 1000));
    ASSERT_TRUE(a);
    EXPECT_EQ(a->log_append_time, -1);
    auto headers = headers_on_disk(dir.path());
    ASSERT_EQ(headers.size(), 1u);
    EXPECT_FALSE(headers[0].log_append_time());
    EXPECT_EQ(headers[0].max_timestamp, 1002);
    EXPECT_EQ((*log)->max_timestamp()->timestamp, 1002);
}

TEST(LogAppendTimeTest, ProducerFieldsAndCompressionAreKept) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), append_time_config(), clock_ms);
    ASSERT_TRUE(log);
    protocol::BatchSpec spec;
    spec.base_timestamp = 5000;
    spec.producer_id = 42;
    spec.producer_epoch = 3;
    spec.base_sequence = 0;
    auto plain = protocol::build_record_batch(spec, {{"k1", "v1", {}, 0}, {"k2", "v2", {}, 1}});
    std::vector<std::byte> scratch, zstd;
    ASSERT_TRUE(protocol::compression::recompress_batches(plain, protocol::Compression::zstd,
                                                          1 << 20, scratch, zstd));
    ASSERT_TRUE(append(**log, zstd));

    auto headers = headers_on_disk(dir.path());
    ASSERT_EQ(headers.size(), 1u);
    const auto& h = headers[0];
    EXPECT_TRUE(h.log_append_time());
    EXPECT_EQ(h.compression(), protocol::Compression::zstd);
    EXPECT_EQ(h.max_timestamp, kAppendTime);
    EXPECT_EQ(h.producer_id, 42);
    EXPECT_EQ(h.producer_epoch, 3);
    EXPECT_EQ(h.base_sequence, 0);
    // The producer's state holds the stamped time, as recovery reads it back from the header.
    auto producers = (*log)->producer_entries();
    ASSERT_EQ(producers.count(42), 1u);
    EXPECT_EQ(producers.at(42).batches.back().max_timestamp, kAppendTime);
    // Only the header changed: the compressed records are the bytes sent.
    auto bytes = test::read_file(dir.path() / segment_file_name(0, kLogSuffix));
    ASSERT_EQ(bytes.size(), zstd.size());
    EXPECT_TRUE(std::equal(bytes.begin() + protocol::kBatchHeaderSize, bytes.end(),
                           zstd.begin() + protocol::kBatchHeaderSize));
}

TEST(LogAppendTimeTest, IndexesAndOffsetQueriesFollowTheAppendTime) {
    TempDir dir;
    int64_t now = kAppendTime;
    auto log = PartitionLog::open(dir.path(), append_time_config(), [&] { return now; });
    ASSERT_TRUE(log);
    ASSERT_TRUE(append(**log, test::make_batch(2, 120, 1000)));  // offsets 0-1 at t
    now += 1000;
    ASSERT_TRUE(append(**log, test::make_batch(2, 120, 999'999)));  // 2-3 at t + 1 s
    now += 1000;
    ASSERT_TRUE(append(**log, test::make_batch(2, 120, 5)));  // 4-5 at t + 2 s

    auto max = (*log)->max_timestamp();
    ASSERT_TRUE(max);
    EXPECT_EQ(max->timestamp, kAppendTime + 2000);
    EXPECT_EQ(max->offset, 5);
    // The producers' timestamps no longer count: 999'999 finds nothing of its own.
    auto found = (*log)->offset_for_timestamp(kAppendTime + 1);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->offset, 2);
    EXPECT_EQ(found->timestamp, kAppendTime + 1000);
    EXPECT_EQ((*log)->offset_for_timestamp(1000)->offset, 0);
    EXPECT_FALSE((*log)->offset_for_timestamp(kAppendTime + 2001));
}

TEST(LogAppendTimeTest, RecoveryAfterACrashKeepsTheStampedBatches) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), append_time_config(), clock_ms);
        ASSERT_TRUE(log);
        ASSERT_TRUE(append(**log, test::make_batch(2, 120, 1000)));
        ASSERT_TRUE(append(**log, test::make_batch(3, 150, 2000)));
        // No flush, no clean close: the next open validates every batch.
    }
    fs::remove(dir.path() / segment_file_name(0, kTimeIndexSuffix));  // rebuilt by recovery
    auto log = PartitionLog::open(dir.path(), append_time_config(), clock_ms, false);
    ASSERT_TRUE(log);
    EXPECT_TRUE((*log)->recovery_problems().empty() ||
                (*log)->recovery_problems().size() == 1);  // at most the missing time index
    EXPECT_EQ((*log)->log_end_offset(), 5);
    auto max = (*log)->max_timestamp();
    ASSERT_TRUE(max);
    EXPECT_EQ(max->timestamp, kAppendTime);
    EXPECT_EQ((*log)->offset_for_timestamp(kAppendTime)->offset, 0);
    for (const auto& h : headers_on_disk(dir.path()))
        EXPECT_TRUE(h.log_append_time());
}

}  // namespace
}  // namespace skiff::storage
