// Walks the records of one uncompressed record batch v2 (see record_batch.h for the header).
// Used by dump-log, by ListOffsets' lookup by timestamp (storage/batch_records.h) and by tests;
// the produce and fetch paths never walk records.
//
// Record layout after the 61-byte batch header, repeated RecordsCount times:
//   varint  length            bytes of the record after this field
//   int8    attributes        unused, 0
//   varlong timestamp_delta   from BaseTimestamp
//   varint  offset_delta      from BaseOffset
//   varint  key_length        -1 = null key
//   bytes   key
//   varint  value_length      -1 = null value
//   bytes   value
//   varint  header_count
//   header_count x { varint key_length, bytes key (UTF-8), varint value_length (-1 null), value }
// Every length is checked against the record's own length and the batch end; a record must end
// exactly where its length says, and the batch must hold exactly RecordsCount records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/expected.h"
#include "protocol/record_batch.h"
#include "protocol/wire.h"

namespace skiff::protocol {

struct RecordHeader {
    std::string_view key;
    std::optional<std::span<const std::byte>> value;
};

// Views into the batch, which must outlive the record.
struct Record {
    int8_t attributes = 0;
    int64_t timestamp_delta = 0;
    int32_t offset_delta = 0;
    std::optional<std::span<const std::byte>> key;
    std::optional<std::span<const std::byte>> value;
    std::vector<RecordHeader> headers;
};

// A record's absolute timestamp, wrapping as Kafka's does (a client chose both numbers).
inline int64_t record_timestamp(const BatchHeader& h, const Record& r) {
    return wire::wrapping_add(h.base_timestamp, r.timestamp_delta);
}

// A record's absolute offset: the iterator bounds offset_delta by LastOffsetDelta and the
// framing check bounds that, so this cannot overflow.
inline int64_t record_offset(const BatchHeader& h, const Record& r) {
    return h.base_offset + r.offset_delta;
}

struct RecordError {
    size_t position = 0;  // byte offset within the batch
    std::string message;
};

class RecordIterator {
  public:
    // Validates the batch (check_batch: framing, magic, CRC) and refuses compressed batches.
    // `batch` may hold more bytes after the batch; only the first batch is walked.
    static Expected<RecordIterator, RecordError> open(std::span<const std::byte> batch);

    // Walks records already taken out of their batch (a decompressed body): `records` holds
    // exactly the records of the batch `h` describes, whatever its codec bits say. No CRC check
    // (the caller checked the batch it came from).
    static RecordIterator over_records(std::span<const std::byte> records, const BatchHeader& h) {
        return RecordIterator(records, h, 0);
    }

    const BatchHeader& header() const { return header_; }

    // The next record: a Record, nullopt after the last one, or an error. After an error the
    // iterator stays failed.
    Expected<std::optional<Record>, RecordError> next();

  private:
    RecordIterator(std::span<const std::byte> batch, const BatchHeader& h,
                   size_t start = kBatchHeaderSize)
        : batch_(batch), header_(h), pos_(start) {}

    std::span<const std::byte> batch_;  // exactly one batch, or exactly its records
    BatchHeader header_;
    size_t pos_;
    int32_t read_ = 0;
    bool failed_ = false;
};

// Convenience: every record of the batch, or the first error.
Expected<std::vector<Record>, RecordError> read_records(std::span<const std::byte> batch);

}  // namespace skiff::protocol
