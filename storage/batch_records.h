// Walks the records inside one v2 batch (protocol/record_iterator.h), decompressed if need be,
// for the only place storage needs them outside the cleaner: answering "first offset with
// timestamp >= T" to the record, as Kafka does. The append path never looks inside a batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "protocol/record_batch.h"
#include "storage/time_index.h"

namespace skiff::storage {

// The first record of `batch` (whole) with timestamp >= target, if any; nullopt too when the
// batch does not check or decompress.
std::optional<TimestampAndOffset> first_record_at_or_after(std::span<const std::byte> batch,
                                                           const protocol::BatchHeader& header,
                                                           int64_t target);

}  // namespace skiff::storage
