#include "tests/storage/test_batches.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <sstream>

#include "protocol/crc32c.h"
#include "storage/big_endian.h"
#include "storage/segment_names.h"

namespace skiff::storage::test {

namespace fs = std::filesystem;

namespace {

void put_varlong(std::vector<std::byte>& out, int64_t value) {
    uint64_t v = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
    while (v >= 0x80) {
        out.push_back(std::byte(static_cast<uint8_t>(v | 0x80)));
        v >>= 7;
    }
    out.push_back(std::byte(static_cast<uint8_t>(v)));
}

std::vector<std::byte> record(int64_t timestamp_delta, int32_t offset_delta, size_t value_size,
                              int key_size = -1) {
    std::vector<std::byte> body;
    body.push_back(std::byte{0});  // attributes
    put_varlong(body, timestamp_delta);
    put_varlong(body, offset_delta);
    put_varlong(body, key_size);  // -1: null key
    if (key_size > 0)
        body.insert(body.end(), static_cast<size_t>(key_size), std::byte{'k'});
    put_varlong(body, static_cast<int64_t>(value_size));
    body.insert(body.end(), value_size, std::byte{'v'});
    put_varlong(body, 0);  // no headers
    std::vector<std::byte> out;
    put_varlong(out, static_cast<int64_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
    return out;
}

}  // namespace

std::vector<std::byte> make_batch(int32_t records, size_t size_bytes, int64_t base_timestamp,
                                  int64_t timestamp_step) {
    std::vector<std::byte> out(protocol::kBatchHeaderSize);
    for (int32_t i = 0; i + 1 < records; ++i) {
        auto r = record(i * timestamp_step, i, 0);
        out.insert(out.end(), r.begin(), r.end());
    }
    if (size_bytes < out.size())
        ADD_FAILURE() << "batch size " << size_bytes << " too small";
    size_t remaining = size_bytes - out.size();
    bool done = false;
    // Varint lengths jump by a byte at 64, so some sizes need a one-byte key as well.
    for (int key = -1; key <= 1 && !done; ++key) {
        for (size_t v = remaining > 24 ? remaining - 24 : 0; v <= remaining && !done; ++v) {
            auto r = record((records - 1) * timestamp_step, records - 1, v, key);
            if (r.size() == remaining) {
                out.insert(out.end(), r.begin(), r.end());
                done = true;
            }
        }
    }
    if (!done)
        ADD_FAILURE() << "cannot build a batch of exactly " << size_bytes << " bytes";
    std::byte* h = out.data();
    store_be<int64_t>(h + 0, 0);
    store_be<int32_t>(h + 8, static_cast<int32_t>(out.size() - protocol::kBatchLogOverhead));
    store_be<int32_t>(h + 12, 7);
    h[16] = std::byte{2};
    store_be<int16_t>(h + 21, 0);
    store_be<int32_t>(h + 23, records - 1);
    store_be<int64_t>(h + 27, base_timestamp);
    store_be<int64_t>(h + 35, base_timestamp + (records - 1) * timestamp_step);
    store_be<int64_t>(h + 43, -1);
    store_be<int16_t>(h + 51, -1);
    store_be<int32_t>(h + 53, -1);
    store_be<int32_t>(h + 57, records);
    uint32_t crc = protocol::crc32c(std::span<const std::byte>(out).subspan(21));
    store_be<uint32_t>(h + 17, crc);
    return out;
}

AppendResult append_batch(PartitionLog& log, int32_t records, size_t size_bytes,
                          int64_t base_timestamp, int64_t timestamp_step) {
    auto bytes = make_batch(records, size_bytes, base_timestamp, timestamp_step);
    auto summaries = protocol::validate_batches(bytes);
    EXPECT_TRUE(summaries.has_value()) << (summaries ? "" : summaries.error().message);
    if (!summaries)
        return {};
    auto result = log.append(bytes, *summaries);
    EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
    return result ? *result : AppendResult{};
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::byte> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(chars.size());
    for (size_t i = 0; i < chars.size(); ++i)
        out[i] = std::byte(chars[i]);
    return out;
}

void write_file(const fs::path& path, const std::vector<std::byte>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::byte> read_slice(const FileSlice& slice) {
    std::vector<std::byte> out(static_cast<size_t>(slice.length));
    ssize_t n = ::pread(slice.fd, out.data(), out.size(), slice.position);
    EXPECT_EQ(n, slice.length);
    return out;
}

TempDir::TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("skiff-storage-test-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter++) + "-" + std::to_string(rd()));
    fs::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

LogConfig small_config(uint64_t segment_bytes, uint32_t index_interval_bytes) {
    LogConfig c;
    c.segment_bytes = segment_bytes;
    c.index_interval_bytes = index_interval_bytes;
    c.index_size_max_bytes = 4096;
    c.retention_ms = -1;
    return c;
}

LogConfig config() {
    return small_config(800, 250);
}

int64_t fixed_now() {
    return 10'000;
}

void fill(PartitionLog& log, int from, int to) {
    for (int i = from; i < to; ++i)
        append_batch(log, 2, 100 + 10 * (i % 10), 1000 + 100 * i, 5);
}

std::vector<std::filesystem::path> segment_files(const std::filesystem::path& dir,
                                                 std::string_view suffix) {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (parse_segment_file_name(e.path().filename().string(), suffix))
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

int64_t base_of(const std::filesystem::path& file) {
    return *parse_segment_file_name(file.filename().string(), file.extension().string());
}

}  // namespace skiff::storage::test
