#include "broker/group/offset_store.h"
#include "broker/topics/internal_log.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "broker/group/offset_records.h"
#include "broker/group/record_codec.h"
#include "broker/snapshot_log_sizing.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"

namespace skiff::broker::group {
namespace {

constexpr size_t kRecordsPerBatch = 500;
constexpr int16_t kTransactionalAttribute = 0x10;
constexpr int64_t kMarkerBatchBytes = 78;

}  // namespace

Expected<std::unique_ptr<OffsetStore>, std::string> OffsetStore::open(storage::PartitionLog& log,
                                                                      storage::LogConfig base) {
    std::unique_ptr<OffsetStore> store(new OffsetStore(log, std::move(base)));
    if (auto loaded = store->load(); !loaded)
        return unexpected(loaded.error());
    return store;
}

Expected<void, std::string> OffsetStore::load() {
    segment_bytes_ = static_cast<int64_t>(base_.segment_bytes);
    auto config = base_;
    config.retention_bytes = 2 * segment_bytes_;
    config.retention_ms = -1;  // age must never delete the only copy of an offset
    log_->update_config(config);
    if (auto replayed = replay(); !replayed)
        return unexpected(replayed.error());
    std::lock_guard lock(mutex_);
    if (!offsets_.empty() || !pending_.empty() || !group_records_.empty())
        if (auto s = snapshot_locked(); !s)
            return unexpected(s.error());
    return {};
}

Expected<void, std::string> OffsetStore::reopen(storage::PartitionLog& log) {
    {
        std::scoped_lock lock(mutex_, staged_mutex_);
        log_ = &log;
        offsets_.clear();
        pending_.clear();
        group_records_.clear();
        unreadable_group_records_ = 0;
        staged_.clear();
        bytes_since_snapshot_ = 0;
    }
    return load();
}

Expected<void, std::string> OffsetStore::replay() {
    std::lock_guard lock(mutex_);
    const auto visit =
        [&](const protocol::BatchHeader& header,
            const std::vector<protocol::Record>& records) -> Expected<void, std::string> {
        if (header.is_control()) {
            // A transaction marker (facts: key int16 version, int16 type; 0 ABORT, 1 COMMIT).
            if (header.is_transactional() && !records.empty() && records[0].key &&
                records[0].key->size() >= 4) {
                const auto& k = *records[0].key;
                const auto type = static_cast<int16_t>((std::to_integer<int>(k[2]) << 8) |
                                                       std::to_integer<int>(k[3]));
                if (type == 0 || type == 1)
                    settle_locked(header.producer_id, type == 1);
            }
            return {};
        }
        const bool transactional = header.is_transactional() && header.producer_id >= 0;
        for (const auto& r : records) {
            if (!r.key)
                continue;
            auto version = offset_record_version(*r.key);
            if (version && *version > OffsetCommitKey::kVersion) {
                // A group's state: kept by key for the coordinator (transactional batches
                // carry only offsets).
                auto group = record_group_id(*r.key);
                if (!group || transactional) {
                    ++unreadable_group_records_;
                    continue;
                }
                std::string key(reinterpret_cast<const char*>(r.key->data()), r.key->size());
                if (r.value) {
                    group_records_[*group][std::move(key)] = std::string(
                        reinterpret_cast<const char*>(r.value->data()), r.value->size());
                } else if (auto g = group_records_.find(*group); g != group_records_.end()) {
                    g->second.erase(key);
                    if (g->second.empty())
                        group_records_.erase(g);
                }
                continue;
            }
            if (version && *version < 0)
                continue;  // not a format Kafka defines
            auto key = decode_offset_key(*r.key);
            if (!key)
                return unexpected("malformed offset key in " + std::string(kOffsetsTopic) + ": " +
                                  key.error().message);
            Entry e;
            e.group = std::move(key->group);
            e.tp = {std::move(key->topic), key->partition};
            if (r.value) {
                auto value = decode_offset_value(*r.value);
                if (!value)
                    return unexpected("malformed offset value in " + std::string(kOffsetsTopic) +
                                      ": " + value.error().message);
                e.value =
                    CommittedOffset{value->offset, value->leader_epoch, std::move(value->metadata),
                                    value->commit_timestamp, header.base_offset + r.offset_delta};
            }
            if (transactional) {
                if (e.value)  // skiff never writes transactional tombstones
                    add_pending_locked(header.producer_id, header.producer_epoch, e);
            } else {
                apply_locked(e);
            }
        }
        return {};
    };
    return replay_internal_log(*log_, kOffsetsTopic, visit);
}

void OffsetStore::apply_locked(const Entry& e) {
    if (e.value) {
        offsets_[e.group][e.tp] = *e.value;
        return;
    }
    // A tombstone also drops the partition's pending transactional offsets (Kafka's
    // OffsetMetadataManager.replay): a deleted group's offsets do not come back at COMMIT.
    for (auto& [pid, p] : pending_) {
        auto g = p.groups.find(e.group);
        if (g == p.groups.end())
            continue;
        g->second.erase(e.tp);
        if (g->second.empty())
            p.groups.erase(g);
    }
    auto it = offsets_.find(e.group);
    if (it == offsets_.end())
        return;
    it->second.erase(e.tp);
    if (it->second.empty())
        offsets_.erase(it);
}

void OffsetStore::add_pending_locked(int64_t producer_id, int16_t producer_epoch, const Entry& e) {
    PendingTxn& p = pending_[producer_id];
    p.producer_epoch = std::max(p.producer_epoch, producer_epoch);
    if (p.first_record_offset < 0 || e.value->record_offset < p.first_record_offset)
        p.first_record_offset = e.value->record_offset;
    p.groups[e.group][e.tp] = *e.value;
}

void OffsetStore::settle_locked(int64_t producer_id, bool commit) {
    auto it = pending_.find(producer_id);
    if (it == pending_.end())
        return;
    if (commit) {
        for (auto& [group, offsets] : it->second.groups) {
            auto& current = offsets_[group];
            for (auto& [tp, c] : offsets) {
                auto existing = current.find(tp);
                // Kafka keeps the offset written last to the log: a plain commit that followed
                // the transactional one wins over it.
                if (existing == current.end() || c.record_offset > existing->second.record_offset)
                    current[tp] = std::move(c);
            }
        }
    }
    pending_.erase(it);
}

bool OffsetStore::has_pending(const std::string& group, const storage::TopicPartition& tp) const {
    std::lock_guard lock(mutex_);
    return has_pending_locked(group, tp);
}

bool OffsetStore::has_pending_locked(const std::string& group,
                                     const storage::TopicPartition& tp) const {
    for (const auto& [pid, p] : pending_) {
        auto g = p.groups.find(group);
        if (g != p.groups.end() && g->second.count(tp))
            return true;
    }
    return false;
}

std::vector<int64_t> OffsetStore::pending_producers() const {
    std::lock_guard lock(mutex_);
    std::vector<int64_t> out;
    for (const auto& [pid, p] : pending_)
        out.push_back(pid);
    return out;
}

Expected<OffsetStore::Unsynced, storage::StorageError> OffsetStore::append_locked(
    std::vector<Run>& runs, storage::Durability durability) {
    const int64_t now = storage::wall_clock_ms();
    std::vector<std::byte> batches;
    for (const Run& run : runs) {
        for (size_t first = 0; first < run.group_records.size(); first += kRecordsPerBatch) {
            std::vector<protocol::RecordSpec> records;
            const size_t last = std::min(run.group_records.size(), first + kRecordsPerBatch);
            for (size_t i = first; i < last; ++i)
                records.push_back({run.group_records[i].key, run.group_records[i].value});
            protocol::BatchSpec spec;
            spec.base_timestamp = now;
            auto bytes = protocol::build_record_batch(spec, records);
            batches.insert(batches.end(), bytes.begin(), bytes.end());
        }
        for (size_t first = 0; first < run.entries.size(); first += kRecordsPerBatch) {
            std::vector<protocol::RecordSpec> records;
            const size_t last = std::min(run.entries.size(), first + kRecordsPerBatch);
            for (size_t i = first; i < last; ++i) {
                const Entry& e = run.entries[i];
                protocol::RecordSpec r;
                r.key = encode_offset_key({e.group, e.tp.topic, e.tp.partition});
                if (e.value) {
                    OffsetCommitValue v;
                    v.offset = e.value->offset;
                    v.leader_epoch = e.value->leader_epoch;
                    v.metadata = e.value->metadata;
                    v.commit_timestamp = e.value->commit_timestamp_ms;
                    r.value = encode_offset_value(v);
                }
                records.push_back(std::move(r));
            }
            protocol::BatchSpec spec;
            spec.base_timestamp = now;
            if (run.producer_id >= 0) {
                spec.producer_id = run.producer_id;
                spec.producer_epoch = run.producer_epoch;
                spec.base_sequence = -1;
                spec.attributes = kTransactionalAttribute;
            }
            auto bytes = protocol::build_record_batch(spec, records);
            batches.insert(batches.end(), bytes.begin(), bytes.end());
        }
    }
    if (batches.empty())
        return Unsynced();
    auto summaries = protocol::validate_batches(batches);
    if (!summaries)
        return unexpected(storage::StorageError{
            storage::StorageErrc::corrupt, "building offset batch: " + summaries.error().message});
    // The coordinator's own writes: no sequence checks (transactional batches carry -1).
    auto appended =
        log_->append(batches, *summaries, storage::AppendOrigin::coordinator, durability);
    if (!appended)
        return unexpected(storage::StorageError{
            appended.error().code,
            "appending to " + std::string(kOffsetsTopic) + ": " + appended.error().message});
    int64_t offset = appended->base_offset;
    for (Run& run : runs) {
        offset += static_cast<int64_t>(run.group_records.size());
        for (Entry& e : run.entries) {
            if (e.value)
                e.value->record_offset = offset;
            ++offset;
        }
    }
    bytes_since_snapshot_ += static_cast<int64_t>(batches.size());
    if (appended->sync_pending)
        return Unsynced(storage::PendingSync{log_, appended->last_offset + 1});
    return Unsynced();
}

Expected<void, std::string> OffsetStore::append_plain_locked(std::vector<Entry>& entries) {
    if (entries.empty())
        return {};
    std::vector<Run> runs(1);
    runs[0].entries = std::move(entries);
    auto appended = append_locked(runs);
    entries = std::move(runs[0].entries);
    if (!appended)
        return unexpected(appended.error().message);
    return {};
}

Expected<void, std::string> OffsetStore::snapshot_locked() {
    // Order (see the header): committed offsets not newer than a pending one of the same
    // partition, the pending transactions (oldest first), the remaining committed offsets.
    auto newest_pending = [&](const std::string& group, const storage::TopicPartition& tp) {
        int64_t newest = -1;
        for (const auto& [pid, p] : pending_) {
            auto g = p.groups.find(group);
            if (g == p.groups.end())
                continue;
            auto it = g->second.find(tp);
            if (it != g->second.end())
                newest = std::max(newest, it->second.record_offset);
        }
        return newest;
    };
    std::vector<Run> runs(1);
    for (const auto& [group, records] : group_records_)
        for (const auto& [key, value] : records)
            runs[0].group_records.push_back({key, value});
    std::vector<Entry> after;
    for (const auto& [group, offsets] : offsets_)
        for (const auto& [tp, committed] : offsets) {
            const int64_t pending = pending_.empty() ? -1 : newest_pending(group, tp);
            if (pending >= 0 && committed.record_offset > pending)
                after.push_back({group, tp, committed});
            else
                runs[0].entries.push_back({group, tp, committed});
        }
    std::vector<std::pair<int64_t, int64_t>> order;  // (first record offset, producer id)
    for (const auto& [pid, p] : pending_)
        order.emplace_back(p.first_record_offset, pid);
    std::sort(order.begin(), order.end());
    for (const auto& [first, pid] : order) {
        const PendingTxn& p = pending_.at(pid);
        Run run{pid, p.producer_epoch, {}};
        for (const auto& [group, offsets] : p.groups)
            for (const auto& [tp, c] : offsets)
                run.entries.push_back({group, tp, c});
        runs.push_back(std::move(run));
    }
    runs.push_back(Run{-1, -1, std::move(after)});
    const int64_t before = bytes_since_snapshot_;
    if (auto appended = append_locked(runs); !appended)
        return unexpected(appended.error().message);
    for (const Run& run : runs)
        for (const Entry& e : run.entries) {
            if (run.producer_id < 0) {
                offsets_[e.group][e.tp].record_offset = e.value->record_offset;
                continue;
            }
            PendingTxn& p = pending_.at(run.producer_id);
            p.groups[e.group][e.tp].record_offset = e.value->record_offset;
        }
    for (const Run& run : runs)
        if (run.producer_id >= 0 && !run.entries.empty())
            pending_.at(run.producer_id).first_record_offset =
                run.entries.front().value->record_offset;
    const int64_t snapshot_bytes = bytes_since_snapshot_ - before;
    bytes_since_snapshot_ = 0;
    ++snapshots_written_;
    fit_segments_to_snapshot(*log_, base_, snapshot_bytes, segment_bytes_);
    return {};
}

int64_t OffsetStore::snapshot_threshold_bytes() const {
    std::lock_guard lock(mutex_);
    return segment_bytes_ / 2;
}

Expected<OffsetStore::Unsynced, std::string> OffsetStore::commit(const std::string& group,
                                                                 const GroupOffsets& offsets) {
    if (offsets.empty())
        return Unsynced();
    std::vector<Run> runs(1);
    runs[0].entries.reserve(offsets.size());
    for (const auto& [tp, committed] : offsets)
        runs[0].entries.push_back({group, tp, committed});
    std::lock_guard lock(mutex_);
    auto appended = append_locked(runs, storage::Durability::group_commit);
    if (!appended)
        return unexpected(appended.error().message);
    for (const auto& e : runs[0].entries)
        apply_locked(e);
    if (bytes_since_snapshot_ >= segment_bytes_ / 2)
        (void)snapshot_locked();  // a failed snapshot is retried at the next commit
    return *appended;
}

Expected<OffsetStore::Unsynced, storage::StorageError> OffsetStore::commit_transactional(
    const std::string& group, int64_t producer_id, int16_t producer_epoch,
    const GroupOffsets& offsets) {
    std::vector<Run> runs(1);
    runs[0].producer_id = producer_id;
    runs[0].producer_epoch = producer_epoch;
    for (const auto& [tp, committed] : offsets)
        runs[0].entries.push_back({group, tp, committed});
    std::lock_guard lock(mutex_);
    auto appended = append_locked(runs, storage::Durability::group_commit);
    if (!appended)
        return unexpected(appended.error());
    for (const auto& e : runs[0].entries)
        add_pending_locked(producer_id, producer_epoch, e);
    if (bytes_since_snapshot_ >= segment_bytes_ / 2)
        (void)snapshot_locked();
    return *appended;
}

Expected<OffsetStore::Unsynced, storage::StorageError> OffsetStore::complete_transaction(
    int64_t producer_id, int16_t producer_epoch, int32_t coordinator_epoch, bool commit,
    storage::Durability durability) {
    std::lock_guard lock(mutex_);
    storage::TxnMarker marker;
    marker.producer_id = producer_id;
    marker.producer_epoch = producer_epoch;
    marker.coordinator_epoch = coordinator_epoch;
    marker.commit = commit;
    auto appended = log_->append_marker(marker, durability);
    if (!appended)
        return unexpected(appended.error());
    bytes_since_snapshot_ += kMarkerBatchBytes;
    settle_locked(producer_id, commit);
    if (bytes_since_snapshot_ >= segment_bytes_ / 2)
        (void)snapshot_locked();
    if (appended->sync_pending)
        return Unsynced(storage::PendingSync{log_, appended->last_offset + 1});
    return Unsynced();
}

void OffsetStore::stage(const std::string& group, GroupRecords records, bool erase_group) {
    if (records.empty() && !erase_group)
        return;
    std::lock_guard lock(staged_mutex_);
    staged_.push_back({group, std::move(records), erase_group});
}

Expected<void, std::string> OffsetStore::write_staged() {
    std::lock_guard lock(mutex_);
    std::vector<Staged> staged;
    {
        std::lock_guard queue(staged_mutex_);
        staged.swap(staged_);
    }
    if (staged.empty())
        return {};
    // What the held values become, applied only once the append succeeded: a key's later record
    // in the same drain is compared with its earlier one.
    std::map<std::pair<std::string, std::string>, std::optional<std::string>> overlay;
    auto current = [&](const std::string& group,
                       const std::string& key) -> std::optional<std::string> {
        if (auto o = overlay.find({group, key}); o != overlay.end())
            return o->second;
        auto g = group_records_.find(group);
        if (g == group_records_.end())
            return std::nullopt;
        auto k = g->second.find(key);
        return k == g->second.end() ? std::nullopt : std::optional<std::string>(k->second);
    };
    std::vector<Run> runs(1);
    for (Staged& s : staged) {
        if (s.erase_group) {
            std::set<std::string> live;
            if (auto g = group_records_.find(s.group); g != group_records_.end())
                for (const auto& [key, value] : g->second)
                    live.insert(key);
            for (const auto& [gk, value] : overlay)
                if (gk.first == s.group)
                    live.insert(gk.second);
            for (const auto& key : live)
                if (current(s.group, key)) {
                    overlay[{s.group, key}] = std::nullopt;
                    runs[0].group_records.push_back({key, std::nullopt});
                }
        }
        for (GroupRecord& r : s.records) {
            if (current(s.group, r.key) == r.value)
                continue;
            overlay[{s.group, r.key}] = r.value;
            runs[0].group_records.push_back(std::move(r));
        }
    }
    if (runs[0].group_records.empty())
        return {};
    auto appended = append_locked(
        runs, committer_ ? storage::Durability::group_commit : storage::Durability::flush_settings);
    if (!appended)
        return unexpected(appended.error().message);
    if (*appended)  // durable mode: synced soon, by a group-commit thread
        committer_->request((*appended)->log);
    for (auto& [gk, value] : overlay) {
        auto& records = group_records_[gk.first];
        if (value)
            records[gk.second] = std::move(*value);
        else
            records.erase(gk.second);
        if (records.empty())
            group_records_.erase(gk.first);
    }
    if (bytes_since_snapshot_ >= segment_bytes_ / 2)
        (void)snapshot_locked();
    return {};
}

GroupRecordMap OffsetStore::group_records() const {
    std::lock_guard lock(mutex_);
    return group_records_;
}

int64_t OffsetStore::unreadable_group_records() const {
    std::lock_guard lock(mutex_);
    return unreadable_group_records_;
}

Expected<size_t, std::string> OffsetStore::remove(
    const std::string& group, const std::vector<storage::TopicPartition>& which) {
    std::lock_guard lock(mutex_);
    std::vector<Entry> entries;
    std::set<storage::TopicPartition> named;
    auto wanted = [&](const storage::TopicPartition& tp) {
        return which.empty() || std::find(which.begin(), which.end(), tp) != which.end();
    };
    if (auto it = offsets_.find(group); it != offsets_.end())
        for (const auto& [tp, committed] : it->second)
            if (wanted(tp))
                named.insert(tp);
    // Partitions with only a pending transactional offset get a tombstone too (as in Kafka).
    for (const auto& [pid, p] : pending_)
        if (auto g = p.groups.find(group); g != p.groups.end())
            for (const auto& [tp, c] : g->second)
                if (wanted(tp))
                    named.insert(tp);
    entries.reserve(named.size());
    for (const auto& tp : named)
        entries.push_back({group, tp, std::nullopt});
    if (entries.empty())
        return size_t{0};
    if (auto appended = append_plain_locked(entries); !appended)
        return unexpected(appended.error());
    for (const auto& e : entries)
        apply_locked(e);
    return entries.size();
}

size_t OffsetStore::expire(
    const std::function<bool(const std::string&, const CommittedOffset&)>& expired) {
    std::lock_guard lock(mutex_);
    std::vector<Entry> entries;
    for (const auto& [group, offsets] : offsets_)
        for (const auto& [tp, committed] : offsets)
            // An offset an open transaction will replace stays (as in Kafka).
            if (expired(group, committed) && !has_pending_locked(group, tp))
                entries.push_back({group, tp, std::nullopt});
    if (!append_plain_locked(entries))
        return 0;
    for (const auto& e : entries)
        apply_locked(e);
    return entries.size();
}

std::optional<CommittedOffset> OffsetStore::get(const std::string& group,
                                                const storage::TopicPartition& tp) const {
    std::lock_guard lock(mutex_);
    auto g = offsets_.find(group);
    if (g == offsets_.end())
        return std::nullopt;
    auto it = g->second.find(tp);
    if (it == g->second.end())
        return std::nullopt;
    return it->second;
}

GroupOffsets OffsetStore::group_offsets(const std::string& group) const {
    std::lock_guard lock(mutex_);
    auto g = offsets_.find(group);
    return g == offsets_.end() ? GroupOffsets{} : g->second;
}

std::vector<std::string> OffsetStore::groups() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [group, offsets] : offsets_)
        out.push_back(group);
    return out;
}

size_t OffsetStore::size() const {
    std::lock_guard lock(mutex_);
    size_t n = 0;
    for (const auto& [group, offsets] : offsets_)
        n += offsets.size();
    return n;
}

int64_t OffsetStore::snapshots_written() const {
    std::lock_guard lock(mutex_);
    return snapshots_written_;
}

}  // namespace skiff::broker::group
