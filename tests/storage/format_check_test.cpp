// An independent check of the on-disk format, written without the storage code's readers:
// parse every file byte by byte and check the rules of the seeds.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "protocol/crc32c.h"
#include "storage/big_endian.h"
#include "storage/log_manager.h"
#include "storage/partition_log.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::append_batch;
using test::TempDir;

struct StoredBatch {
    int64_t position, size, base_offset, last_offset, max_timestamp;
};

TEST(FormatCheckTest, FilesFollowTheRules) {
    TempDir dir;
    const uint64_t segment_bytes = 700;
    const int64_t interval = 180;
    auto log = PartitionLog::open(dir.path(), test::small_config(segment_bytes, interval),
                                  [] { return int64_t{10'000}; });
    ASSERT_TRUE(log);
    // Mixed sizes, one batch bigger than a segment, timestamps that sometimes go back.
    std::vector<size_t> sizes{100, 230, 90, 170, 900, 120, 150, 310, 95, 200, 140, 260, 80, 300};
    for (size_t i = 0; i < sizes.size(); ++i)
        append_batch(**log, int32_t(1 + i % 3), sizes[i],
                     5000 + 100 * int64_t(i) - (i % 4 == 3 ? 350 : 0), 3);
    ASSERT_TRUE((*log)->close());

    std::map<int64_t, fs::path> logs;
    // .snapshot: the producer-state snapshot written at clean close, as Kafka keeps it.
    std::regex name(R"(^(\d{20})\.(log|index|timeindex|snapshot)$)");
    for (const auto& e : fs::directory_iterator(dir.path())) {
        std::smatch m;
        std::string file = e.path().filename().string();
        ASSERT_TRUE(std::regex_match(file, m, name)) << file;
        if (m[2] == "log")
            logs[std::stoll(m[1])] = e.path();
    }
    ASSERT_GE(logs.size(), 4u);

    int64_t expected_offset = 0;
    size_t segment_number = 0, index_entries = 0, time_entries = 0;
    bool saw_oversized_batch_alone = false;
    for (const auto& [base, path] : logs) {
        ++segment_number;
        EXPECT_EQ(base, expected_offset) << "segment named after its first offset";
        auto bytes = test::read_file(path);
        std::vector<StoredBatch> batches;
        for (size_t at = 0; at < bytes.size();) {
            ASSERT_LE(at + 61, bytes.size());
            const std::byte* h = bytes.data() + at;
            int64_t size = int64_t(load_be<int32_t>(h + 8)) + 12;
            ASSERT_LE(at + size_t(size), bytes.size());
            EXPECT_EQ(int(h[16]), 2);
            EXPECT_EQ(load_be<int32_t>(h + 12), 0) << "partition leader epoch rewritten";
            uint32_t crc = protocol::crc32c(std::span<const std::byte>(h + 21, size_t(size) - 21));
            EXPECT_EQ(load_be<uint32_t>(h + 17), crc);
            StoredBatch b{int64_t(at), size, load_be<int64_t>(h), 0, load_be<int64_t>(h + 35)};
            b.last_offset = b.base_offset + load_be<int32_t>(h + 23);
            EXPECT_EQ(b.base_offset, expected_offset) << "offsets contiguous across segments";
            expected_offset = b.last_offset + 1;
            batches.push_back(b);
            at += size_t(size);
        }
        if (batches.size() > 1)
            EXPECT_LE(bytes.size(), segment_bytes) << path;
        if (batches.size() == 1 && bytes.size() > segment_bytes)
            saw_oversized_batch_alone = true;

        // Replay the rule: entry when bytes since the last entry > interval (strictly).
        std::vector<std::pair<int64_t, int64_t>> expected_index, expected_time;
        int64_t since = 0, max_ts = -1, max_ts_offset = 0;
        for (const auto& b : batches) {
            if (b.max_timestamp > max_ts)
                max_ts = b.max_timestamp, max_ts_offset = b.last_offset;
            if (since > interval) {
                expected_index.emplace_back(b.last_offset - base, b.position);
                if (expected_time.empty() || max_ts > expected_time.back().first)
                    expected_time.emplace_back(max_ts, max_ts_offset - base);
                since = 0;
            }
            since += b.size;
        }
        // Sealed (and cleanly closed) segments get a final time index entry.
        if (!batches.empty() && (expected_time.empty() || max_ts > expected_time.back().first))
            expected_time.emplace_back(max_ts, max_ts_offset - base);

        fs::path index = path, time_index = path;
        index.replace_extension(".index");
        time_index.replace_extension(".timeindex");
        auto ib = test::read_file(index);
        std::vector<std::pair<int64_t, int64_t>> got_index, got_time;
        for (size_t i = 0; i + 8 <= ib.size(); i += 8)
            got_index.emplace_back(load_be<int32_t>(ib.data() + i),
                                   load_be<int32_t>(ib.data() + i + 4));
        EXPECT_EQ(got_index, expected_index) << index;
        auto tb = test::read_file(time_index);
        for (size_t i = 0; i + 12 <= tb.size(); i += 12)
            got_time.emplace_back(load_be<int64_t>(tb.data() + i),
                                  load_be<int32_t>(tb.data() + i + 8));
        EXPECT_EQ(got_time, expected_time) << time_index;
        index_entries += got_index.size();
        time_entries += got_time.size();
        for (size_t i = 1; i < got_time.size(); ++i) {
            EXPECT_GT(got_time[i].first, got_time[i - 1].first);
            EXPECT_GE(got_time[i].second, got_time[i - 1].second);
        }
    }
    EXPECT_EQ(expected_offset, (*log)->log_end_offset());
    EXPECT_TRUE(saw_oversized_batch_alone);
    EXPECT_GE(index_entries, 3u);
    EXPECT_GT(time_entries, index_entries / 2);
}

// partition.metadata, read as text with its own decoder: Kafka's two lines, the id as 22
// base64url characters (no padding) of 16 bytes, a version-4 UUID, the same in every partition
// of a topic and different between topics.
TEST(FormatCheckTest, PartitionMetadataIsKafkasTextForm) {
    TempDir dir;
    {
        auto m = LogManager::open(dir.path(), test::small_config(1 << 20, 4096));
        ASSERT_TRUE(m);
        ASSERT_TRUE((*m)->create_partitions("a", 0, 3));
        ASSERT_TRUE((*m)->create_partitions("b", 0, 1));
        ASSERT_TRUE((*m)->close());
    }
    const std::regex form(R"(^version: 0\ntopic_id: ([A-Za-z0-9_-]{22})\n$)");
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::map<std::string, std::string> id_of_topic;
    for (const auto& [topic, partition] :
         std::vector<std::pair<std::string, int>>{{"a", 0}, {"a", 1}, {"a", 2}, {"b", 0}}) {
        const fs::path file =
            dir.path() / (topic + "-" + std::to_string(partition)) / "partition.metadata";
        std::ifstream in(file, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        std::smatch m;
        ASSERT_TRUE(std::regex_match(text, m, form)) << file << ": " << text;
        const std::string id = m[1];
        std::vector<uint8_t> bytes;
        uint32_t acc = 0;
        int bits = 0;
        for (char c : id) {
            acc = (acc << 6) | static_cast<uint32_t>(alphabet.find(c));
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                bytes.push_back(static_cast<uint8_t>(acc >> bits));
            }
        }
        ASSERT_EQ(bytes.size(), 16u);
        EXPECT_EQ(acc & ((1u << bits) - 1), 0u) << "padding bits set in " << id;
        EXPECT_EQ(bytes[6] >> 4, 4) << "not a version-4 UUID: " << id;
        auto [it, added] = id_of_topic.emplace(topic, id);
        EXPECT_EQ(it->second, id) << "partitions of " << topic << " disagree";
    }
    EXPECT_NE(id_of_topic["a"], id_of_topic["b"]);
}

}  // namespace
}  // namespace skiff::storage
