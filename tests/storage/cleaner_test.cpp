// The log cleaner (storage/cleaner/log_cleaner.h): which records a pass keeps, the batches it
// writes, the swap and what a crash at each of its steps leaves after reopening, readers on an
// old snapshot across a swap, and passes over more keys than the map holds.
#include "storage/cleaner/log_cleaner.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "protocol/compression/compression.h"
#include "protocol/crc32c.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"
#include "storage/big_endian.h"
#include "storage/open_segment_files.h"
#include "storage/segment_names.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

struct Rec {
    int64_t offset = 0;
    std::optional<std::string> key, value;
    bool operator==(const Rec&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Rec& r) {
    return os << r.offset << ":" << r.key.value_or("<null>") << "=" << r.value.value_or("<null>");
}

using KV = std::pair<std::optional<std::string>, std::optional<std::string>>;

// A batch of keyed records, optionally compressed with `codec` and from a producer.
std::vector<std::byte> keyed_batch(const std::vector<KV>& records, int64_t timestamp,
                                   protocol::Compression codec = protocol::Compression::none,
                                   int64_t pid = -1, int16_t epoch = -1, int32_t sequence = -1,
                                   bool transactional = false) {
    protocol::BatchSpec spec;
    spec.base_timestamp = timestamp;
    spec.producer_id = pid;
    spec.producer_epoch = epoch;
    spec.base_sequence = sequence;
    spec.attributes = static_cast<int16_t>(transactional ? 0x10 : 0);
    std::vector<protocol::RecordSpec> specs;
    for (size_t i = 0; i < records.size(); ++i) {
        protocol::RecordSpec r;
        r.key = records[i].first;
        r.value = records[i].second;
        r.timestamp_delta = static_cast<int64_t>(i);
        specs.push_back(r);
    }
    auto batch = protocol::build_record_batch(spec, specs);
    if (codec == protocol::Compression::none)
        return batch;
    std::vector<std::byte> out(batch.begin(), batch.begin() + protocol::kBatchHeaderSize);
    auto c = protocol::compression::compress(
        codec, std::span<const std::byte>(batch).subspan(protocol::kBatchHeaderSize), out);
    EXPECT_TRUE(c);
    store_be<int32_t>(out.data() + 8, static_cast<int32_t>(out.size() - 12));
    store_be<int16_t>(out.data() + protocol::kBatchAttributesOffset,
                      static_cast<int16_t>(spec.attributes | static_cast<int16_t>(codec)));
    store_be<uint32_t>(out.data() + protocol::kBatchCrcOffset,
                       protocol::crc32c(std::span<const std::byte>(out).subspan(
                           protocol::kBatchAttributesOffset)));
    return out;
}

AppendResult append_ok(PartitionLog& log, const std::vector<std::byte>& batch) {
    auto summaries = protocol::validate_batches(batch);
    EXPECT_TRUE(summaries) << (summaries ? "" : summaries.error().message);
    auto r = log.append(batch, *summaries);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : AppendResult{};
}

AppendResult put(PartitionLog& log, const std::string& key, std::optional<std::string> value,
                 int64_t timestamp = 1000) {
    return append_ok(log, keyed_batch({{key, std::move(value)}}, timestamp));
}

struct Batch {
    protocol::BatchHeader header;
    std::vector<Rec> records;
};

// Every batch and record of the log from its start, validated.
std::vector<Batch> read_batches(const PartitionLog& log) {
    std::vector<Batch> out;
    auto r = log.read(log.log_start_offset(), 1 << 30, true);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    if (!r)
        return out;
    for (const auto& slice : r->slices) {
        auto bytes = test::read_slice(slice);
        for (size_t at = 0; at < bytes.size();) {
            auto span = std::span<const std::byte>(bytes).subspan(at);
            // check_batch, not validate_batches: the cleaner may leave empty batches.
            auto checked = protocol::check_batch(span);
            EXPECT_TRUE(checked) << (checked ? "" : checked.error().message);
            if (!checked)
                break;
            Batch b;
            b.header = protocol::read_batch_header(span);
            auto whole = span.subspan(0, b.header.size_bytes());
            std::vector<std::byte> plain;
            std::optional<protocol::RecordIterator> it;
            if (b.header.compression() == protocol::Compression::none) {
                auto opened = protocol::RecordIterator::open(whole);
                EXPECT_TRUE(opened);
                it.emplace(*opened);
            } else {
                EXPECT_TRUE(protocol::compression::decompress(
                    b.header.compression(), whole.subspan(protocol::kBatchHeaderSize), plain,
                    1 << 30));
                it.emplace(protocol::RecordIterator::over_records(plain, b.header));
            }
            for (;;) {
                auto rec = it->next();
                EXPECT_TRUE(rec);
                if (!rec || !*rec)
                    break;
                Rec x;
                x.offset = protocol::record_offset(b.header, **rec);
                auto str = [](auto s) {
                    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
                };
                if ((*rec)->key)
                    x.key = str(*(*rec)->key);
                if ((*rec)->value)
                    x.value = str(*(*rec)->value);
                b.records.push_back(x);
            }
            at += b.header.size_bytes();
            out.push_back(std::move(b));
        }
    }
    return out;
}

std::vector<Rec> read_all(const PartitionLog& log) {
    std::vector<Rec> out;
    for (const auto& b : read_batches(log))
        if (!b.header.is_control())
            out.insert(out.end(), b.records.begin(), b.records.end());
    return out;
}

LogConfig compact_config(uint64_t segment_bytes = 600) {
    LogConfig c = test::small_config(segment_bytes, 100);
    c.cleanup_compact = true;
    c.cleanup_delete = false;
    return c;
}

std::unique_ptr<PartitionLog> open_log(const fs::path& dir, const LogConfig& c, bool clean = true) {
    auto log = PartitionLog::open(dir, c, test::fixed_now, clean, 0, 0);
    EXPECT_TRUE(log) << (log ? "" : log.error().message);
    return log ? std::move(*log) : nullptr;
}

// What a compacted log must hold: for the records below `upto` (the section the key map covered),
// the last record of each key there (tombstones included unless dropped), and every record from
// `upto` on.
std::vector<Rec> expected_after(const std::vector<Rec>& all, int64_t upto, bool drop_tombstones) {
    std::map<std::string, int64_t> last;
    for (const auto& r : all)
        if (r.key && r.offset < upto)
            last[*r.key] = r.offset;
    std::vector<Rec> out;
    for (const auto& r : all) {
        if (r.offset >= upto) {
            out.push_back(r);
            continue;
        }
        if (!r.key || last[*r.key] != r.offset)
            continue;
        if (!r.value && drop_tombstones)
            continue;
        out.push_back(r);
    }
    return out;
}

// Checks `after` against `before` cleaned below `upto`: every record of `after` is a record of
// `before` (same offset, key and value), offsets strictly increase, every record from `upto` on
// and the last record of every key stay (tombstones below `upto` unless dropped), and at most
// `max_stale` older records stay.
void expect_compacted(const std::vector<Rec>& before, const std::vector<Rec>& after, int64_t upto,
                      bool tombstones_dropped, size_t max_stale) {
    std::map<int64_t, Rec> by_offset;
    for (const auto& r : before)
        by_offset[r.offset] = r;
    std::set<int64_t> kept;
    int64_t previous = -1;
    for (const auto& r : after) {
        EXPECT_GT(r.offset, previous);
        previous = r.offset;
        ASSERT_TRUE(by_offset.count(r.offset)) << r;
        EXPECT_EQ(by_offset[r.offset], r);
        kept.insert(r.offset);
    }
    const auto expected = expected_after(before, upto, tombstones_dropped);
    for (const auto& r : expected)
        EXPECT_TRUE(kept.count(r.offset)) << "missing " << r;
    EXPECT_LE(after.size(), expected.size() + max_stale);
    EXPECT_GE(after.size(), expected.size());
}

// Writes 10 keys x 6 rounds, one record per batch, then one more so the last round is sealed.
void fill_keys(PartitionLog& log, int rounds = 6, int keys = 10) {
    for (int round = 0; round < rounds; ++round)
        for (int k = 0; k < keys; ++k)
            put(log, "key-" + std::to_string(k),
                "value-" + std::to_string(k) + "-" + std::to_string(round), 1000 + round);
}

void roll_active(PartitionLog& log) {
    // A big batch does not fit in the active segment: the log rolls, the data before is sealed.
    append_ok(log, keyed_batch({{"filler", std::string(700, 'f')}}, 2000));
}

TEST(Cleaner, KeepsTheLastRecordOfEveryKey) {
    TempDir dir;
    auto config = compact_config();
    auto log = open_log(dir.path(), config);
    fill_keys(*log);
    roll_active(*log);
    const auto before = read_all(*log);
    const size_t segments_before = log->segment_count();
    ASSERT_GT(segments_before, 4u);
    const int64_t active_base = log->segments()->active()->base_offset();
    ASSERT_EQ(active_base, 60);

    auto result = clean_log(*log, 0, CleanerConfig{}, test::fixed_now());
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->first_dirty_offset_after, active_base);
    EXPECT_EQ(result->map_entries, 10);
    EXPECT_EQ(result->records_read, 60);
    EXPECT_EQ(result->segments_before, static_cast<int64_t>(segments_before - 1));
    EXPECT_EQ(result->segments_after, static_cast<int64_t>(segments_before - 1));
    const auto after = read_all(*log);
    EXPECT_EQ(result->records_kept + 1, static_cast<int64_t>(after.size()));
    expect_compacted(before, after, active_base, false, 0);
    EXPECT_EQ(after, expected_after(before, active_base, false));
    EXPECT_LT(after.size(), before.size() / 2);
    EXPECT_EQ(log->log_start_offset(), 0);
    EXPECT_EQ(log->log_end_offset(), 61);

