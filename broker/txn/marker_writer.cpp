#include "broker/txn/marker_writer.h"

#include "broker/broker.h"
#include "broker/error_mapping.h"

namespace skiff::broker::txn {

protocol::ErrorCode write_marker(Broker& broker, const storage::TopicPartition& tp, const Marker& m,
                                 std::vector<storage::PendingSync>* unsynced) {
    // The offsets partition: the group coordinator appends the marker to its log and applies
    // (commit) or drops (abort) the producer's pending transactional offsets.
    if (tp.topic == group::kOffsetsTopic) {
        group::OffsetStore::Unsynced sync;
        const auto e = broker.groups().complete_transaction(m.producer_id, m.producer_epoch,
                                                            m.coordinator_epoch, m.commit,
                                                            unsynced ? &sync : nullptr);
        if (sync)
            unsynced->push_back(*sync);
        return e;
    }
    auto* log = broker.logs().get(tp);
    if (!log)  // deleted since it was added: nothing left to mark (Kafka's answer, too)
        return protocol::ErrorCode::unknown_topic_or_partition;
    auto appended = log->append_marker(
        {m.producer_id, m.producer_epoch, m.coordinator_epoch, m.commit, -1},
        unsynced ? storage::Durability::group_commit : storage::Durability::flush_settings);
    if (!appended)
        return to_error_code(appended.error().code);
    if (appended->sync_pending) {
        unsynced->push_back({log, appended->last_offset + 1});
        return protocol::ErrorCode::none;
    }
    // The last stable offset moved: read_committed fetches parked on this partition may now
    // have data.
    broker.waiters().notify(PartitionWaiters::key(tp.topic, tp.partition));
    return protocol::ErrorCode::none;
}

}  // namespace skiff::broker::txn
