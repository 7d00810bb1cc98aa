// Writing one transaction marker (COMMIT or ABORT control batch) to one partition: what the
// transaction coordinator does for every partition of a transaction it completes. Kafka sends
// WriteTxnMarkers to the partition leaders; on one broker it is a direct call.
#pragma once

#include <cstdint>
#include <vector>

#include "protocol/error_code.h"
#include "storage/group_commit.h"
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
// `unsynced` null: the marker is flushed as the partition's flush settings say, on this thread.
// Otherwise (durable mode) it is appended unsynced and its sync added there; whoever completes
// the transaction waits for it, and wakes the partition's read_committed fetches then.
protocol::ErrorCode write_marker(Broker& broker, const storage::TopicPartition& tp, const Marker& m,
                                 std::vector<storage::PendingSync>* unsynced = nullptr);

}  // namespace skiff::broker::txn
