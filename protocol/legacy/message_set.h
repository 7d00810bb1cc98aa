// Kafka message format v0 and v1 ("message sets"), what clients before 0.11 send and read.
// skiff stores only record batch v2; this is the parsing and validation of the old format, used
// by up_convert.h on produce. down_convert.h writes the format.
//
// A message set is entries back to back, big-endian:
//   int64  offset        producers send anything (0); inner messages of a v1 wrapper: 0..n-1
//   int32  message_size  bytes of the message that follows
//   message:
//     uint32 crc         CRC-32 (IEEE, zlib's crc32) of the bytes from magic to the end
//     int8   magic       0 or 1 (sits at byte 16 of the entry, like a v2 batch's magic)
//     int8   attributes  bits 0-2 codec (0 none, 1 gzip, 2 snappy, 3 lz4), bit 3 (v1 only)
//                        timestamp type (1 = LogAppendTime)
//     int64  timestamp   v1 only, milliseconds; absent in v0
//     bytes  key         int32 length (-1 null) then bytes
//     bytes  value       int32 length (-1 null) then bytes
// A compressed message ("wrapper") has the codec bits set and its value is a whole message set
// compressed with that codec; its inner messages are uncompressed and of the wrapper's magic.
// LZ4 wrappers of magic 0 carry a wrong LZ4 frame header checksum (KAFKA-3160: the 0.8-0.9
// clients hashed the frame magic too); like Kafka, it is not checked for magic 0.
//
// Thread-safety: MessageSetReader is a plain value, one per caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/expected.h"
#include "protocol/record_batch.h"

namespace skiff::protocol::legacy {

inline constexpr size_t kLogOverhead = 12;                  // offset + message_size
inline constexpr size_t kV0HeaderSize = 4 + 1 + 1 + 4 + 4;  // crc, magic, attributes, 2 lengths
inline constexpr size_t kV1HeaderSize = kV0HeaderSize + 8;  // + timestamp
inline constexpr int64_t kNoTimestamp = -1;

struct LegacyError {
    std::string message;
};

// One message as the broker stores it: an outer uncompressed message, or an inner message of a
// compressed wrapper. Views into the message set, or into the reader's decompression buffer
// (valid until the next call to next()).
struct LegacyMessage {
    int8_t magic = 0;
    int64_t timestamp = kNoTimestamp;  // v0: none; inner of a LogAppendTime wrapper: the wrapper's
    std::optional<std::span<const std::byte>> key;
    std::optional<std::span<const std::byte>> value;
    Compression wrapper_codec = Compression::none;  // codec of the wrapper it came from
};

// True when `bytes` begins with an entry whose magic byte is 0 or 1.
bool is_message_set(std::span<const std::byte> bytes);

// CRC-32 (IEEE 802.3, zlib) of `data`.
uint32_t crc32_ieee(std::span<const std::byte> data);

// The LZ4 frame header checksum byte of the frame at the start of `frame` (nullopt when it does
// not start with an LZ4 frame header): the correct one, or with `kafka3160` the one the 0.8-0.9
// clients wrote (the hash taken from the frame magic instead of the frame descriptor).
std::optional<uint8_t> lz4_header_checksum(std::span<const std::byte> frame, bool kafka3160);

// Walks a message set, validating as it goes: every entry whole, sizes consistent, CRC correct,
// magic 0 or 1, codec 0-3, wrappers holding at least one uncompressed message of their magic.
// The set must end exactly at an entry boundary (a producer never sends a partial message).
class MessageSetReader {
  public:
    // Decompressed wrapper contents beyond `max_plain` bytes are refused (decompression bombs).
    MessageSetReader(std::span<const std::byte> set, size_t max_plain)
        : set_(set), max_plain_(max_plain) {}

    // The next message, nullopt after the last, or the first problem found.
    Expected<std::optional<LegacyMessage>, LegacyError> next();

  private:
    std::span<const std::byte> set_;
    size_t pos_ = 0;
    size_t max_plain_;
    std::vector<std::byte> plain_;  // the current wrapper's inner message set
    size_t inner_pos_ = 0;
    bool in_wrapper_ = false;
    int8_t wrapper_magic_ = 0;
    Compression wrapper_codec_ = Compression::none;
    bool wrapper_log_append_time_ = false;
    int64_t wrapper_timestamp_ = kNoTimestamp;
};

// The fields of one message entry at the start of `entry`, after validating it (size, CRC,
// magic, lengths). `consumed` is set to the entry's whole size.
struct RawMessage {
    int8_t magic = 0;
    int8_t attributes = 0;
    int64_t timestamp = kNoTimestamp;
    std::optional<std::span<const std::byte>> key;
    std::optional<std::span<const std::byte>> value;
};
Expected<RawMessage, LegacyError> parse_entry(std::span<const std::byte> entry, size_t& consumed);

}  // namespace skiff::protocol::legacy
