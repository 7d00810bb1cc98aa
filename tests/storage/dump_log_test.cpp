// `skiff dump-log`: run the built binary on directories written by the storage code.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "protocol/crc32c.h"
#include "protocol/record_builder.h"
#include "storage/big_endian.h"
#include "storage/cleaner/log_cleaner.h"
#include "storage/partition_log.h"
#include "storage/partition_metadata.h"
#include "storage/segment_names.h"
#include "storage/transaction_index.h"
#include "tests/storage/test_batches.h"

#ifndef SKIFF_BINARY
#error "SKIFF_BINARY must name the built skiff executable"
#endif

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::append_batch;
using test::TempDir;

struct Run {
    int exit_code;
    std::string output;
};

Run dump_log(const std::string& args) {
    std::string command = std::string(SKIFF_BINARY) + " dump-log " + args + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    Run run{-1, {}};
    if (!pipe)
        return run;
    std::array<char, 4096> buffer{};
    size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        run.output.append(buffer.data(), n);
    int status = ::pclose(pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

// Three sealed segments and an active one with preallocated indexes.
void write_log(const fs::path& dir) {
    auto log =
        PartitionLog::open(dir, test::small_config(600, 150), [] { return int64_t{10'000}; });
    ASSERT_TRUE(log);
    for (int i = 0; i < 14; ++i)
        append_batch(**log, 2, 100 + 20 * (i % 3), 1000 + 10 * i, 1);
    ASSERT_GE((*log)->segment_count(), 3u);
}

TEST(DumpLogTest, PrintsBatchesAndIndexEntries) {
    TempDir dir;
    write_log(dir.path());
    auto run = dump_log((dir.path() / segment_file_name(0, kLogSuffix)).string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("Log starting offset: 0"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("baseOffset: 0 lastOffset: 1 count: 2"), std::string::npos);
    EXPECT_NE(run.output.find("position: 100 size: 120"), std::string::npos);
    EXPECT_NE(run.output.find("compresscodec: none"), std::string::npos);
    EXPECT_NE(run.output.find("isvalid: true"), std::string::npos);

    run = dump_log((dir.path() / segment_file_name(0, kIndexSuffix)).string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
    // Batches 100, 120, 140, 100: since 220 > 150 at the third (last offset 5, position 220).
    EXPECT_NE(run.output.find("offset: 5 position: 220"), std::string::npos) << run.output;

    run = dump_log((dir.path() / segment_file_name(0, kTimeIndexSuffix)).string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("timestamp: 1021 offset: 5"), std::string::npos) << run.output;
}

TEST(DumpLogTest, VerifyAcceptsAMultiSegmentDirectory) {
    TempDir dir;
    write_log(dir.path());
    auto run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("verify: no problems found"), std::string::npos) << run.output;
}

TEST(DumpLogTest, VerifyRejectsACorruptedBatch) {
    TempDir dir;
    write_log(dir.path());
    fs::path file = dir.path() / segment_file_name(0, kLogSuffix);
    auto bytes = test::read_file(file);
    bytes[150] ^= std::byte{0x10};
    test::write_file(file, bytes);
    auto run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("CRC"), std::string::npos) << run.output;
}

TEST(DumpLogTest, VerifyRejectsAnIndexEntryOffABatchBoundary) {
    TempDir dir;
    write_log(dir.path());
    fs::path file = dir.path() / segment_file_name(0, kIndexSuffix);
    auto bytes = test::read_file(file);
    ASSERT_GE(bytes.size(), 8u);
    bytes[7] = std::byte(static_cast<uint8_t>(bytes[7]) + 1);  // position + 1
    test::write_file(file, bytes);
    auto run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("not a batch boundary"), std::string::npos) << run.output;
}

TEST(DumpLogTest, VerifyRejectsAGapBetweenSegments) {
    TempDir dir;
    write_log(dir.path());
    std::vector<fs::path> logs;
    for (const auto& e : fs::directory_iterator(dir.path()))
        if (e.path().extension() == ".log")
            logs.push_back(e.path());
    std::sort(logs.begin(), logs.end());
    fs::remove(logs[1]);
    auto run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 1) << run.output;
}

TEST(DumpLogTest, VerifyAcceptsTheGapsOfACompactedLogButNotOverlaps) {
    TempDir dir;
    LogConfig config = test::small_config(600, 100);
    config.cleanup_compact = true;
    {
        auto log = PartitionLog::open(dir.path(), config, [] { return int64_t{10'000}; });
        ASSERT_TRUE(log);
        for (int i = 0; i < 40; ++i) {
            protocol::BatchSpec spec;
            spec.base_timestamp = 1000 + i;
            protocol::RecordSpec record;
            record.key = "key-" + std::to_string(i % 4);
            record.value = "value-" + std::to_string(i);
            auto batch = protocol::build_record_batch(spec, {record});
            auto summaries = protocol::validate_batches(batch);
            ASSERT_TRUE(summaries);
            ASSERT_TRUE((*log)->append(batch, *summaries));
        }
        auto cleaned = clean_log(**log, 0, CleanerConfig{}, 10'000);
        ASSERT_TRUE(cleaned) << cleaned.error().message;
        ASSERT_GT(cleaned->records_read, cleaned->records_kept);
        ASSERT_TRUE((*log)->close());
    }
    auto run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("verify: no problems found"), std::string::npos) << run.output;
    // Offsets going back are still refused: a segment renamed to start inside the one before.
    auto logs = test::segment_files(dir.path(), kLogSuffix);
    ASSERT_GE(logs.size(), 3u);
    auto second = parse_segment_file_name(logs[1].filename().string(), kLogSuffix);
    ASSERT_TRUE(second);
    fs::rename(logs[1], dir.path() / segment_file_name(*second - 1, kLogSuffix));
    run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 1) << run.output;
}

TEST(DumpLogTest, ShowsTheTopicIdAndVerifiesPartitionMetadata) {
    TempDir dir;
    write_log(dir.path());
    TopicId id = random_topic_id();
    ASSERT_TRUE(write_partition_metadata(dir.path(), id));
    auto run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("Topic id: " + to_string(id)), std::string::npos) << run.output;
    std::ofstream(dir.path() / kPartitionMetadataFile, std::ios::trunc) << "version: 7\n";
    run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("PROBLEM " + (dir.path() / kPartitionMetadataFile).string()),
              std::string::npos)
        << run.output;
}

// A transactional batch of producer `pid` (attribute 0x10), sequence `sequence`.
std::vector<std::byte> txn_batch(int64_t pid, int32_t sequence) {
    auto bytes = test::make_batch(2, 150);
    store_be<int64_t>(bytes.data() + 43, pid);
    store_be<int16_t>(bytes.data() + 51, 0);
    store_be<int32_t>(bytes.data() + 53, sequence);
    bytes[22] |= std::byte{0x10};
    store_be<uint32_t>(
        bytes.data() + protocol::kBatchCrcOffset,
        protocol::crc32c(std::span(bytes).subspan(protocol::kBatchAttributesOffset)));
    return bytes;
}

TEST(DumpLogTest, ShowsTransactionMarkersAndVerifiesTheTxnIndex) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), test::small_config(1 << 20, 4096));
        ASSERT_TRUE(log);
        auto append = [&](const std::vector<std::byte>& b) {
            auto summaries = protocol::validate_batches(b);
            ASSERT_TRUE(summaries);
            ASSERT_TRUE((*log)->append(b, *summaries));
        };
        append(txn_batch(5, 0));                                     // 0-1
        ASSERT_TRUE((*log)->append_marker({5, 0, 3, false, 2000}));  // 2: ABORT
        append(txn_batch(6, 0));                                     // 3-4
        ASSERT_TRUE((*log)->append_marker({6, 0, 3, true, 2000}));   // 5: COMMIT
        ASSERT_TRUE((*log)->close());
    }
    auto run = dump_log("--verify " + dir.path().string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("| offset: 2 endTxnMarker: ABORT coordinatorEpoch: 3"),
              std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("| offset: 5 endTxnMarker: COMMIT coordinatorEpoch: 3"),
              std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("version: 0 producerId: 5 firstOffset: 0 lastOffset: 2 "
                              "lastStableOffset: 3"),
              std::string::npos)
        << run.output;
    // An entry pointing at the COMMIT marker, one outside the segment, one not increasing.
    const fs::path index = dir.path() / segment_file_name(0, kTxnIndexSuffix);
    auto bytes = test::read_file(index);
    ASSERT_EQ(bytes.size(), kTxnIndexEntrySize);
    auto add = [&](int64_t pid, int64_t first, int64_t last) {
        std::vector<std::byte> e(kTxnIndexEntrySize);
        store_be<int64_t>(e.data() + 2, pid);
        store_be<int64_t>(e.data() + 10, first);
        store_be<int64_t>(e.data() + 18, last);
        store_be<int64_t>(e.data() + 26, last + 1);
        bytes.insert(bytes.end(), e.begin(), e.end());
    };
    add(6, 3, 5);
    test::write_file(index, bytes);
    run = dump_log("--verify " + index.string());
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("is not an ABORT marker of producer 6"), std::string::npos)
        << run.output;
    add(6, 3, 60);
    add(6, 3, 4);
    test::write_file(index, bytes);
    run = dump_log("--verify " + index.string());
    EXPECT_NE(run.output.find("lastOffset 60 is outside the segment"), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("lastOffset 4 does not increase"), std::string::npos) << run.output;
    bytes[0] = std::byte{1};  // version 256
    test::write_file(index, bytes);
    run = dump_log("--verify " + index.string());
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("has version 256"), std::string::npos) << run.output;
}

TEST(DumpLogTest, UsageErrors) {
    EXPECT_EQ(dump_log("").exit_code, 2);
    EXPECT_EQ(dump_log("/nonexistent/file.log").exit_code, 2);
}

}  // namespace
}  // namespace skiff::storage
