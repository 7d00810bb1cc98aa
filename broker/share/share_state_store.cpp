#include "broker/share/share_state_store.h"

#include <spdlog/spdlog.h>

#include "broker/topics/internal_log.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"

namespace skiff::broker::share {

Expected<int32_t, std::string> ShareStateStore::partition_for(const std::string& group_id,
                                                              const protocol::Uuid& topic_id,
                                                              int32_t partition) {
    if (auto log = log_for(0); !log)
        return unexpected(log.error());
    return share_state_partition_for(share_coordinator_key(group_id, topic_id, partition),
                                     partition_count());
}

void ShareStateStore::rebind(ShareStateLogs logs) {
    std::lock_guard lock(logs_mutex_);
    source_ = std::move(logs);
    logs_ = source_.existing;
    created_ = !logs_.empty();
    partitions_ = created_ ? static_cast<int32_t>(logs_.size()) : source_.partitions_to_create;
}

Expected<storage::PartitionLog*, std::string> ShareStateStore::log_for(int32_t log_partition) {
    if (!created_.load(std::memory_order_acquire)) {
        std::lock_guard lock(logs_mutex_);
        if (!created_) {
            if (!source_.create)
                return unexpected(std::string(kShareGroupStateTopic) + " does not exist");
            auto created = source_.create();
            if (!created)
                return unexpected(created.error());
            if (created->empty())
                return unexpected(std::string(kShareGroupStateTopic) + " has no partitions");
            // A topic made before (by a client's Metadata auto-creation, say) keeps its
            // partition count, as Kafka uses whatever count its internal topics have.
            partitions_ = static_cast<int32_t>(created->size());
            logs_ = std::move(*created);
            created_.store(true, std::memory_order_release);
        }
    }
    if (log_partition < 0 || log_partition >= partition_count() || !logs_[log_partition])
        return unexpected(std::string("no such partition of ") + kShareGroupStateTopic);
    return logs_[static_cast<size_t>(log_partition)];
}

Expected<int64_t, std::string> ShareStateStore::append(
    int32_t log_partition, std::vector<protocol::RecordSpec>& records, int64_t now_ms,
    std::vector<storage::PendingSync>* unsynced) {
    auto log = log_for(log_partition);
    if (!log)
        return unexpected(log.error());
    protocol::BatchSpec spec;
    spec.base_timestamp = now_ms;
    const auto batch = protocol::build_record_batch(spec, records);
    const auto summaries = protocol::validate_batches(batch);
    if (!summaries)
        return unexpected("building a share state batch: " + summaries.error().message);
    auto appended = (*log)->append(
        batch, *summaries, storage::AppendOrigin::client,
        unsynced ? storage::Durability::group_commit : storage::Durability::flush_settings);
    if (!appended)
        return unexpected(std::string("appending to ") + kShareGroupStateTopic + "-" +
                          std::to_string(log_partition) + ": " + appended.error().message);
    if (appended->sync_pending)
        unsynced->push_back({*log, appended->last_offset + 1});
    return appended->base_offset;
}

Expected<int64_t, std::string> ShareStateStore::write_snapshot(
    int32_t log_partition, const ShareStateKey& key, const ShareSnapshotValue& value,
    int64_t now_ms, std::vector<storage::PendingSync>* unsynced) {
    std::vector<protocol::RecordSpec> records(1);
    records[0].key = encode_share_key(key);
    records[0].value = encode_share_snapshot(value);
    return append(log_partition, records, now_ms, unsynced);
}

Expected<int64_t, std::string> ShareStateStore::write_update(
    int32_t log_partition, const ShareStateKey& key, const ShareUpdateValue& value, int64_t now_ms,
    std::vector<storage::PendingSync>* unsynced) {
    std::vector<protocol::RecordSpec> records(1);
    records[0].key = encode_share_key(key);
    records[0].value = encode_share_update(value);
    return append(log_partition, records, now_ms, unsynced);
}

Expected<int64_t, std::string> ShareStateStore::write_tombstones(int32_t log_partition,
                                                                 const std::string& group_id,
                                                                 const protocol::Uuid& topic_id,
                                                                 int32_t partition,
                                                                 int64_t now_ms) {
    std::vector<protocol::RecordSpec> records(2);
    records[0].key = encode_share_key({kShareSnapshotType, group_id, topic_id, partition});
    records[1].key = encode_share_key({kShareUpdateType, group_id, topic_id, partition});
    return append(log_partition, records, now_ms);
}

Expected<void, std::string> ShareStateStore::replay(
    const std::function<void(const Replayed&)>& visit) {
    if (!created_)
        return {};  // no topic, no state
    for (int32_t p = 0; p < partition_count(); ++p) {
        if (!logs_[p])
            continue;
        const std::string topic = std::string(kShareGroupStateTopic) + "-" + std::to_string(p);
        Replayed r;
        r.log_partition = p;
        auto replayed = replay_internal_log(
            *logs_[p], topic,
            [&](const protocol::BatchHeader& header,
                const std::vector<protocol::Record>& records) -> Expected<void, std::string> {
                for (const auto& rec : records) {
                    if (!rec.key)
                        continue;
                    auto key = decode_share_key(*rec.key);
                    if (!key)
                        continue;  // another record type: skipped, as Kafka does
                    r.offset = header.base_offset + rec.offset_delta;
                    r.key = std::move(*key);
                    r.snapshot.reset();
                    r.update.reset();
                    if (rec.value && r.key.type == kShareSnapshotType) {
                        auto v = decode_share_snapshot(*rec.value);
                        if (!v)
                            return unexpected("malformed ShareSnapshotValue in " + topic + ": " +
                                              v.error().message);
                        r.snapshot = std::move(*v);
                    } else if (rec.value) {
                        auto v = decode_share_update(*rec.value);
                        if (!v)
                            return unexpected("malformed ShareUpdateValue in " + topic + ": " +
                                              v.error().message);
                        r.update = std::move(*v);
                    }
                    visit(r);
                }
                return {};
            });
        if (!replayed)
            return replayed;
    }
    return {};
}

void ShareStateStore::prune(int32_t log_partition, int64_t offset) {
    if (!created_ || log_partition < 0 || log_partition >= partition_count() ||
        !logs_[log_partition])
        return;
    auto* log = logs_[log_partition];
    if (offset <= log->log_start_offset())
        return;
    if (auto pruned = log->delete_records_before(offset); !pruned)
        spdlog::warn("pruning {}-{} before {}: {}", kShareGroupStateTopic, log_partition, offset,
                     pruned.error().message);
}

}  // namespace skiff::broker::share
