// PartitionLog read side: read for fetch, lookup, offset queries. Works on a snapshot, never
// takes the append mutex.
#include <algorithm>

#include "storage/partition_log.h"

namespace skiff::storage {

namespace {
StorageError out_of_range(int64_t offset, int64_t start, int64_t end) {
    return StorageError{StorageErrc::offset_out_of_range,
                        "offset " + std::to_string(offset) + " is outside [" +
                            std::to_string(start) + ", " + std::to_string(end) + "]"};
}
}  // namespace

Expected<ReadResult, StorageError> PartitionLog::read(int64_t offset, int64_t max_bytes,
                                                      bool min_one_batch) const {
    auto snap = snapshot();
    if (offset < snap.log_start_offset || offset > snap.high_watermark)
        return unexpected(out_of_range(offset, snap.log_start_offset, snap.high_watermark));
    ReadResult result;
    result.high_watermark = snap.high_watermark;
    result.log_start_offset = snap.log_start_offset;
    if (offset == snap.high_watermark)
        return result;
    const SegmentSet& set = *snap.segments;
    size_t i = set.floor(offset).value_or(0);
    // Find the batch holding `offset`, moving on if a segment ends before it.
    int64_t start = -1;
    int64_t first_batch_size = 0;
    for (; i < set.size(); ++i) {
        auto found = set[i]->locate(offset, snap.limit(i));
        if (!found)
            return unexpected(found.error());
        if (*found) {
            start = (*found)->batch_position;
            first_batch_size = static_cast<int64_t>((*found)->header.size_bytes());
            break;
        }
    }
    if (start < 0)
        return result;
    int64_t remaining = std::max<int64_t>(max_bytes, 0);
    for (bool first = true; i < set.size(); ++i, start = 0, first = false) {
        int64_t limit = snap.limit(i);
        auto end = set[i]->batches_end(start, remaining, limit);
        if (!end)
            return unexpected(end.error());
        int64_t stop = *end;
        if (first && stop == start && min_one_batch)
            stop = start + first_batch_size;
        if (stop > start) {
            auto slice = set[i]->slice(start, stop - start);
            if (!slice)
                return unexpected(slice.error());
            result.slices.push_back(std::move(*slice));
            result.total_bytes += stop - start;
            remaining -= stop - start;
        }
        if (stop < limit || remaining <= 0)
            break;  // the next batch did not fit
    }
    return result;
}

Expected<LookupResult, StorageError> PartitionLog::lookup(int64_t offset) const {
    auto snap = snapshot();
    if (offset < snap.log_start_offset || offset >= snap.high_watermark)
        return unexpected(out_of_range(offset, snap.log_start_offset, snap.high_watermark));
    const SegmentSet& set = *snap.segments;
    for (size_t i = set.floor(offset).value_or(0); i < set.size(); ++i) {
        auto found = set[i]->locate(offset, snap.limit(i));
        if (!found)
            return unexpected(found.error());
        if (*found)
            return LookupResult{set[i]->base_offset(), (*found)->start_position,
                                (*found)->batches_scanned, (*found)->records_scanned,
                                (*found)->batch_position};
    }
    return unexpected(StorageError{StorageErrc::not_found, "offset " + std::to_string(offset)});
}

std::optional<TimestampOffset> PartitionLog::offset_for_timestamp(int64_t timestamp_ms) const {
    auto snap = snapshot();
    const SegmentSet& set = *snap.segments;
    for (size_t i = 0; i < set.size(); ++i) {
        auto m = set[i]->max_timestamp();
        if (!m || m->timestamp < timestamp_ms)
            continue;
        auto found = set[i]->find_timestamp(timestamp_ms, snap.limit(i));
        if (found && *found) {
            int64_t offset = std::max((*found)->offset, snap.log_start_offset);
            if (offset >= snap.high_watermark)
                return std::nullopt;
            return TimestampOffset{(*found)->timestamp, offset};
        }
    }
    return std::nullopt;
}

std::optional<TimestampOffset> PartitionLog::max_timestamp() const {
    auto snap = snapshot();
    std::optional<TimestampOffset> best;
    for (const auto& segment : snap.segments->segments()) {
        auto m = segment->max_timestamp();
        if (m && m->offset < snap.high_watermark && (!best || m->timestamp > best->timestamp))
            best = TimestampOffset{m->timestamp, m->offset};
    }
    return best;
}

int64_t PartitionLog::log_start_offset() const {
    return snapshot().log_start_offset;
}
int64_t PartitionLog::log_end_offset() const {
    return snapshot().high_watermark;
}
int64_t PartitionLog::high_watermark() const {
    return snapshot().high_watermark;
}
size_t PartitionLog::segment_count() const {
    return snapshot().segments->size();
}

int64_t PartitionLog::size_bytes() const {
    auto snap = snapshot();
    int64_t total = 0;
    for (size_t i = 0; i < snap.segments->size(); ++i)
        total += snap.limit(i);
    return total;
}

}  // namespace skiff::storage
