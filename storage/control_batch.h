// Control batches (transaction markers) in Kafka's exact format (KIP-98; Kafka's
// MemoryRecords.writeEndTransactionalMarker): magic 2, no compression, CreateTime,
// attributes 0x30 (transactional + control), base sequence -1, one record, 78 bytes in all:
//   61-byte batch header | record: varint length 16 | int8 attributes 0 | varint timestamp
//   delta 0 | varint offset delta 0 | varint key length 4 | key: int16 version 0, int16 type
//   (0 ABORT, 1 COMMIT) | varint value length 6 | value: int16 version 0, int32 coordinator
//   epoch | varint header count 0.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "protocol/record_batch.h"

namespace skiff::storage {

inline constexpr size_t kMarkerBatchSize = 78;

enum class ControlType : int16_t { abort = 0, commit = 1 };

struct ControlRecord {
    int16_t type = -1;               // ControlType, or another (KRaft) type
    int32_t coordinator_epoch = -1;  // only for ABORT/COMMIT with a value
};

// The bytes of a marker batch (base offset 0; the log rewrites it) and its summary.
std::array<std::byte, kMarkerBatchSize> make_marker_batch(int64_t producer_id,
                                                          int16_t producer_epoch,
                                                          int32_t coordinator_epoch, bool commit,
                                                          int64_t timestamp_ms);
protocol::BatchSummary marker_summary(int64_t producer_id, int16_t producer_epoch,
                                      int64_t timestamp_ms);

// The first record of a control batch (`batch` holds the whole batch, header included), as
// Kafka reads it: key needs >= 4 bytes and a non-negative version; the value's v0 prefix.
// nullopt when the bytes are not a readable control record.
std::optional<ControlRecord> parse_control_record(std::span<const std::byte> batch);

}  // namespace skiff::storage
