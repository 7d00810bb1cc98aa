// Loading an internal topic (__consumer_offsets, __transaction_state, _schemas) at start-up: its
// coordinator reads every batch from the log start offset to the high watermark, in log order,
// and rebuilds its state from the records. One reader for all of them, so that each coordinator
// only says what a record means.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "protocol/expected.h"
#include "protocol/record_batch.h"
#include "protocol/record_iterator.h"
#include "storage/partition_log.h"

namespace skiff::broker {

// Called once per batch with its header and records (uncompressed: internal topics are written
// uncompressed). An error stops the replay and is returned as it is.
using BatchVisitor = std::function<Expected<void, std::string>(
    const protocol::BatchHeader& header, const std::vector<protocol::Record>& records)>;

// Reads `log` from its start to its high watermark. The error names `topic` and the offset: a
// batch that fails its CRC or framing, a record that cannot be read, an I/O error.
Expected<void, std::string> replay_internal_log(storage::PartitionLog& log, std::string_view topic,
                                                const BatchVisitor& visit);

}  // namespace skiff::broker