    // More data and a second pass: the small cleaned segments are merged into bigger ones.
    fill_keys(*log, 6);
    roll_active(*log);
    const auto before2 = read_all(*log);
    const int64_t active2 = log->segments()->active()->base_offset();
    auto second =
        clean_log(*log, result->first_dirty_offset_after, CleanerConfig{}, test::fixed_now());
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_LT(second->segments_after, second->segments_before);
    const auto after2 = read_all(*log);
    expect_compacted(before2, after2, active2, false, 0);

    // The same after a clean restart and after a crash (every segment validated, gaps and all).
    ASSERT_TRUE(log->close());
    log.reset();
    log = open_log(dir.path(), config, true);
    EXPECT_EQ(read_all(*log), after2);
    log.reset();
    log = open_log(dir.path(), config, false);
    EXPECT_EQ(read_all(*log), after2);
    EXPECT_TRUE(log->recovery_problems().empty()) << log->recovery_problems()[0];
}

TEST(Cleaner, ReadsAndLookupsInsideGapsFindTheNextBatch) {
    TempDir dir;
    auto log = open_log(dir.path(), compact_config());
    fill_keys(*log);
    roll_active(*log);
    ASSERT_TRUE(clean_log(*log, 0, CleanerConfig{}, test::fixed_now()));
    const auto after = read_all(*log);
    std::set<int64_t> present;
    for (const auto& r : after)
        present.insert(r.offset);
    int gaps = 0;
    for (int64_t offset = 0; offset < log->log_end_offset(); ++offset) {
        const int64_t next = *present.lower_bound(offset);
        gaps += next != offset ? 1 : 0;
        auto r = log->read(offset, 1 << 20, true);
        ASSERT_TRUE(r) << r.error().message;
        ASSERT_FALSE(r->slices.empty());
        auto bytes = test::read_slice(r->slices[0]);
        EXPECT_EQ(protocol::read_batch_header(bytes).base_offset, next) << offset;
        auto l = log->lookup(offset);
        ASSERT_TRUE(l) << l.error().message;
    }
    EXPECT_GT(gaps, 30);
    // ListOffsets by time: records of round 5 carry timestamp 1005 and are all kept; the first
    // of them is key-0's at offset 50.
    auto t = log->offset_for_timestamp(1005);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->offset, 50);
    EXPECT_EQ(t->timestamp, 1005);
    auto filler = log->offset_for_timestamp(1006);
    ASSERT_TRUE(filler);
    EXPECT_EQ(filler->offset, 60);
}

