// Produce path: a v0/v1 message set (message_set.h) becomes ONE record batch v2, which the broker
// then validates and appends like any batch a modern producer sends.
//
// What Kafka's LogValidator does when it converts on produce, for CreateTime topics (skiff has
// no LogAppendTime topics):
//   - every message, outer or inside a wrapper, becomes one record, offset deltas 0..n-1 (the
//     offsets the client wrote are ignored; the log assigns them);
//   - timestamps: a v1 message keeps its own; a v0 message has none and gets -1 (NO_TIMESTAMP);
//     the inner messages of a v1 wrapper marked LogAppendTime get the wrapper's timestamp;
//     BaseTimestamp is the first record's, MaxTimestamp the largest (-1 when there is none);
//   - the batch is compressed with the codec of the (last) compressed wrapper in the set, or
//     left uncompressed when there was none, as Kafka does with compression.type=producer;
//   - no producer id, epoch or sequence (idempotence does not exist before v2), no headers.
// The work is per batch: one pass over the messages writing records straight into the output,
// then at most one compression of the whole record body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/expected.h"
#include "protocol/legacy/message_set.h"
#include "protocol/record_batch.h"

namespace skiff::protocol::legacy {

struct UpConverted {
    int32_t record_count = 0;
    Compression codec = Compression::none;
};

// Writes the batch to `out` (cleared first; its capacity is reused). `scratch` holds the
// uncompressed records when the batch is compressed. Any malformed message refuses the whole
// set. `max_plain` bounds each wrapper's decompressed size.
Expected<UpConverted, LegacyError> up_convert(std::span<const std::byte> message_set,
                                              size_t max_plain, std::vector<std::byte>& out,
                                              std::vector<std::byte>& scratch);

}  // namespace skiff::protocol::legacy
