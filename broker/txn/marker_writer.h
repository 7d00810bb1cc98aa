// Writing one transaction marker (COMMIT or ABORT control batch) to one partition: what the
// transaction coordinator does for every partition of a transaction it completes. Kafka sends
// WriteTxnMarkers to the partition leaders; on one broker it is a direct call.
#pragma once

#include <cstdint>

#include "protocol/error_code.h"
#include "storage/topic_partition.h"

namespace skiff::broker {
class Broker;
}

namespace skiff::broker::txn {

struct Marker {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t coordinator_epoch = 0;
    bool commit = false;  // false: ABORT
};

// Writes `m` to `tp`: NONE or the error. Partition logs get a control batch
// (PartitionLog::append_marker); `__consumer_offsets` partition 0 goes to the group coordinator,
// which applies or drops the producer's pending transactional offsets.
protocol::ErrorCode write_marker(Broker& broker, const storage::TopicPartition& tp,
                                 const Marker& m);

}  // namespace skiff::broker::txn
