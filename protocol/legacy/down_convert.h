// Fetch path for Fetch v0-v3: record batches v2 as stored become a message set of the format
// the client's Fetch version reads (v0/v1: magic 0, v2/v3: magic 1).
//
// Like Kafka's down-conversion: records before the fetch offset (a batch is stored whole, the
// fetch offset may fall inside it) are left out, control batches are left out, headers are
// dropped (v0/v1 have none), each message carries its absolute offset. Magic 1 messages carry
// the record's timestamp (the batch's MaxTimestamp and the LogAppendTime bit for LogAppendTime
// batches); magic 0 has no timestamp.
// Compressed batches are decompressed and re-emitted as uncompressed messages: every client
// reads those, and magic 0 LZ4 readers expect the KAFKA-3160 header checksum. Kafka instead
// re-compresses with the batch's codec; uncompressed costs bandwidth, not CPU.
//
// Memory is bounded by the caller: the output stops before it would pass `max_bytes`, except
// that the first message is always written whole (a consumer is never stuck behind a message
// larger than its limit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/expected.h"
#include "protocol/legacy/message_set.h"

namespace skiff::protocol::legacy {

struct DownConverted {
    int32_t message_count = 0;
    int64_t next_offset = -1;  // offset after the last message written; -1 when none was
    bool truncated = false;    // stopped at max_bytes with records left
};

// Magic a Fetch response of `fetch_version` carries (0-3), per the protocol guide.
inline int8_t fetch_message_magic(int16_t fetch_version) {
    return fetch_version >= 2 ? 1 : 0;
}

// Appends to `out` (existing contents kept) the records of the v2 batches in `batches` (back to
// back; an incomplete trailing batch is ignored) whose offset is >= first_offset. `plain` is
// scratch for decompressed records (capacity reused); `max_plain` bounds one batch's records.
Expected<DownConverted, LegacyError> down_convert(std::span<const std::byte> batches,
                                                  int8_t to_magic, int64_t first_offset,
                                                  size_t max_bytes, size_t max_plain,
                                                  std::vector<std::byte>& plain,
                                                  std::vector<std::byte>& out);

// Appends one message entry (offset, size, crc, magic, attributes, [timestamp], key, value).
void append_message(std::vector<std::byte>& out, int8_t magic, int64_t offset, int8_t attributes,
                    int64_t timestamp, const std::optional<std::span<const std::byte>>& key,
                    const std::optional<std::span<const std::byte>>& value);

}  // namespace skiff::protocol::legacy
