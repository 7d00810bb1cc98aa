#include "storage/cleaner/log_cleaner.h"
#include "storage/cleaner/cleaner_error.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "protocol/record_batch.h"
#include "storage/cleaner/batch_rewrite.h"
#include "storage/cleaner/cleanable_section.h"
#include "storage/cleaner/cleaned_segment.h"
#include "storage/cleaner/offset_map.h"
#include "storage/control_batch.h"
#include "storage/log_file.h"
#include "storage/transaction_index.h"

namespace skiff::storage {

using cleaner::batch_records;
using cleaner::cleanable_section;
using cleaner::CleanedWriter;
using cleaner::empty_batch;
using cleaner::group_segments;
using cleaner::KeyHash;
using cleaner::last_modified_ms;
using cleaner::OffsetMap;
using cleaner::RawRecord;
using cleaner::rebuild_batch;
using cleaner::Section;
using cleaner::split_records;

namespace {

// Aborted transactions by producer: [first offset, ABORT marker offset] ranges.
using AbortedRanges = std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>>;

AbortedRanges aborted_ranges(const SegmentSet& set) {
    AbortedRanges ranges;
    for (const auto& segment : set.segments())
        for (const TxnIndexEntry& e : segment->txn_index().entries())
            ranges[e.producer_id].emplace_back(e.first_offset, e.last_offset);
    return ranges;
}

bool is_aborted(const AbortedRanges& ranges, const protocol::BatchHeader& h) {
    if (!h.is_transactional() || h.is_control() || h.producer_id < 0)
        return false;
    auto it = ranges.find(h.producer_id);
    if (it == ranges.end())
        return false;
    for (const auto& [first, last] : it->second)
        if (h.base_offset >= first && h.base_offset <= last)
            return true;
    return false;
}

// Kafka's Throttler: sleeps so that bytes / elapsed stays at or below the rate.
class Throttler {
  public:
    explicit Throttler(double rate) : rate_(rate), start_(std::chrono::steady_clock::now()) {}
    void add(int64_t bytes) {
        if (!(rate_ > 0) || rate_ >= std::numeric_limits<double>::max())
            return;
        bytes_ += bytes;
        const double due = static_cast<double>(bytes_) / rate_;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (due > elapsed)
            std::this_thread::sleep_for(std::chrono::duration<double>(due - elapsed));
    }

  private:
    double rate_;
    std::chrono::steady_clock::time_point start_;
    int64_t bytes_ = 0;
};

// Kafka's CleanedTransactionMetadata, over the whole pass (every group, in offset order from the
// log start, so a transaction whose records and marker lie in different groups is seen whole):
// which transaction markers may go. A COMMIT marker may go when no record of its transaction
// remains before it; an ABORT marker when its transaction's records were all removed by an
// earlier pass (this pass removed none), so that its .txnindex entry is no longer needed.
class TxnMarkers {
  public:
    // A transactional data batch kept (committed) or removed (aborted).
    void data_batch(int64_t producer_id, bool aborted) {
        (aborted ? aborted_seen_ : committed_open_).insert(producer_id);
    }
    // A marker read: whether it may be removed (at the delete horizon).
    bool marker_may_go(int64_t producer_id, std::optional<ControlType> type) {
        const bool committed_seen = committed_open_.erase(producer_id) > 0;
        const bool aborted_seen = aborted_seen_.erase(producer_id) > 0;
        if (!type)
            return true;  // an empty control batch: already cleaned
        return *type == ControlType::commit ? !committed_seen : !aborted_seen;
    }

  private:
    std::set<int64_t> committed_open_, aborted_seen_;
};

// One pass's state.
struct Pass {
    PartitionLog& log;
    const CleanerConfig& cfg;
    LogConfig config;
    std::atomic<bool>* stop;
    int64_t now_ms;
    Throttler throttler;
    // The rest starts empty (initializers, so that the designated initialization in clean_log
    // names only the members above).
    CleanResult result{};
    AbortedRanges aborted{};
    // Each idempotent producer's last data offset: its batch ending there stays, empty if need be.
    std::map<int64_t, int64_t> producer_last_offset{};
    TxnMarkers markers{};
    std::vector<std::byte> plain{}, scratch{}, rebuilt{};
    std::vector<RawRecord> raw{};