TEST(Cleaner, TombstonesStayUntilTheDeleteHorizonThenGo) {
    TempDir dir;
    auto config = compact_config();
    config.delete_retention_ms = 1000;
    auto log = open_log(dir.path(), config);
    fill_keys(*log, 3);
    put(*log, "key-3", std::nullopt, 1100);  // delete key-3
    put(*log, "key-4", std::nullopt, 1100);
    roll_active(*log);
    const auto before = read_all(*log);
    const int64_t end = log->segments()->active()->base_offset();
    // First pass: the tombstones are in the dirty section, they stay, the values they delete go.
    auto first = clean_log(*log, 0, CleanerConfig{}, 1500);
    ASSERT_TRUE(first) << first.error().message;
    expect_compacted(before, read_all(*log), end, false, 0);
    // Later, but within delete.retention.ms of their segment's newest record: still there.
    roll_active(*log);
    auto second = clean_log(*log, first->first_dirty_offset_after, CleanerConfig{}, 2000);
    ASSERT_TRUE(second);
    auto after_second = read_all(*log);
    int tombstones = 0;
    for (const auto& r : after_second)
        tombstones += r.value ? 0 : 1;
    EXPECT_EQ(tombstones, 2);
    // Past the horizon of the segment they sit in: gone, with nothing of key-3 or key-4 left.
    roll_active(*log);
    auto third = clean_log(*log, second->first_dirty_offset_after, CleanerConfig{}, 100000);
    ASSERT_TRUE(third);
    for (const auto& r : read_all(*log)) {
        EXPECT_TRUE(r.value.has_value()) << r;
        EXPECT_NE(r.key, "key-3");
        EXPECT_NE(r.key, "key-4");
    }
}

