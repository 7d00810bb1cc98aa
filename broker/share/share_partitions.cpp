#include "broker/share/share_partitions.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

#include "storage/log_config.h"

namespace skiff::broker::share {

using protocol::ErrorCode;

namespace {

// The state batches of one write, reused by the thread that writes (no allocation per call in
// the steady state).
std::vector<ShareStateBatch>& batch_scratch() {
    thread_local std::vector<ShareStateBatch> batches;
    batches.clear();
    return batches;
}

}  // namespace

Expected<std::unique_ptr<SharePartitions>, std::string> SharePartitions::open(
    ShareStateLogs logs, SharePartitionsConfig config, ShareTopicLookup topics) {
    std::unique_ptr<SharePartitions> m(
        new SharePartitions(std::move(logs), std::move(config), std::move(topics)));
    if (auto replayed = m->replay(); !replayed)
        return unexpected(replayed.error());
    return m;
}

Expected<void, std::string> SharePartitions::reopen(ShareStateLogs logs) {
    // Lock order: a share-partition's mutex, then the map's; never the other way round.
    EntryMap old;
    {
        std::lock_guard lock(map_mutex_);
        old.swap(entries_);
    }
    for (auto& [id, e] : old) {
        std::lock_guard entry_lock(e->mutex);
        e->deleted = true;
    }
    std::lock_guard lock(map_mutex_);
    store_.rebind(std::move(logs));
    return replay_locked();
}

int64_t SharePartitions::now_ms() const {
    return config_.clock_ms ? config_.clock_ms() : storage::wall_clock_ms();
}

Expected<void, std::string> SharePartitions::replay() {
    std::lock_guard lock(map_mutex_);
    return replay_locked();
}

Expected<void, std::string> SharePartitions::replay_locked() {
    const auto visit = [&](const ShareStateStore::Replayed& r) {
        const Id id{r.key.group_id, r.key.topic_id, r.key.partition};
        auto it = entries_.find(id);
        if (!r.snapshot && !r.update) {  // a tombstone: the state was deleted
            if (it != entries_.end())
                entries_.erase(it);
            return;
        }
        if (it == entries_.end()) {
            auto e =
                std::make_shared<Entry>(r.snapshot ? r.snapshot->start_offset
                                                   : std::max<int64_t>(0, r.update->start_offset));
            e->group_id = r.key.group_id;
            e->topic_id = r.key.topic_id;
            e->tp.partition = r.key.partition;
            if (topics_.name)
                e->tp.topic = topics_.name(r.key.topic_id).value_or("");
            e->log_partition = r.log_partition;
            it = entries_.emplace(id, std::move(e)).first;
        }
        Entry& e = *it->second;
        if (r.snapshot) {
            const auto& s = *r.snapshot;
            e.state.reset(s.start_offset);
            for (const auto& b : s.state_batches)
                e.state.restore(b);
            e.state.finish_restore();
            e.state_epoch = s.state_epoch;
            e.snapshot_epoch = s.snapshot_epoch;
            e.create_timestamp_ms = s.create_timestamp_ms;
            e.snapshot_offset = r.offset;
            e.updates_since_snapshot = 0;
            return;
        }
        const auto& u = *r.update;
        if (u.start_offset >= 0)
            e.state.move_start_to(u.start_offset);
        for (const auto& b : u.state_batches)
            e.state.restore(b);
        e.state.finish_restore();
        ++e.updates_since_snapshot;
    };
    return store_.replay(visit);
}

std::shared_ptr<SharePartitions::Entry> SharePartitions::find(const std::string& group,
                                                              const protocol::Uuid& topic_id,
                                                              int32_t partition) const {
    std::lock_guard lock(map_mutex_);
    auto it = entries_.find(IdView{group, &topic_id, partition});
    return it == entries_.end() ? nullptr : it->second;
}

std::shared_ptr<SharePartitions::Entry> SharePartitions::find(const SharePartitionKey& key) const {
    return find(key.group_id, key.topic_id, key.tp.partition);
}

std::shared_ptr<SharePartitions::Entry> SharePartitions::find_or_add(
    const std::string& group, const storage::TopicPartition& tp, const protocol::Uuid& topic_id,
    int64_t start, bool& added) {
    std::lock_guard lock(map_mutex_);
    auto it = entries_.find(IdView{group, &topic_id, tp.partition});
    added = it == entries_.end();
    if (!added)
        return it->second;
    auto e = std::make_shared<Entry>(start);
    e->group_id = group;
    e->tp = tp;
    e->topic_id = topic_id;
    entries_.emplace(Id{group, topic_id, tp.partition}, e);
    return e;
}

void SharePartitions::erase(const Entry& e) {
    std::lock_guard lock(map_mutex_);
    auto it = entries_.find(IdView{e.group_id, &e.topic_id, e.tp.partition});
    if (it != entries_.end() && it->second.get() == &e)
        entries_.erase(it);
}

std::vector<std::shared_ptr<SharePartitions::Entry>> SharePartitions::entries_of(
    const std::string& group) const {
    std::vector<std::shared_ptr<Entry>> out;
    std::lock_guard lock(map_mutex_);
    const protocol::Uuid zero{};
    for (auto it = entries_.lower_bound(IdView{group, &zero, std::numeric_limits<int32_t>::min()});
         it != entries_.end() && it->first.group_id == group; ++it)
        out.push_back(it->second);
    return out;
}

MemberRef SharePartitions::member_ref(const std::string& member_id, bool add) {
    // Member ids are interned so that in-flight ranges carry a number, not a string. The table
    // grows by one entry per member ever seen (a few dozen bytes each).
    std::lock_guard lock(members_mutex_);
    auto it = members_.find(member_id);
    if (it != members_.end())
        return it->second;
    if (!add)
        return 0;
    const MemberRef ref = ++last_member_ref_;
    members_.emplace(member_id, ref);
    return ref;
}

Expected<void, std::string> SharePartitions::resolve_log_partition(Entry& e) {
    if (e.log_partition >= 0)
        return {};
    auto p = store_.partition_for(e.group_id, e.topic_id, e.tp.partition);
    if (!p)
        return unexpected(p.error());
    e.log_partition = *p;
    return {};
}

Expected<void, std::string> SharePartitions::write_snapshot(Entry& e, int64_t now_ms,
                                                            UnsyncedWrites* unsynced) {
    if (auto resolved = resolve_log_partition(e); !resolved)
        return resolved;
    ShareSnapshotValue value;
    value.snapshot_epoch = e.snapshot_epoch + 1;
    value.state_epoch = e.state_epoch;
    value.start_offset = e.state.start_offset();
    value.delivery_complete_count = static_cast<int32_t>(e.state.delivery_complete());
    value.create_timestamp_ms = e.create_timestamp_ms;
    value.write_timestamp_ms = now_ms;
    e.state.write_batches(std::nullopt, value.state_batches);
    auto written = store_.write_snapshot(
        e.log_partition, {kShareSnapshotType, e.group_id, e.topic_id, e.tp.partition}, value,
        now_ms, unsynced);
    if (!written) {
        e.snapshot_due = true;
        return unexpected(written.error());
    }
    e.snapshot_epoch = value.snapshot_epoch;
    e.snapshot_offset = *written;
    e.updates_since_snapshot = 0;
    e.snapshot_due = false;
    ++records_written_;
    ++snapshots_written_;
    return {};
}

Expected<void, std::string> SharePartitions::persist(Entry& e, const Window& window, int64_t now_ms,
                                                     UnsyncedWrites* unsynced) {
    if (e.snapshot_due || e.log_partition < 0 ||
        e.updates_since_snapshot >= config_.snapshot_update_records)
        return write_snapshot(e, now_ms, unsynced);
    ShareUpdateValue value;
    value.snapshot_epoch = e.snapshot_epoch;
    value.start_offset = e.state.start_offset();
    value.delivery_complete_count = static_cast<int32_t>(e.state.delivery_complete());
    auto& batches = batch_scratch();
    e.state.write_batches(window, batches);
    value.state_batches.swap(batches);
    auto written = store_.write_update(e.log_partition,
                                       {kShareUpdateType, e.group_id, e.topic_id, e.tp.partition},
                                       value, now_ms, unsynced);
    value.state_batches.swap(batches);  // the thread's buffer keeps its capacity
    if (!written) {
        e.snapshot_due = true;
        return unexpected(written.error());
    }
    ++e.updates_since_snapshot;
    ++records_written_;
    return {};
}

int64_t SharePartitions::start_offset_for(const ShareGroupConfig& config, const LogBounds& bounds,
                                          int64_t now_ms) const {
    switch (config.auto_offset_reset) {
        case ShareAutoOffsetReset::earliest:
            return bounds.log_start_offset;
        case ShareAutoOffsetReset::by_duration:
            if (bounds.offset_for_time)
                if (auto offset = bounds.offset_for_time(now_ms - config.by_duration_ms))
                    return std::max(*offset, bounds.log_start_offset);
            return bounds.read_end_offset;
        case ShareAutoOffsetReset::latest:
            break;
    }
    return bounds.read_end_offset;
}

std::optional<int64_t> SharePartitions::next_fetch_offset(const SharePartitionKey& key,
                                                          const ShareGroupConfig& config,
                                                          const LogBounds& bounds, int64_t now_ms) {
    for (;;) {
        bool added = false;
        auto e = find(key);
        if (!e)  // the first read: where share.auto.offset.reset says
            e = find_or_add(key.group_id, key.tp, key.topic_id,
                            start_offset_for(config, bounds, now_ms), added);
        std::lock_guard lock(e->mutex);
        if (e->deleted)
            continue;  // deleted between the lookup and the lock: look again
        e->delivery_count_limit = config.delivery_count_limit;
        e->read_end_offset = bounds.read_end_offset;
        if (e->tp.topic.empty())
            e->tp.topic = key.tp.topic;
        if (added) {
            // Kafka's InitializeShareGroupState: the start offset is durable before any read.
            e->create_timestamp_ms = now_ms;
            if (auto written = write_snapshot(*e, now_ms); !written) {
                spdlog::error("share group '{}' {}-{}: {}", key.group_id, key.tp.topic,
                              key.tp.partition, written.error());
                e->deleted = true;
                erase(*e);
                return std::nullopt;
            }
        } else if (e->state.move_start_to(bounds.log_start_offset)) {
            // Retention or DeleteRecords removed records: they are never delivered.
            if (auto written = persist(*e, Window{}, now_ms); !written)
                spdlog::error("share group '{}' {}-{}: {}", key.group_id, key.tp.topic,
                              key.tp.partition, written.error());
        }
        return e->state.next_fetch_offset(bounds.read_end_offset,
                                          config.partition_max_record_locks);
    }
}

std::vector<AcquiredRecords> SharePartitions::acquire(const SharePartitionKey& key,
                                                      const std::string& member_id,
                                                      std::span<const FetchedBatch> batches,
                                                      int32_t max_records,
                                                      const ShareGroupConfig& config,
                                                      int64_t now_ms, UnsyncedWrites& unsynced) {
    std::vector<AcquiredRecords> acquired;
    auto e = find(key);
    if (!e || batches.empty() || max_records <= 0)
        return acquired;
    const MemberRef member = member_ref(member_id, true);
    std::lock_guard lock(e->mutex);
    if (e->deleted)
        return acquired;
    e->delivery_count_limit = config.delivery_count_limit;
    AcquireLimits limits;
    limits.max_records = max_records;
    limits.delivery_count_limit = config.delivery_count_limit;
    limits.max_record_locks = config.partition_max_record_locks;
    limits.lock_deadline_ms = now_ms + config.record_lock_duration_ms;
    const int64_t start_before = e->state.start_offset();
    const Window touched = e->state.acquire(member, batches, limits, acquired);
    if (touched.empty() && e->state.start_offset() == start_before)
        return acquired;
    if (auto written = persist(*e, touched, now_ms, &unsynced); !written) {
        // Not durable: nothing goes to the consumer; the locks expire and the records go back.
        spdlog::error("share group '{}' {}-{}: {}", key.group_id, key.tp.topic, key.tp.partition,
                      written.error());
        acquired.clear();
    }
    return acquired;
}

ErrorCode SharePartitions::acknowledge(const SharePartitionKey& key, const std::string& member_id,
                                       std::span<const AcknowledgementBatch> batches,
                                       const ShareGroupConfig& config, int64_t now_ms,
                                       UnsyncedWrites& unsynced) {
    if (batches.empty())
        return ErrorCode::none;
    auto e = find(key);
    const MemberRef member = member_ref(member_id, false);
    if (!e) {
        // No state: nothing was ever acquired here. Malformed batches are still malformed.
        SharePartition empty(0);
        const auto e2 = empty.check_acknowledgements(member, batches, now_ms);
        return e2 == ErrorCode::invalid_request ? e2 : ErrorCode::invalid_record_state;
    }
    std::lock_guard lock(e->mutex);
    if (e->deleted)
        return ErrorCode::invalid_record_state;
    if (auto error = e->state.check_acknowledgements(member, batches, now_ms);
        error != ErrorCode::none)
        return error;
    if (member == 0)
        return ErrorCode::invalid_record_state;
    e->delivery_count_limit = config.delivery_count_limit;
    bool durable = false;
    const Window touched = e->state.acknowledge(batches, config.delivery_count_limit,
                                                now_ms + config.record_lock_duration_ms, durable);
    if (!durable || touched.empty())
        return ErrorCode::none;
    if (auto written = persist(*e, touched, now_ms, &unsynced); !written) {
        spdlog::error("share group '{}' {}-{}: {}", key.group_id, key.tp.topic, key.tp.partition,
                      written.error());
        return ErrorCode::unknown_server_error;
    }
    return ErrorCode::none;
}

void SharePartitions::release_member(const std::string& group_id, const std::string& member_id,
                                     int64_t now_ms) {
    const MemberRef member = member_ref(member_id, false);
    if (member == 0)
        return;  // never acquired anything
    for (auto& e : entries_of(group_id)) {
        std::lock_guard lock(e->mutex);
        if (e->deleted)
            continue;
        const Window touched = e->state.release(member, e->delivery_count_limit);
        if (touched.empty())
            continue;
        if (auto written = persist(*e, touched, now_ms); !written)
            spdlog::error("share group '{}' {}-{}: {}", group_id, e->tp.topic, e->tp.partition,
                          written.error());
    }
    std::lock_guard lock(members_mutex_);
    members_.erase(member_id);  // its ref is never handed out again (refs only grow)
}

void SharePartitions::delete_group(const std::string& group_id) {
    const int64_t now = now_ms();
    for (auto& e : entries_of(group_id)) {
        std::lock_guard lock(e->mutex);
        if (e->deleted)
            continue;
        e->deleted = true;
        erase(*e);
        if (e->log_partition < 0)
            continue;  // never written: nothing to delete
        if (auto written = store_.write_tombstones(e->log_partition, e->group_id, e->topic_id,
                                                   e->tp.partition, now);
            !written)
            spdlog::error("deleting the state of share group '{}': {}", group_id, written.error());
        else
            ++records_written_;
    }
}

void SharePartitions::tick(int64_t now_ms) {
    std::lock_guard tick_lock(tick_mutex_);
    tick_entries_.clear();
    {
        std::lock_guard lock(map_mutex_);
        for (const auto& [id, e] : entries_)
            tick_entries_.push_back(e);
    }
    for (auto& e : tick_entries_) {
        std::lock_guard lock(e->mutex);
        // One comparison per share-partition unless one of its locks is due.
        if (e->deleted || e->state.min_lock_deadline() > now_ms)
            continue;
        const Window touched = e->state.expire_locks(now_ms, e->delivery_count_limit);
        if (touched.empty())
            continue;
        if (auto written = persist(*e, touched, now_ms); !written)
            spdlog::error("share group '{}' {}-{}: {}", e->group_id, e->tp.topic, e->tp.partition,
                          written.error());
    }
    tick_entries_.clear();
    if (now_ms >= next_prune_ms_) {
        next_prune_ms_ = now_ms + config_.prune_interval_ms;
        prune();
    }
}

void SharePartitions::prune() {
    // Each partition of __share_group_state is needed from the oldest latest-snapshot of the
    // share-partitions it holds; everything before that is history.
    std::vector<int64_t> keep(static_cast<size_t>(store_.partition_count()),
                              std::numeric_limits<int64_t>::max());
    {
        std::lock_guard lock(map_mutex_);
        for (const auto& [id, e] : entries_)
            tick_entries_.push_back(e);
    }
    for (const auto& e : tick_entries_) {
        std::lock_guard entry_lock(e->mutex);
        if (e->deleted || e->log_partition < 0 ||
            e->log_partition >= static_cast<int32_t>(keep.size()))
            continue;
        auto& k = keep[static_cast<size_t>(e->log_partition)];
        k = std::min(k, e->snapshot_offset < 0 ? int64_t{0} : e->snapshot_offset);
    }
    tick_entries_.clear();
    for (int32_t p = 0; p < store_.partition_count(); ++p)
        if (keep[static_cast<size_t>(p)] != std::numeric_limits<int64_t>::max())
            store_.prune(p, keep[static_cast<size_t>(p)]);
}

std::vector<SharePartitionManager::PartitionStats> SharePartitions::stats() const {
    std::vector<std::shared_ptr<Entry>> all;
    {
        std::lock_guard lock(map_mutex_);
        all.reserve(entries_.size());
        for (const auto& [id, e] : entries_)
            all.push_back(e);
    }
    std::vector<PartitionStats> out;
    out.reserve(all.size());
    for (const auto& e : all) {
        std::lock_guard lock(e->mutex);
        if (e->tp.topic.empty())
            continue;
        PartitionStats s;
        s.key = {e->group_id, e->tp, e->topic_id};
        s.start_offset = e->state.start_offset();
        s.in_flight = e->state.acquired_records();
        auto hw = topics_.high_watermark ? topics_.high_watermark(e->tp) : std::nullopt;
        s.lag = e->state.lag(hw.value_or(std::max(e->read_end_offset, e->state.start_offset())));
        out.push_back(std::move(s));
    }
    return out;
}

std::map<storage::TopicPartition, ShareOffsetsAdmin::PartitionOffset>
SharePartitions::describe_offsets(const std::string& group_id,
                                  const std::vector<storage::TopicPartition>& partitions) {
    std::map<storage::TopicPartition, PartitionOffset> out;
    for (const auto& tp : partitions) {
        auto& result = out[tp];
        auto id = topics_.id ? topics_.id(tp.topic) : std::nullopt;
        if (!id) {
            result.error = ErrorCode::unknown_topic_or_partition;
            continue;
        }
        auto e = find(group_id, *id, tp.partition);
        if (!e)
            continue;
        std::lock_guard lock(e->mutex);
        if (e->deleted)
            continue;
        result.start_offset = e->state.start_offset();
        if (auto hw = topics_.high_watermark ? topics_.high_watermark(tp) : std::nullopt)
            result.lag = e->state.lag(*hw);
    }
    return out;
}

std::vector<storage::TopicPartition> SharePartitions::partitions_with_state(
    const std::string& group_id) {
    std::vector<storage::TopicPartition> out;
    for (const auto& e : entries_of(group_id)) {
        std::lock_guard lock(e->mutex);
        if (e->deleted)
            continue;
        if (e->tp.topic.empty() && topics_.name)
            e->tp.topic = topics_.name(e->topic_id).value_or("");
        if (!e->tp.topic.empty())
            out.push_back(e->tp);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::map<storage::TopicPartition, ErrorCode> SharePartitions::alter_offsets(
    const std::string& group_id, const std::map<storage::TopicPartition, int64_t>& offsets) {
    std::map<storage::TopicPartition, ErrorCode> out;
    const int64_t now = now_ms();
    for (const auto& [tp, offset] : offsets) {
        auto id = topics_.id ? topics_.id(tp.topic) : std::nullopt;
        if (!id || offset < 0) {
            out[tp] = id ? ErrorCode::invalid_request : ErrorCode::unknown_topic_or_partition;
            continue;
        }
        for (;;) {
            bool added = false;
            auto e = find_or_add(group_id, tp, *id, offset, added);
            std::lock_guard lock(e->mutex);
            if (e->deleted)
                continue;
            // Kafka's alter: a new state epoch, the start offset, nothing in flight.
            if (added)
                e->create_timestamp_ms = now;
            else
                ++e->state_epoch;
            e->state.reset(offset);
            auto written = write_snapshot(*e, now);
            if (!written) {
                spdlog::error("altering share group '{}' {}-{}: {}", group_id, tp.topic,
                              tp.partition, written.error());
                out[tp] = ErrorCode::unknown_server_error;
            } else {
                out[tp] = ErrorCode::none;
            }
            break;
        }
    }
    return out;
}

std::map<storage::TopicPartition, ErrorCode> SharePartitions::delete_offsets(
    const std::string& group_id, const std::vector<storage::TopicPartition>& partitions) {
    std::map<storage::TopicPartition, ErrorCode> out;
    const int64_t now = now_ms();
    for (const auto& tp : partitions) {
        auto id = topics_.id ? topics_.id(tp.topic) : std::nullopt;
        if (!id) {
            out[tp] = ErrorCode::unknown_topic_or_partition;
            continue;
        }
        out[tp] = ErrorCode::none;
        auto e = find(group_id, *id, tp.partition);
        if (!e)
            continue;
        std::lock_guard lock(e->mutex);
        if (e->deleted)
            continue;
        e->deleted = true;
        erase(*e);
        if (e->log_partition < 0)
            continue;  // never written: nothing to delete
        if (auto written =
                store_.write_tombstones(e->log_partition, group_id, *id, tp.partition, now);
            !written) {
            spdlog::error("deleting share group '{}' {}-{}: {}", group_id, tp.topic, tp.partition,
                          written.error());
            out[tp] = ErrorCode::unknown_server_error;
        } else {
            ++records_written_;
        }
    }
    return out;
}

int64_t SharePartitions::records_written() const {
    return records_written_.load();
}
int64_t SharePartitions::snapshots_written() const {
    return snapshots_written_.load();
}
size_t SharePartitions::share_partition_count() const {
    std::lock_guard lock(map_mutex_);
    return entries_.size();
}

}  // namespace skiff::broker::share