    bool stopped() const { return stop && stop->load(); }

    // Calls visit(header, bytes) for every batch of `segment` in order, counting the bytes read
    // against the I/O limit; ends early on stop() or the first error of `visit`. A batch that
    // does not scan is `corrupt` (the cleaner never rewrites a segment it cannot read whole).
    template <class Visit>
    Expected<void, StorageError> scan_batches(const LogSegment& segment, Visit&& visit) {
        auto file = segment.file();
        if (!file)
            return unexpected(file.error());
        BatchScanner scanner(**file, 0, segment.size_bytes());
        for (;;) {
            if (stopped())
                return unexpected(cleaner::error(StorageErrc::io_error, "stopped"));
            auto step = scanner.next(true);
            if (!step)
                return unexpected(step.error());
            if (!step->batch) {
                if (!step->problem.empty())
                    return unexpected(cleaner::error(
                        StorageErrc::corrupt, segment.log_path().string() + ": " + step->problem));
                return {};
            }
            const protocol::BatchHeader& h = step->batch->header;
            result.bytes_read += static_cast<int64_t>(h.size_bytes());
            throttler.add(static_cast<int64_t>(h.size_bytes()));
            if (auto visited = visit(h, step->batch->bytes); !visited)
                return visited;
        }
    }

    // The records of one batch (decompressed into `plain` if needed) split into `raw`.
    Expected<std::span<const std::byte>, StorageError> parse_records(
        std::span<const std::byte> bytes, const protocol::BatchHeader& h) {
        auto records = batch_records(bytes, h, plain);
        if (!records)
            return records;
        if (!split_records(*records, h.records_count, raw))
            return unexpected(cleaner::error(StorageErrc::corrupt,
                                             "records of the batch at offset " +
                                                 std::to_string(h.base_offset) + " do not parse"));
        return records;
    }

    // Adds the keys of `segment` at offsets >= from to the map, if they all fit. False (map
    // unchanged) when they do not.
    Expected<bool, StorageError> map_segment(const LogSegment& segment, int64_t from,
                                             OffsetMap& map) {
        std::vector<std::pair<KeyHash, int64_t>> keys;
        auto scanned =
            scan_batches(segment,
                         [&](const protocol::BatchHeader& h,
                             std::span<const std::byte> bytes) -> Expected<void, StorageError> {
                             if (h.last_offset() < from || h.is_control() || is_aborted(aborted, h))
                                 return {};
                             auto records = parse_records(bytes, h);
                             if (!records)
                                 return unexpected(records.error());
                             for (const RawRecord& r : raw) {
                                 const int64_t offset = h.base_offset + r.offset_delta;
                                 if (r.has_key && offset >= from)
                                     keys.emplace_back(r.key, offset);
                             }
                             return {};
                         });
        if (!scanned)
            return unexpected(scanned.error());
        if (map.size() + keys.size() > map.capacity()) {
            // The exact count of keys new to the map.
            std::vector<KeyHash> fresh;
            for (const auto& [k, o] : keys)
                if (!map.get(k))
                    fresh.push_back(k);
            std::sort(fresh.begin(), fresh.end(), [](const KeyHash& a, const KeyHash& b) {
                return a.high != b.high ? a.high < b.high : a.low < b.low;
            });
            fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
            if (map.size() + fresh.size() > map.capacity())
                return false;
        }
        for (const auto& [k, o] : keys)
            map.put(k, o);
        return true;
    }