TEST(Cleaner, DropsAbortedTransactionsKeepsMarkersAndCommittedData) {
    TempDir dir;
    auto config = compact_config();
    auto log = open_log(dir.path(), config);
    put(*log, "a", "a0");
    append_ok(*log, keyed_batch({{"b", "aborted-1"}, {"c", "aborted-2"}}, 1000,
                                protocol::Compression::none, 7, 0, 0, true));
    ASSERT_TRUE(log->append_marker({7, 0, 0, false, 1000}));
    append_ok(*log,
              keyed_batch({{"d", "committed"}}, 1000, protocol::Compression::none, 7, 0, 2, true));
    ASSERT_TRUE(log->append_marker({7, 0, 0, true, 1000}));
    fill_keys(*log, 2);
    roll_active(*log);
    auto result = clean_log(*log, 0, CleanerConfig{}, test::fixed_now());
    ASSERT_TRUE(result) << result.error().message;
    int controls = 0;
    std::vector<std::string> keys;
    for (const auto& b : read_batches(*log)) {
        if (b.header.is_control()) {
            ++controls;
            continue;
        }
        for (const auto& r : b.records)
            keys.push_back(r.key.value_or(""));
    }
    EXPECT_EQ(controls, 2);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), "b"), 0);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), "c"), 0);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), "d"), 1);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), "a"), 1);
    // The abort's .txnindex entry stays with its marker.
    auto r = log->read(0, 1 << 20, true, Isolation::read_committed);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->aborted.size(), 1u);
    EXPECT_EQ(r->aborted[0].producer_id, 7);
}

int count_controls(const PartitionLog& log) {
    int controls = 0;
    for (const auto& b : read_batches(log))
        controls += b.header.is_control() ? 1 : 0;
    return controls;
}

TEST(Cleaner, MarkersGoOnceTheirTransactionsAreGoneAndTheDeleteHorizonHasPassed) {
    TempDir dir;
    auto config = compact_config();
    config.delete_retention_ms = 1000;
    auto log = open_log(dir.path(), config);
    // Producer 7: an aborted transaction. Producer 8: a committed one whose only record a later
    // record of the same key replaces. Producer 9: a committed one whose record stays.
    append_ok(*log,
              keyed_batch({{"b", "aborted"}}, 1000, protocol::Compression::none, 7, 0, 0, true));
    ASSERT_TRUE(log->append_marker({7, 0, 0, false, 1000}));
    append_ok(*log, keyed_batch({{"d", "old"}}, 1000, protocol::Compression::none, 8, 0, 0, true));
    ASSERT_TRUE(log->append_marker({8, 0, 0, true, 1000}));
    append_ok(*log,
              keyed_batch({{"e", "stays"}}, 1000, protocol::Compression::none, 9, 0, 0, true));
    ASSERT_TRUE(log->append_marker({9, 0, 0, true, 1000}));
    put(*log, "d", "new", 1000);
    // 7 and 8 write on: their transactional batches are not their last batches, which would
    // stay (empty) and keep their markers, as in Kafka.
    append_ok(*log, keyed_batch({{"x7", "on"}}, 1000, protocol::Compression::none, 7, 0, 1));
    append_ok(*log, keyed_batch({{"x8", "on"}}, 1000, protocol::Compression::none, 8, 0, 1));
    fill_keys(*log, 2);
    roll_active(*log);

    // First pass: the markers are in the dirty section, inside the horizon: all three stay, and
    // so does the abort's .txnindex entry (this pass removed its records).
    auto first = clean_log(*log, 0, CleanerConfig{}, 1500);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first->markers_removed, 0);
    EXPECT_EQ(count_controls(*log), 3);
    auto committed = log->read(0, 1 << 20, true, Isolation::read_committed);
    ASSERT_TRUE(committed);
    EXPECT_EQ(committed->aborted.size(), 1u);

    // Second pass, past the horizon: the markers of 7 and 8 have nothing left to mark and go
    // (with the abort's .txnindex entry); 9's COMMIT stays with its record.
    put(*log, "z", "more", 1000);
    roll_active(*log);
    auto second = clean_log(*log, first->first_dirty_offset_after, CleanerConfig{}, 100000);
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(second->markers_removed, 2);
    auto batches = read_batches(*log);
    std::vector<int64_t> marker_producers;
    for (const auto& b : batches)
        if (b.header.is_control())
            marker_producers.push_back(b.header.producer_id);
    EXPECT_EQ(marker_producers, std::vector<int64_t>{9});
    committed = log->read(0, 1 << 20, true, Isolation::read_committed);
    ASSERT_TRUE(committed);
    EXPECT_TRUE(committed->aborted.empty());
    std::map<std::string, std::string> latest;
    for (const auto& r : read_all(*log))
        latest[r.key.value_or("")] = r.value.value_or("<null>");
    EXPECT_EQ(latest["d"], "new");
    EXPECT_EQ(latest["e"], "stays");
    EXPECT_EQ(latest.count("b"), 0u);
    // No transaction is left open by the missing markers, before or after a reopen.
    EXPECT_EQ(log->last_stable_offset(), log->log_end_offset());
    log.reset();
    log = open_log(dir.path(), config, false);
    ASSERT_TRUE(log);
    EXPECT_EQ(log->last_stable_offset(), log->log_end_offset());
    EXPECT_EQ(count_controls(*log), 1);
}

