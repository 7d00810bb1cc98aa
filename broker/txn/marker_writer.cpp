#include "broker/txn/marker_writer.h"

#include "broker/broker.h"
#include "broker/error_mapping.h"

namespace skiff::broker::txn {

protocol::ErrorCode write_marker(Broker& broker, const storage::TopicPartition& tp,
                                 const Marker& m) {
    // The offsets partition: the group coordinator appends the marker to its log and applies
    // (commit) or drops (abort) the producer's pending transactional offsets.
    if (tp.topic == group::kOffsetsTopic)
        return broker.groups().complete_transaction(m.producer_id, m.producer_epoch,
                                                    m.coordinator_epoch, m.commit);
    auto* log = broker.logs().get(tp);
    if (!log)  // deleted since it was added: nothing left to mark (Kafka's answer, too)
        return protocol::ErrorCode::unknown_topic_or_partition;
    auto appended =
        log->append_marker({m.producer_id, m.producer_epoch, m.coordinator_epoch, m.commit, -1});
    if (!appended)
        return to_error_code(appended.error().code);
    // The last stable offset moved: read_committed fetches parked on this partition may now
    // have data.
    broker.waiters().notify(PartitionWaiters::key(tp.topic, tp.partition));
    return protocol::ErrorCode::none;
}

}  // namespace skiff::broker::txn
