// Test helpers: real, valid record batches v2 of an exact size, temporary directories.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/record_batch.h"
#include "storage/partition_log.h"

namespace skiff::storage::test {

// A valid v2 batch (CRC-32C correct) of `records` uncompressed records, exactly `size_bytes`
// long: record i has timestamp base_timestamp + i * timestamp_step; the last record's value is
// padded to reach the size. BaseOffset 0 and PartitionLeaderEpoch 7 (storage rewrites both).
std::vector<std::byte> make_batch(int32_t records, size_t size_bytes, int64_t base_timestamp = 1000,
                                  int64_t timestamp_step = 1);

// Appends one batch made by make_batch; fails the test on error.
AppendResult append_batch(PartitionLog& log, int32_t records, size_t size_bytes,
                          int64_t base_timestamp = 1000, int64_t timestamp_step = 1);

// Every byte of a file.
std::vector<std::byte> read_file(const std::filesystem::path& path);
// Every byte of a (text) file, as a string; empty if it cannot be read.
std::string read_text(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes);
// Bytes of a FileSlice.
std::vector<std::byte> read_slice(const FileSlice& slice);

// A fresh directory under the system temp dir, removed at destruction.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// A LogConfig with the given segment and index interval sizes and a small index.
LogConfig small_config(uint64_t segment_bytes, uint32_t index_interval_bytes);

// The recovery and restart tests' logs: 800-byte segments, an index entry every 250 bytes.
LogConfig config();
// Their clock. Record timestamps are 1000 + ...; a wall clock would make every reopened segment
// older than roll_ms (its roll time is its first batch's timestamp, as in Kafka) and roll at once.
int64_t fixed_now();
// Batches `from` to `to` of 20 batches of 2 records, 100..190 bytes, timestamps growing: 4
// segments of config(), 40 offsets.
void fill(PartitionLog& log, int from = 0, int to = 20);
// The segment files of `dir` with `suffix` (".log", ".index", ...), sorted by base offset.
std::vector<std::filesystem::path> segment_files(const std::filesystem::path& dir,
                                                 std::string_view suffix);
// The base offset a segment file's name gives (00000000000000000042.log -> 42).
int64_t base_of(const std::filesystem::path& file);

}  // namespace skiff::storage::test
