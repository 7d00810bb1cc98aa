// The log cleaner's storage core (issue 18, Kafka's Cleaner.clean / cleanSegments): one cleaning
// pass of a compacted partition log. No thread and no checkpoint file here: the caller (the log
// manager's cleaner thread) picks a log with cleanable_info(), runs clean_log() and stores
// first_dirty_offset_after as the log's new cleaner checkpoint.
//
// The pass:
//  1. The cleanable section ends at the first uncleanable offset: the active segment's base, the
//     last stable offset (open transactions), the recovery point (only flushed segments are
//     rewritten; clean_log first runs flush_rolled) and the base of the first segment with records
//     younger than min_compaction_lag_ms; only whole segments below it are cleaned.
//  2. The key map (offset_map.h) is built over the dirty section [first dirty offset, end) segment
//     by segment until the next segment would not fit: it never grows, the rest waits for a later
//     pass (first_dirty_offset_after says where the map stopped). Control batches, records of
//     aborted transactions (from the .txnindex files) and records without a key are not mapped.
//  3. The segments from the log start to where the map stopped are rewritten in groups (Kafka's
//     groupSegmentsBySize: consecutive segments of at most segment.bytes and index size together)
//     into one segment per group, named as the group's first. A record stays when its key is not
//     in the map or its offset is at or after the map's; a tombstone (null value) also goes when
//     its segment lies wholly below the first dirty offset and its newest record is older than
//     delete.retention.ms (Kafka's delete horizon); records of aborted transactions and records
//     without a key go. A transaction marker goes, at the same delete horizon, once nothing of
//     its transaction remains before it (a COMMIT: no record of it was kept in this pass; an
//     ABORT: an earlier pass removed its records, and its .txnindex entry goes with it); Kafka's
//     CleanedTransactionMetadata, kept over the whole pass. Offsets never change: gaps appear.
//     A batch keeping all its records is copied byte for byte; one keeping some is rebuilt with
//     the same codec, attributes, producer id/epoch, base sequence, base offset, last offset delta
//     and timestamps (only RecordsCount, Length and the CRC change); one keeping none goes, except
//     an idempotent producer's last batch, kept as an empty batch (header only, Kafka's
//     RETAIN_EMPTY) so that its sequence and epoch survive. A cleaned segment may end up empty.
//  4. The swap, Kafka's order: <base>.log.cleaned with .index/.timeindex/.txnindex.cleaned and
//     <base>.range.cleaned (the offset after the group: the cleaned batches may end before it)
//     are written and fsynced; under the log's append lock they are renamed to .swap (the .log
//     last: from then on recovery completes the swap), the old segments pin their open files
//     (readers holding an older snapshot keep reading the old, unlinked files and never reopen a
//     path now naming the cleaned file), the old files are renamed to .deleted, the .swap files to
//     their final names, and the new segment list is published; then the .deleted files are removed
//     and the directory fsynced. PartitionLog::open (log_recovery.cpp) removes .cleaned and
//     .deleted files and completes .swap files.
//
// The code by step: 1 and the grouping of 3 in cleanable_section.h, the key map of 2 in
// offset_map.h, the record batches of 3 in batch_rewrite.h, the files of 3 and 4 in
// cleaned_segment.h; clean_log() (log_cleaner.cpp) runs the pass and decides what stays.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>

#include "protocol/expected.h"
#include "storage/partition_log.h"
#include "storage/storage_error.h"

namespace skiff::storage {

// The points of the swap, in order, for the test hook.
enum class SwapStep {
    cleaned_written,         // the .cleaned files are complete and fsynced
    renamed_to_swap,         // they are .swap files (under the append lock from here)
    old_renamed_to_deleted,  // the old segments' files are .deleted files
    swap_renamed_to_final,   // the .swap files have their final names
    published,               // readers see the cleaned segment (append lock released)
    old_deleted,             // the .deleted files are removed: the swap is over
};

struct CleanerConfig {
    int64_t dedupe_buffer_bytes = 128LL << 20;  // log.cleaner.dedupe.buffer.size
    double io_buffer_load_factor = 0.9;         // log.cleaner.io.buffer.load.factor
    int64_t io_buffer_bytes = 512LL * 1024;     // log.cleaner.io.buffer.size
    double io_max_bytes_per_second = std::numeric_limits<double>::max();
    // Tests only: called at every step of every swap; throwing there stops the pass as a crash
    // would (the files stay as they are at that step).
    std::function<void(SwapStep)> swap_hook;
};

// segments_before: the segments this pass rewrote; segments_after: the cleaned segments that
// replaced them (one per group).
struct CleanResult {
    int64_t first_dirty_offset_after = 0;  // the new cleaner checkpoint for this log
    int64_t bytes_read = 0, bytes_written = 0;
    int64_t records_read = 0, records_kept = 0, segments_before = 0, segments_after = 0;
    int64_t markers_removed = 0;  // transaction markers no longer needed
    int64_t map_entries = 0, map_capacity = 0;
};

// One cleaning pass of `log` (which has config().cleanup_compact): builds the key map over the
// dirty section [first_dirty_offset, end of cleanable section) up to what fits in the map, then
// rewrites [log start, that point) segment group by segment group through .cleaned -> .swap ->
// final renames. Thread-safe against concurrent appends, reads, retention and flushes. Nothing
// cleanable: the result says so (first_dirty_offset_after == the first dirty offset, no segment
// rewritten, map_capacity 0: the map is only allocated when there is work). The map's memory is
// allocated per pass (dedupe_buffer_bytes, zero-filled). `stop` set: the pass ends at the next
// batch, its .cleaned files removed, with an io_error "stopped"; groups already swapped stay
// swapped. A dedupe buffer too small for one segment's keys is invalid_argument.
Expected<CleanResult, StorageError> clean_log(PartitionLog& log, int64_t first_dirty_offset,
                                              const CleanerConfig& cfg, int64_t now_ms,
                                              std::atomic<bool>* stop = nullptr);

// What the scheduler needs to pick a log (Kafka's LogCleanerManager): the dirty section is
// [first_dirty_offset, first_uncleanable_offset) rounded down to whole segments; clean bytes are
// the segments below first_dirty_offset. dirty_ratio = dirty / (clean + dirty), 0 if both are 0.
struct CleanableInfo {
    int64_t first_dirty_offset = 0, first_uncleanable_offset = 0;
    int64_t clean_bytes = 0, dirty_bytes = 0;
    double dirty_ratio = 0;
};
CleanableInfo cleanable_info(const PartitionLog& log, int64_t checkpoint, int64_t now_ms);

}  // namespace skiff::storage