TEST(Cleaner, AnIdempotentProducersLastBatchStaysAsAnEmptyBatch) {
    TempDir dir;
    auto config = compact_config();
    auto log = open_log(dir.path(), config);
    // Producer 5's only batch (sequences 0-1) and producer 6's first batch are wholly replaced
    // by later records; producer 6's second batch stays.
    const auto five = append_ok(
        *log, keyed_batch({{"k1", "a"}, {"k2", "b"}}, 1000, protocol::Compression::none, 5, 3, 0));
    const auto six =
        append_ok(*log, keyed_batch({{"k3", "c"}}, 1000, protocol::Compression::none, 6, 0, 0));
    append_ok(*log, keyed_batch({{"k4", "d"}}, 1000, protocol::Compression::none, 6, 0, 1));
    append_ok(*log, keyed_batch({{"k1", "A"}, {"k2", "B"}, {"k3", "C"}}, 1100));
    fill_keys(*log, 2);
    roll_active(*log);
    auto result = clean_log(*log, 0, CleanerConfig{}, test::fixed_now());
    ASSERT_TRUE(result) << result.error().message;

    std::optional<Batch> empty;
    bool six_first_gone = true;
    for (const auto& b : read_batches(*log)) {
        if (b.header.base_offset == five.base_offset)
            empty = b;
        if (b.header.base_offset == six.base_offset)
            six_first_gone = false;
    }
    ASSERT_TRUE(empty.has_value());
    EXPECT_EQ(empty->header.records_count, 0);
    EXPECT_TRUE(empty->records.empty());
    EXPECT_EQ(empty->header.producer_id, 5);
    EXPECT_EQ(empty->header.producer_epoch, 3);
    EXPECT_EQ(empty->header.base_sequence, 0);
    EXPECT_EQ(empty->header.last_offset_delta, 1);
    EXPECT_EQ(empty->header.size_bytes(), protocol::kBatchHeaderSize);
    EXPECT_TRUE(six_first_gone);
    for (const auto& r : read_all(*log)) {
        if (r.key == "k1")
            EXPECT_EQ(r.value, "A");
        if (r.key == "k4")
            EXPECT_EQ(r.value, "d");
    }

    // The producer state rebuilt from the log alone (no snapshot) still knows producer 5's
    // epoch and last sequence: a retry of its batch is a duplicate, not a new append.
    log.reset();
    for (const auto& e : fs::directory_iterator(dir.path()))
        if (e.path().extension() == ".snapshot")
            fs::remove(e.path());
    log = open_log(dir.path(), config, false);
    ASSERT_TRUE(log);
    const auto entries = log->producer_entries();
    ASSERT_TRUE(entries.count(5));
    EXPECT_EQ(entries.at(5).epoch, 3);
    ASSERT_FALSE(entries.at(5).batches.empty());
    EXPECT_EQ(entries.at(5).batches.back().last_sequence, 1);
}

