// PartitionLog read side: read for fetch, lookup, offset queries. Works on a snapshot, never
// takes the append mutex.
#include <algorithm>

#include "storage/big_endian.h"
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
                                                      bool min_one_batch,
                                                      Isolation isolation) const {
    auto snap = snapshot();
    if (offset < snap.log_start_offset || offset > snap.high_watermark)
        return unexpected(out_of_range(offset, snap.log_start_offset, snap.high_watermark));
    ReadResult result;
    result.high_watermark = snap.visible_end();
    result.log_start_offset = snap.log_start_offset;
    result.last_stable_offset = snap.lso();
    const bool committed = isolation == Isolation::read_committed;
    // Both are batch boundaries: the LSO a transaction's first batch, the durable end the end of
    // a synced append.
    const int64_t end_offset = committed ? result.last_stable_offset : result.high_watermark;
    if (offset >= end_offset)
        return result;
    const SegmentSet& set = *snap.segments;
    // Where reading must stop: the end of the log, or for read_committed the batch at the LSO
    // (always a batch's first offset: the first batch of the oldest open transaction).
    size_t end_segment = set.size() - 1;
    int64_t end_position = snap.limit(end_segment);
    if (end_offset < snap.high_watermark) {
        end_segment = set.floor(end_offset).value_or(0);
        auto at = set[end_segment]->locate(end_offset, snap.limit(end_segment));
        if (!at)
            return unexpected(at.error());
        end_position = *at ? (*at)->batch_position : snap.limit(end_segment);
    }
    auto limit = [&](size_t i) { return i == end_segment ? end_position : snap.limit(i); };
    const size_t first_segment = set.floor(offset).value_or(0);
    size_t i = first_segment;
    // Find the batch holding `offset`, moving on if a segment ends before it.
    int64_t start = -1;
    int64_t first_batch_size = 0;
    for (; i <= end_segment; ++i) {
        auto found = set[i]->locate(offset, limit(i));
        if (!found)
            return unexpected(found.error());
        if (*found) {
            start = (*found)->batch_position;
            first_batch_size = static_cast<int64_t>((*found)->header.size_bytes());
            result.first_offset = (*found)->header.base_offset;
            break;
        }
    }
    if (start < 0)
        return result;
    int64_t remaining = std::max<int64_t>(max_bytes, 0);
    size_t last_segment = i;
    BatchesEnd last{.position = start};
    for (bool first = true; i <= end_segment; ++i, start = 0, first = false) {
        const int64_t lim = limit(i);
        auto end = set[i]->batches_end(start, remaining, lim);
        if (!end)
            return unexpected(end.error());
        if (first && end->position == start && min_one_batch)
            *end = BatchesEnd{.position = start + first_batch_size};
        const int64_t stop = end->position;
        if (stop > start) {
            auto slice = set[i]->slice(start, stop - start);
            if (!slice)
                return unexpected(slice.error());
            result.slices.push_back(std::move(*slice));
            result.total_bytes += stop - start;
            remaining -= stop - start;
            last_segment = i;
            last = *end;
        }
        if (stop < lim || remaining <= 0)
            break;  // the next batch did not fit
    }
    if (result.slices.empty()) {
        result.first_offset = -1;
        return result;
    }
    // Kafka's upper bound: the offset of the first batch after the bytes returned. The scan
    // that found where to stop usually read its header; otherwise it is the end of the range
    // read, the next segment's base offset, or (rarely: the first batch alone went past the
    // limits) read from the file.
    if (last_segment == end_segment && last.position == end_position) {
        result.next_offset = end_offset;
    } else if (last.next_offset >= 0) {
        result.next_offset = last.next_offset;
    } else if (last.position < snap.limit(last_segment)) {
        auto file = set[last_segment]->file();
        if (!file)
            return unexpected(file.error());
        std::byte base[8];
        if (auto r = (*file)->read_at(last.position, base); !r)
            return unexpected(r.error());
        result.next_offset = load_be<int64_t>(base);
    } else if (last_segment + 1 < set.size()) {
        result.next_offset = set[last_segment + 1]->base_offset();
    } else {
        result.next_offset = snap.high_watermark;
    }
    if (!committed)
        return result;
    result.aborted = collect_aborted(snap, first_segment, offset, result.next_offset);
    return result;
}

std::vector<AbortedTxn> PartitionLog::collect_aborted(const Snapshot& snap, size_t first_segment,
                                                      int64_t offset, int64_t upper_bound) const {
    // Kafka's collectAbortedTransactions: from the segment holding the fetch offset on (an ABORT
    // marker may be several segments after the data), every entry with last_offset >= offset
    // and first_offset < upper_bound; done after the first entry whose LSO reaches the bound.
    std::vector<AbortedTxn> aborted;
    const SegmentSet& set = *snap.segments;
    bool done = false;
    for (size_t i = first_segment; i < set.size() && !done; ++i) {
        for (const TxnIndexEntry& e : set[i]->txn_index().entries()) {
            if (e.last_offset >= offset && e.first_offset < upper_bound)
                aborted.push_back({e.producer_id, e.first_offset});
            if (e.last_stable_offset >= upper_bound) {
                done = true;
                break;
            }
        }
    }
    std::stable_sort(aborted.begin(), aborted.end(), [](const AbortedTxn& a, const AbortedTxn& b) {
        return a.first_offset < b.first_offset;
    });
    return aborted;
}

int64_t PartitionLog::last_stable_offset() const {
    return snapshot().lso();
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
            if (offset >= snap.visible_end())
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
        if (m && m->offset < snap.visible_end() && (!best || m->timestamp > best->timestamp))
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
    return snapshot().visible_end();
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
