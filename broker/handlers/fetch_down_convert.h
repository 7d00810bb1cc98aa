// Fetch v0-v3: the batches a log read found, read into memory and down-converted to the message
// format the client reads (protocol/legacy/down_convert.h). These answers are inline bytes, not
// sendfile ranges. Used only by handle_fetch.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/record_set.h"
#include "storage/partition_log.h"

namespace skiff::broker {

// Replaces `out` with the converted messages of `read` from `fetch_offset` on, at most
// `max_bytes` of them (at least one whole message). Returns false with `error` set when a slice
// cannot be read or a stored batch does not decode.
bool down_convert_fetch(const storage::ReadResult& read, int16_t fetch_version,
                        int64_t fetch_offset, int64_t max_bytes, protocol::RecordSet& out,
                        std::string& error);

}  // namespace skiff::broker
