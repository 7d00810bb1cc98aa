// Rebuilds a record batch v2 with another codec, for topics whose compression.type is not
// `producer`: the records are decompressed, checked (exactly RecordsCount well-formed records),
// compressed with the topic's codec and a new batch is written around them with the codec bits,
// Length and CRC-32C updated. BaseOffset, PartitionLeaderEpoch, LastOffsetDelta, the timestamps,
// ProducerId, ProducerEpoch, BaseSequence, RecordsCount and the other attribute bits are kept,
// so idempotence checks see the rebuilt batch exactly as they would the one sent.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "protocol/compression/compression.h"
#include "protocol/record_batch.h"

namespace skiff::protocol::compression {

enum class RebuildErrc {
    corrupt,    // does not decompress, or the records do not parse or do not match the header
    too_large,  // decompresses to more than the limit
    failed,     // a codec failed for another reason
};

struct RebuildError {
    RebuildErrc code{};
    std::string message;
};

// The batch at the start of `batch` (validated by check_batch: whole, CRC correct) is appended
// to `out` with its records in codec `target`. `plain` is scratch space for the decompressed
// records (its capacity is reused). A batch already in `target` is appended unchanged.
// Decompressed records beyond `max_plain` bytes are refused (decompression bombs).
Expected<void, RebuildError> recompress_batch(std::span<const std::byte> batch, Compression target,
                                              size_t max_plain, std::vector<std::byte>& plain,
                                              std::vector<std::byte>& out);

// Every batch of `records` (validated back to back by validate_batches) rebuilt into `out`
// (cleared first), control batches left as sent.
Expected<void, RebuildError> recompress_batches(std::span<const std::byte> records,
                                                Compression target, size_t max_plain,
                                                std::vector<std::byte>& plain,
                                                std::vector<std::byte>& out);

}  // namespace skiff::protocol::compression
