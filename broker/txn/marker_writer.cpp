#include "broker/txn/marker_writer.h"

#include "broker/broker.h"

namespace skiff::broker::txn {

// A stub until storage can append control batches: the body (PartitionLog::append_marker for
// partition logs, GroupCoordinator::complete_transaction for __consumer_offsets-0) belongs to
// the integration of transactions.
protocol::ErrorCode write_marker(Broker& /*broker*/, const storage::TopicPartition& /*tp*/,
                                 const Marker& /*m*/) {
    return protocol::ErrorCode::none;
}

}  // namespace skiff::broker::txn