TEST(Cleaner, RebuildsPartlyKeptBatchesWithTheirCodecAndHeader) {
    for (auto codec :
         {protocol::Compression::none, protocol::Compression::gzip, protocol::Compression::snappy,
          protocol::Compression::lz4, protocol::Compression::zstd}) {
        SCOPED_TRACE(protocol::compression_name(codec));
        TempDir dir;
        auto log = open_log(dir.path(), compact_config());
        append_ok(*log, keyed_batch({{"x", "x0"}, {"y", "y0"}, {"z", "z0"}, {"w", "w0"}}, 1000,
                                    codec, 42, 3, 0));
        append_ok(*log, keyed_batch({{"x", "x1"}, {"z", "z1"}}, 1100, codec, 42, 3, 4));
        roll_active(*log);
        const auto original = read_batches(*log);
        ASSERT_TRUE(clean_log(*log, 0, CleanerConfig{}, test::fixed_now()));
        const auto cleaned = read_batches(*log);
        ASSERT_EQ(cleaned.size(), 3u);
        const auto& h = cleaned[0].header;
        const auto& o = original[0].header;
        EXPECT_EQ(h.compression(), codec);
        EXPECT_EQ(h.attributes, o.attributes);
        EXPECT_EQ(h.base_offset, 0);
        EXPECT_EQ(h.last_offset_delta, 3);  // the batch still spans its offsets
        EXPECT_EQ(h.records_count, 2);
        EXPECT_EQ(h.base_timestamp, o.base_timestamp);
        EXPECT_EQ(h.max_timestamp, o.max_timestamp);
        EXPECT_EQ(h.producer_id, 42);
        EXPECT_EQ(h.producer_epoch, 3);
        EXPECT_EQ(h.base_sequence, 0);
        EXPECT_EQ(cleaned[0].records, (std::vector<Rec>{{1, "y", "y0"}, {3, "w", "w0"}}));
        // The fully kept batch is the same bytes.
        EXPECT_EQ(cleaned[1].header.crc, original[1].header.crc);
        EXPECT_EQ(cleaned[1].records, original[1].records);
    }
}

TEST(Cleaner, MoreKeysThanTheMapHoldsTakeSeveralPassesAndTheMapNeverGrows) {
    TempDir dir;
    auto config = compact_config(2000);
    auto log = open_log(dir.path(), config);
    // 300 keys, each written twice; segments of about 40 records.
    for (int round = 0; round < 2; ++round)
        for (int k = 0; k < 300; ++k)
            put(*log, "k" + std::to_string(k),
                "r" + std::to_string(round) + "-" + std::to_string(k), 1000 + round);
    roll_active(*log);
    const auto before = read_all(*log);
    const int64_t end = log->segments()->active()->base_offset();
    CleanerConfig cfg;
    cfg.dedupe_buffer_bytes = 24 * 100;  // 100 slots, 90 keys
    cfg.io_buffer_load_factor = 0.9;
    int64_t checkpoint = 0;
    int passes = 0;
    while (checkpoint < end) {
        auto r = clean_log(*log, checkpoint, cfg, test::fixed_now());
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(r->map_capacity, 90);
        EXPECT_LE(r->map_entries, 90);
        EXPECT_GT(r->first_dirty_offset_after, checkpoint);
        checkpoint = r->first_dirty_offset_after;
        ASSERT_LT(++passes, 50);
    }
    EXPECT_GT(passes, 5);
    expect_compacted(before, read_all(*log), end, false, 0);
}

TEST(Cleaner, AMapTooSmallForOneSegmentIsAnError) {
    TempDir dir;
    auto log = open_log(dir.path(), compact_config());
    fill_keys(*log);
    roll_active(*log);
    CleanerConfig cfg;
    cfg.dedupe_buffer_bytes = 24 * 2;
    auto r = clean_log(*log, 0, cfg, test::fixed_now());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, StorageErrc::invalid_argument);
}

