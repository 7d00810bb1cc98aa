#include "broker/group/offset_store.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "broker/group/offset_records.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"

namespace skiff::broker::group {
namespace {

constexpr size_t kRecordsPerBatch = 500;
constexpr int64_t kReadChunkBytes = 1 << 20;

}  // namespace

Expected<std::unique_ptr<OffsetStore>, std::string> OffsetStore::open(storage::PartitionLog& log,
                                                                      storage::LogConfig base) {
    std::unique_ptr<OffsetStore> store(new OffsetStore(log, std::move(base)));
    store->segment_bytes_ = static_cast<int64_t>(store->base_.segment_bytes);
    auto config = store->base_;
    config.retention_bytes = 2 * store->segment_bytes_;
    config.retention_ms = -1;  // age must never delete the only copy of an offset
    log.update_config(config);
    if (auto replayed = store->replay(); !replayed)
        return unexpected(replayed.error());
    std::lock_guard lock(store->mutex_);
    if (!store->offsets_.empty())
        if (auto s = store->snapshot_locked(); !s)
            return unexpected(s.error());
    return store;
}

Expected<void, std::string> OffsetStore::replay() {
    std::lock_guard lock(mutex_);
    int64_t offset = log_.log_start_offset();
    const int64_t end = log_.high_watermark();
    std::vector<std::byte> buffer;
    while (offset < end) {
        auto read = log_.read(offset, kReadChunkBytes, true);
        if (!read)
            return unexpected("reading " + std::string(kOffsetsTopic) + " at offset " +
                              std::to_string(offset) + ": " + read.error().message);
        if (read->total_bytes == 0)
            break;
        buffer.resize(static_cast<size_t>(read->total_bytes));
        size_t filled = 0;
        for (const auto& slice : read->slices) {
            int64_t done = 0;
            while (done < slice.length) {
                ssize_t n =
                    ::pread(slice.fd, buffer.data() + filled + done,
                            static_cast<size_t>(slice.length - done), slice.position + done);
                if (n <= 0)
                    return unexpected("reading " + std::string(kOffsetsTopic) + ": " +
                                      (n < 0 ? std::strerror(errno) : "unexpected end of file"));
                done += n;
            }
            filled += static_cast<size_t>(slice.length);
        }
        std::span<const std::byte> rest(buffer.data(), filled);
        while (!rest.empty()) {
            auto header = protocol::check_batch(rest);
            if (!header)
                return unexpected("corrupt batch in " + std::string(kOffsetsTopic) + ": " +
                                  header.error().message);
            auto batch = rest.first(static_cast<size_t>(header->size_bytes()));
            auto records = protocol::read_records(batch);
            if (!records)
                return unexpected("corrupt record in " + std::string(kOffsetsTopic) + ": " +
                                  records.error().message);
            for (const auto& r : *records) {
                if (!r.key)
                    continue;
                auto version = offset_record_version(*r.key);
                if (version && (*version < 0 || *version > OffsetCommitKey::kVersion))
                    continue;  // group metadata or a newer format: not ours to interpret
                auto key = decode_offset_key(*r.key);
                if (!key)
                    return unexpected("malformed offset key in " + std::string(kOffsetsTopic) +
                                      ": " + key.error().message);
                Entry e;
                e.group = std::move(key->group);
                e.tp = {std::move(key->topic), key->partition};
                if (r.value) {
                    auto value = decode_offset_value(*r.value);
                    if (!value)
                        return unexpected("malformed offset value in " +
                                          std::string(kOffsetsTopic) + ": " +
                                          value.error().message);
                    e.value = CommittedOffset{value->offset, value->leader_epoch,
                                              std::move(value->metadata), value->commit_timestamp};
                }
                apply_locked(e);
            }
            offset = header->last_offset() + 1;
            rest = rest.subspan(batch.size());
        }
    }
    return {};
}

void OffsetStore::apply_locked(const Entry& e) {
    if (e.value) {
        offsets_[e.group][e.tp] = *e.value;
        return;
    }
    auto it = offsets_.find(e.group);
    if (it == offsets_.end())
        return;
    it->second.erase(e.tp);
    if (it->second.empty())
        offsets_.erase(it);
}

Expected<void, std::string> OffsetStore::append_locked(const std::vector<Entry>& entries) {
    if (entries.empty())
        return {};
    const int64_t now = storage::wall_clock_ms();
    std::vector<std::byte> batches;
    for (size_t first = 0; first < entries.size(); first += kRecordsPerBatch) {
        std::vector<protocol::RecordSpec> records;
        const size_t last = std::min(entries.size(), first + kRecordsPerBatch);
        for (size_t i = first; i < last; ++i) {
            const Entry& e = entries[i];
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
        auto bytes = protocol::build_record_batch(spec, records);
        batches.insert(batches.end(), bytes.begin(), bytes.end());
    }
    auto summaries = protocol::validate_batches(batches);
    if (!summaries)
        return unexpected("building offset batch: " + summaries.error().message);
    auto appended = log_.append(batches, *summaries);
    if (!appended)
        return unexpected("appending to " + std::string(kOffsetsTopic) + ": " +
                          appended.error().message);
    bytes_since_snapshot_ += static_cast<int64_t>(batches.size());
    return {};
}

Expected<void, std::string> OffsetStore::snapshot_locked() {
    std::vector<Entry> entries;
    for (const auto& [group, offsets] : offsets_)
        for (const auto& [tp, committed] : offsets)
            entries.push_back({group, tp, committed});
    const int64_t before = bytes_since_snapshot_;
    if (auto appended = append_locked(entries); !appended)
        return appended;
    const int64_t snapshot_bytes = bytes_since_snapshot_ - before;
    bytes_since_snapshot_ = 0;
    ++snapshots_written_;
    // Keep a snapshot well inside one segment (see the header), growing the segment with it.
    const int64_t wanted = std::max(static_cast<int64_t>(base_.segment_bytes), 4 * snapshot_bytes);
    if (wanted != segment_bytes_) {
        segment_bytes_ = wanted;
        auto config = base_;
        config.segment_bytes = static_cast<uint64_t>(wanted);
        config.retention_bytes = 2 * wanted;
        config.retention_ms = -1;
        log_.update_config(config);
    }
    return {};
}

int64_t OffsetStore::snapshot_threshold_bytes() const {
    std::lock_guard lock(mutex_);
    return segment_bytes_ / 2;
}

Expected<void, std::string> OffsetStore::commit(const std::string& group,
                                                const GroupOffsets& offsets) {
    std::vector<Entry> entries;
    entries.reserve(offsets.size());
    for (const auto& [tp, committed] : offsets)
        entries.push_back({group, tp, committed});
    std::lock_guard lock(mutex_);
    if (auto appended = append_locked(entries); !appended)
        return appended;
    for (const auto& e : entries)
        apply_locked(e);
    if (bytes_since_snapshot_ >= segment_bytes_ / 2)
        (void)snapshot_locked();  // a failed snapshot is retried at the next commit
    return {};
}

Expected<size_t, std::string> OffsetStore::remove(
    const std::string& group, const std::vector<storage::TopicPartition>& which) {
    std::lock_guard lock(mutex_);
    std::vector<Entry> entries;
    auto it = offsets_.find(group);
    if (it == offsets_.end())
        return size_t{0};
    for (const auto& [tp, committed] : it->second)
        if (which.empty() || std::find(which.begin(), which.end(), tp) != which.end())
            entries.push_back({group, tp, std::nullopt});
    if (auto appended = append_locked(entries); !appended)
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
            if (expired(group, committed))
                entries.push_back({group, tp, std::nullopt});
    if (!append_locked(entries))
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