    // Writes the group's segments [first, last) of `set` into one cleaned segment.
    Expected<void, StorageError> write_group(const SegmentSet& set, size_t first, size_t last,
                                             const OffsetMap& map, int64_t first_dirty,
                                             CleanedWriter& writer) {
        std::vector<TxnIndexEntry> txn;
        std::set<int64_t> kept_aborts;  // offsets of the ABORT markers kept
        std::vector<const RawRecord*> kept;
        for (size_t i = first; i < last; ++i) {
            const LogSegment& segment = *set[i];
            // Kafka's delete horizon: tombstones go only from segments wholly in the clean
            // section that were last written more than delete.retention.ms ago.
            const bool retain_deletes =
                set[i + 1]->base_offset() > first_dirty ||
                last_modified_ms(segment) > now_ms - config.delete_retention_ms;
            auto scanned = scan_batches(
                segment,
                [&](const protocol::BatchHeader& h,
                    std::span<const std::byte> bytes) -> Expected<void, StorageError> {
                    result.records_read += h.records_count;
                    std::span<const std::byte> out;
                    const bool aborted_batch = is_aborted(aborted, h);
                    if (h.is_transactional() && !h.is_control() && h.producer_id >= 0)
                        markers.data_batch(h.producer_id, aborted_batch);
                    if (h.is_control()) {
                        std::optional<ControlType> type;
                        if (h.records_count > 0)
                            if (auto c = parse_control_record(bytes);
                                c && (c->type == static_cast<int16_t>(ControlType::abort) ||
                                      c->type == static_cast<int16_t>(ControlType::commit)))
                                type = static_cast<ControlType>(c->type);
                        if (markers.marker_may_go(h.producer_id, type) && !retain_deletes) {
                            ++result.markers_removed;
                        } else {
                            out = bytes;
                            result.records_kept += h.records_count;
                            if (type == ControlType::abort)
                                kept_aborts.insert(h.last_offset());
                        }
                    } else if (aborted_batch) {
                        // dropped whole; its .txnindex entry stays while its marker does
                    } else {
                        auto records = parse_records(bytes, h);
                        if (!records)
                            return unexpected(records.error());
                        kept.clear();
                        for (const RawRecord& r : raw) {
                            if (!r.has_key)
                                continue;  // a compacted log cannot hold it (Kafka drops it too)
                            const int64_t offset = h.base_offset + r.offset_delta;
                            if (auto latest = map.get(r.key); latest && offset < *latest)
                                continue;
                            if (r.null_value && !retain_deletes)
                                continue;
                            kept.push_back(&r);
                        }
                        if (kept.size() == raw.size()) {
                            out = bytes;
                            result.records_kept += h.records_count;
                        } else if (!kept.empty()) {
                            auto rebuilt_ok =
                                rebuild_batch(bytes, h, *records, kept, scratch, rebuilt);
                            if (!rebuilt_ok)
                                return unexpected(rebuilt_ok.error());
                            out = rebuilt;
                            result.records_kept += static_cast<int64_t>(kept.size());
                        }
                    }
                    if (out.empty() && !h.is_control() && h.producer_id >= 0) {
                        // Kafka's BatchRetention.RETAIN_EMPTY: a producer's last batch.
                        auto producer = producer_last_offset.find(h.producer_id);
                        if (producer != producer_last_offset.end() &&
                            producer->second == h.last_offset()) {
                            empty_batch(bytes, h, rebuilt);
                            out = rebuilt;
                        }
                    }
                    if (out.empty())
                        return {};
                    if (auto a = writer.append(out, h); !a)
                        return a;
                    result.bytes_written += static_cast<int64_t>(out.size());
                    throttler.add(static_cast<int64_t>(out.size()));
                    return {};
                });
            if (!scanned)
                return scanned;
            // An aborted transaction stays listed while its marker stays.
            for (const auto& e : segment.txn_index().entries())
                if (kept_aborts.count(e.last_offset))
                    txn.push_back(e);
        }
        return writer.finish(txn, set[last]->base_offset());
    }
};

}  // namespace

CleanableInfo cleanable_info(const PartitionLog& log, int64_t checkpoint, int64_t now_ms) {
    Section s = cleanable_section(log, checkpoint, now_ms);
    CleanableInfo info;
    info.first_dirty_offset = s.first_dirty;
    info.first_uncleanable_offset = s.first_uncleanable;
    for (size_t i = 0; i < s.end_segment; ++i) {
        if (i < s.first_dirty_segment)
            info.clean_bytes += (*s.set)[i]->size_bytes();
        else
            info.dirty_bytes += (*s.set)[i]->size_bytes();
    }
    const int64_t total = info.clean_bytes + info.dirty_bytes;
    info.dirty_ratio =
        total > 0 ? static_cast<double>(info.dirty_bytes) / static_cast<double>(total) : 0.0;
    return info;
}

Expected<CleanResult, StorageError> clean_log(PartitionLog& log, int64_t first_dirty_offset,
                                              const CleanerConfig& cfg, int64_t now_ms,
                                              std::atomic<bool>* stop) {
    // Only flushed segments are rewritten: move the recovery point over the sealed ones first.
    if (auto f = log.flush_rolled(); !f)
        return unexpected(f.error());
    Pass pass{.log = log,
              .cfg = cfg,
              .config = log.config(),
              .stop = stop,
              .now_ms = now_ms,
              .throttler = Throttler(cfg.io_max_bytes_per_second)};
    Section s = cleanable_section(log, first_dirty_offset, now_ms);
    const SegmentSet& set = *s.set;
    pass.result.first_dirty_offset_after = s.first_dirty;
    if (s.first_dirty_segment >= s.end_segment)
        return pass.result;  // nothing dirty and cleanable (and no map allocated)
    // Kafka's sizing: dedupe_buffer_bytes of slots, filled to io_buffer_load_factor of them.
    OffsetMap map(cfg.dedupe_buffer_bytes, cfg.io_buffer_load_factor);
    pass.result.map_capacity = static_cast<int64_t>(map.capacity());
    pass.aborted = aborted_ranges(set);
    for (const auto& [producer_id, entry] : log.producer_entries())
        if (!entry.batches.empty())
            pass.producer_last_offset[producer_id] = entry.batches.back().last_offset;

    // The map over the dirty section, whole segments while they fit.
    size_t mapped_end = s.first_dirty_segment;
    for (size_t i = s.first_dirty_segment; i < s.end_segment; ++i) {
        auto fits = pass.map_segment(*set[i], s.first_dirty, map);
        if (!fits)
            return unexpected(fits.error());
        if (!*fits)
            break;
        mapped_end = i + 1;
    }
    if (mapped_end == s.first_dirty_segment)
        return unexpected(cleaner::error(StorageErrc::invalid_argument,
                                         "the dedupe buffer (" + std::to_string(map.capacity()) +
                                             " keys) cannot hold the keys of segment " +
                                             std::to_string(set[mapped_end]->base_offset()) +
                                             " of " + log.dir().string()));
    pass.result.map_entries = static_cast<int64_t>(map.size());
    const int64_t clean_upto = set[mapped_end]->base_offset();

    // Rewrite [log start, clean_upto) group by group.
    int64_t swapped_groups = 0, replaced_segments = 0;
    for (const auto& [first, last] : group_segments(set, mapped_end, pass.config)) {
        const int64_t base = set[first]->base_offset();
        auto writer = CleanedWriter::create(log.dir(), base, pass.config);
        if (!writer)
            return unexpected(writer.error());
        auto written = pass.write_group(set, first, last, map, s.first_dirty, **writer);
        if (!written) {
            (*writer)->remove();
            return unexpected(written.error());
        }
        std::vector<std::shared_ptr<LogSegment>> old(
            set.segments().begin() + static_cast<ptrdiff_t>(first),
            set.segments().begin() + static_cast<ptrdiff_t>(last));
        auto swapped =
            cleaner::swap_in(log, pass.config, old, set[last]->base_offset(), cfg.swap_hook);
        if (!swapped)
            return unexpected(swapped.error());
        if (*swapped) {
            ++swapped_groups;
            replaced_segments += static_cast<int64_t>(old.size());
        }
    }
    pass.result.segments_before = replaced_segments;
    pass.result.segments_after = swapped_groups;
    pass.result.first_dirty_offset_after = clean_upto;
    return pass.result;
}

}  // namespace skiff::storage