TEST(Cleaner, NothingAboveTheLastStableOffsetOrYoungerThanTheLag) {
    TempDir dir;
    auto config = compact_config();
    auto log = open_log(dir.path(), config);
    fill_keys(*log, 2);
    // An open transaction from offset 20 on.
    append_ok(*log,
              keyed_batch({{"key-1", "open"}}, 1000, protocol::Compression::none, 9, 0, 0, true));
    fill_keys(*log, 2);
    roll_active(*log);
    ASSERT_TRUE(log->flush_rolled());  // only flushed segments are cleanable
    auto info = cleanable_info(*log, 0, test::fixed_now());
    EXPECT_EQ(info.first_uncleanable_offset, 20);
    auto r = clean_log(*log, 0, CleanerConfig{}, test::fixed_now());
    ASSERT_TRUE(r);
    EXPECT_LE(r->first_dirty_offset_after, 20);
    EXPECT_EQ(read_all(*log).back().offset, log->log_end_offset() - 1);
    // Everything from offset 20 on is untouched.
    size_t from20 = 0;
    for (const auto& rec : read_all(*log))
        from20 += rec.offset >= 20 ? 1 : 0;
    EXPECT_EQ(from20, 22u);  // the open transaction's batch, 2 rounds, the filler

    TempDir lag_dir;
    config.min_compaction_lag_ms = 5000;
    auto lagged = open_log(lag_dir.path(), config);
    fill_keys(*lagged, 6);
    roll_active(*lagged);
    ASSERT_TRUE(lagged->flush_rolled());
    // Every record is from 1000..2000: at now 5500 all are younger than the lag.
    auto young = cleanable_info(*lagged, 0, 5500);
    EXPECT_EQ(young.first_uncleanable_offset, 0);
    EXPECT_EQ(young.dirty_bytes, 0);
    auto none = clean_log(*lagged, 0, CleanerConfig{}, 5500);
    ASSERT_TRUE(none);
    EXPECT_EQ(none->first_dirty_offset_after, 0);
    EXPECT_EQ(none->records_read, 0);
    auto old = cleanable_info(*lagged, 0, 100000);
    EXPECT_GT(old.dirty_bytes, 0);
    EXPECT_EQ(old.clean_bytes, 0);
    EXPECT_DOUBLE_EQ(old.dirty_ratio, 1.0);
}

TEST(Cleaner, AReaderOnAnOldSnapshotKeepsReadingTheOldFiles) {
    TempDir dir;
    auto log = open_log(dir.path(), compact_config());
    fill_keys(*log);
    roll_active(*log);
    auto old = log->segments();
    const auto& first = (*old)[0];
    ASSERT_EQ(first->base_offset(), 0);
    const int64_t old_size = first->size_bytes();
    // The old segment's file is closed, as the bounded cache of open files may leave it: the next
    // read must not reopen its path, which the cleaned segment takes.
    {
        auto file = first->file();
        ASSERT_TRUE(file);
        OpenSegmentFiles::global().forget(file->get());
    }
    ASSERT_TRUE(clean_log(*log, 0, CleanerConfig{}, test::fixed_now()));
    ASSERT_NE(log->segments()->segments()[0], first);
    ASSERT_LT(fs::file_size(dir.path() / segment_file_name(0, kLogSuffix)),
              static_cast<uintmax_t>(old_size));
    // Offset 0 is gone from the log, but the old segment still has it, whole.
    auto at = first->locate(0, old_size);
    ASSERT_TRUE(at) << at.error().message;
    ASSERT_TRUE(*at);
    EXPECT_EQ((*at)->header.base_offset, 0);
    auto slice = first->slice(0, old_size);
    ASSERT_TRUE(slice);
    auto bytes = test::read_slice(*slice);
    auto summaries = protocol::validate_batches(bytes);
    ASSERT_TRUE(summaries);
    EXPECT_EQ(protocol::read_batch_header(bytes).base_offset, 0);
    // The current log reads the cleaned file.
    auto r = log->read(0, 1 << 20, true);
    ASSERT_TRUE(r);
    EXPECT_EQ(protocol::read_batch_header(test::read_slice(r->slices[0])).base_offset, 50);
    // Nothing of the swap is left in the directory.
    for (const auto& e : fs::directory_iterator(dir.path())) {
        const auto name = e.path().filename().string();
        EXPECT_FALSE(name.ends_with(".cleaned") || name.ends_with(".swap") ||
                     name.ends_with(".deleted"))
            << name;
    }
}

struct CrashAt {};

