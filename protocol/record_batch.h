// Kafka record batch v2 (magic 2): the unit that producers send, the broker stores verbatim in
// its .log files and consumers fetch back.
//
// Fixed 61-byte header, big-endian:
//   offset  size  field
//        0     8  BaseOffset            rewritten by the broker on append (not CRC-covered)
//        8     4  Length                bytes after this field
//       12     4  PartitionLeaderEpoch  rewritten by the broker (not CRC-covered)
//       16     1  Magic                 2
//       17     4  CRC                   CRC-32C of bytes [21, end of batch)
//       21     2  Attributes            bits 0-2 codec, 3 timestamp type, 4 transactional, 5
//       control 23     4  LastOffsetDelta 27     8  BaseTimestamp 35     8  MaxTimestamp 43     8
//       ProducerId 51     2  ProducerEpoch 53     4  BaseSequence 57     4  RecordsCount 61 records
//       (one compressed block when a codec is set)
//
// Validation here is per batch, never per record: the broker never decompresses or walks records
// on the produce path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/expected.h"

namespace skiff::protocol {

inline constexpr size_t kBatchHeaderSize = 61;
// BaseOffset + Length: the bytes of a batch not counted by its Length field.
inline constexpr size_t kBatchLogOverhead = 12;
inline constexpr size_t kBatchMagicOffset = 16;
inline constexpr size_t kBatchCrcOffset = 17;
inline constexpr size_t kBatchAttributesOffset = 21;
inline constexpr int8_t kCurrentMagic = 2;

enum class Compression : uint8_t { none = 0, gzip = 1, snappy = 2, lz4 = 3, zstd = 4 };
const char* compression_name(Compression c);

struct BatchHeader {
    int64_t base_offset = 0;
    int32_t length = 0;
    int32_t partition_leader_epoch = 0;
    int8_t magic = 0;
    uint32_t crc = 0;
    int16_t attributes = 0;
    int32_t last_offset_delta = 0;
    int64_t base_timestamp = 0;
    int64_t max_timestamp = 0;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t base_sequence = -1;
    int32_t records_count = 0;

    Compression compression() const { return static_cast<Compression>(attributes & 0x07); }
    bool log_append_time() const { return (attributes & 0x08) != 0; }
    bool is_transactional() const { return (attributes & 0x10) != 0; }
    bool is_control() const { return (attributes & 0x20) != 0; }
    // Whole batch on disk, including BaseOffset and Length.
    uint64_t size_bytes() const { return static_cast<uint64_t>(length) + kBatchLogOverhead; }
    int64_t last_offset() const { return base_offset + last_offset_delta; }
};

// What storage and the broker need to know about a validated batch.
struct BatchSummary {
    uint32_t size_bytes = 0;  // whole batch, header included
    int32_t record_count = 0;
    int32_t last_offset_delta = 0;
    int64_t base_timestamp = 0;
    int64_t max_timestamp = 0;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t base_sequence = -1;
    Compression compression = Compression::none;
    bool transactional = false;
    bool control = false;
};

enum class BatchErrc {
    truncated,       // fewer bytes than the header or than Length says
    invalid_length,  // Length too small for a header, or absurd
    legacy_magic,    // magic 0 or 1: message sets from pre-0.11 clients
    unknown_magic,   // any other magic
    crc_mismatch,    // CRC-32C over Attributes..end does not match
    invalid_count,   // RecordsCount / LastOffsetDelta inconsistent
    invalid_codec,   // compression codec outside 0..4
    invalid_offset,  // BaseOffset + LastOffsetDelta + 1 past 2^63 - 1
    empty,           // no batch at all
};

struct BatchError {
    BatchErrc code{};
    size_t position = 0;  // byte position of the offending batch within the buffer
    std::string message;
};

// Reads the header fields of the batch at the start of `bytes`. Needs kBatchHeaderSize bytes;
// does no validation beyond that.
BatchHeader read_batch_header(std::span<const std::byte> bytes);

BatchSummary summarize(const BatchHeader& h);

// Validates the one batch starting at bytes[0]; bytes may hold more after it. Checks Length
// against what is present, magic, codec, count consistency and the CRC.
Expected<BatchHeader, BatchError> check_batch(std::span<const std::byte> bytes);

// Validates every batch in `records`, back to back, which must end exactly at a batch boundary.
Expected<std::vector<BatchSummary>, BatchError> validate_batches(
    std::span<const std::byte> records);
// The same, filling `out` (cleared first) so a caller on the produce path can reuse its
// capacity instead of allocating a vector per request.
Expected<void, BatchError> validate_batches(std::span<const std::byte> records,
                                            std::vector<BatchSummary>& out);

// Header-only check used by log recovery and dump-log: like check_batch, with the CRC check
// optional for callers that only need the framing.
Expected<BatchHeader, BatchError> check_batch_framing(std::span<const std::byte> bytes);

// Rewrites BaseOffset in place. Not covered by the CRC, so the batch stays valid.
void set_base_offset(std::span<std::byte> batch, int64_t base_offset);
void set_partition_leader_epoch(std::span<std::byte> batch, int32_t epoch);

}  // namespace skiff::protocol