TEST(Cleaner, ACrashAtEverySwapStepLeavesTheOldOrTheCleanedLogNeverAMix) {
    const auto config = compact_config();
    // The cleaned content, from a log cleaned without a crash.
    // A crash stops the pass in its first group (the first segment: two of them do not fit in
    // one); that group is then either old or cleaned, the others old.
    std::vector<Rec> before, cleaned, first_group_cleaned;
    {
        TempDir dir;
        auto log = open_log(dir.path(), config);
        fill_keys(*log);
        roll_active(*log);
        before = read_all(*log);
        const int64_t group_end = (*log->segments())[1]->base_offset();
        ASSERT_TRUE(clean_log(*log, 0, CleanerConfig{}, test::fixed_now()));
        cleaned = read_all(*log);
        ASSERT_EQ((*log->segments())[1]->base_offset(), group_end);
        for (const auto& r : cleaned)
            if (r.offset < group_end)
                first_group_cleaned.push_back(r);
        for (const auto& r : before)
            if (r.offset >= group_end)
                first_group_cleaned.push_back(r);
    }
    ASSERT_NE(before, cleaned);
    ASSERT_NE(before, first_group_cleaned);
    for (auto step :
         {SwapStep::cleaned_written, SwapStep::renamed_to_swap, SwapStep::old_renamed_to_deleted,
          SwapStep::swap_renamed_to_final, SwapStep::published, SwapStep::old_deleted}) {
        SCOPED_TRACE(static_cast<int>(step));
        for (bool clean_open : {false, true}) {
            TempDir dir;
            auto log = open_log(dir.path(), config);
            fill_keys(*log);
            roll_active(*log);
            ASSERT_TRUE(log->flush());
            CleanerConfig cfg;
            cfg.swap_hook = [step](SwapStep at) {
                if (at == step)
                    throw CrashAt{};
            };
            EXPECT_THROW((void)clean_log(*log, 0, cfg, test::fixed_now()), CrashAt);
            log.reset();  // no close: a crash
            log = open_log(dir.path(), config, clean_open);
            ASSERT_TRUE(log);
            const auto after = read_all(*log);
            if (step == SwapStep::cleaned_written)
                EXPECT_EQ(after, before);
            else
                EXPECT_EQ(after, first_group_cleaned);
            for (const auto& e : fs::directory_iterator(dir.path())) {
                const auto name = e.path().filename().string();
                EXPECT_FALSE(name.ends_with(".cleaned") || name.ends_with(".swap") ||
                             name.ends_with(".deleted"))
                    << name;
            }
            // And it cleans again.
            auto again = clean_log(*log, 0, CleanerConfig{}, test::fixed_now());
            ASSERT_TRUE(again) << again.error().message;
            EXPECT_EQ(read_all(*log), cleaned);
        }
    }
}

TEST(Cleaner, RunsAlongsideAppendsAndReaders) {
    TempDir dir;
    auto log = open_log(dir.path(), compact_config());
    fill_keys(*log);
    roll_active(*log);
    std::atomic<bool> done{false};
    std::atomic<int> read_errors{0}, reads{0};
    std::thread appender([&] {
        for (int i = 0; i < 150; ++i)
            put(*log, "key-" + std::to_string(i % 10), "late-" + std::to_string(i), 1500);
    });
    std::thread reader([&] {
        while (!done.load()) {
            auto r = log->read(0, 1 << 20, true);
            if (!r) {
                ++read_errors;
                continue;
            }
            int64_t previous = -1;
            for (const auto& slice : r->slices) {
                auto bytes = test::read_slice(slice);
                auto summaries = protocol::validate_batches(bytes);
                if (!summaries) {
                    ++read_errors;
                    break;
                }
                for (size_t at = 0; at < bytes.size();) {
                    auto h =
                        protocol::read_batch_header(std::span<const std::byte>(bytes).subspan(at));
                    if (h.base_offset <= previous)
                        ++read_errors;
                    previous = h.last_offset();
                    at += h.size_bytes();
                }
            }
            ++reads;
        }
    });
    int64_t checkpoint = 0;
    for (int pass = 0; pass < 8; ++pass) {
        auto r = clean_log(*log, checkpoint, CleanerConfig{}, test::fixed_now());
        ASSERT_TRUE(r) << r.error().message;
        checkpoint = r->first_dirty_offset_after;
    }
    appender.join();
    done = true;
    reader.join();
    EXPECT_EQ(read_errors.load(), 0);
    EXPECT_GT(reads.load(), 0);
    // A last pass over everything sealed: every key's last value below the active segment.
    roll_active(*log);
    const auto before = read_all(*log);
    const int64_t end = log->segments()->active()->base_offset();
    ASSERT_TRUE(clean_log(*log, 0, CleanerConfig{}, test::fixed_now()));
    EXPECT_EQ(read_all(*log), expected_after(before, end, false));
    ASSERT_TRUE(log->close());
    log = open_log(dir.path(), compact_config(), false);
    EXPECT_EQ(read_all(*log).size(), expected_after(before, end, false).size());
}

TEST(Cleaner, StopRemovesTheCleanedFiles) {
    TempDir dir;
    auto log = open_log(dir.path(), compact_config());
    fill_keys(*log);
    roll_active(*log);
    const auto before = read_all(*log);
    std::atomic<bool> stop{true};
    auto r = clean_log(*log, 0, CleanerConfig{}, test::fixed_now(), &stop);
    ASSERT_FALSE(r);
    EXPECT_EQ(read_all(*log), before);
    for (const auto& e : fs::directory_iterator(dir.path()))
        EXPECT_FALSE(e.path().filename().string().ends_with(".cleaned"));
}

}  // namespace
}  // namespace skiff::storage
