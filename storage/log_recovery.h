// Loading a partition directory at open (Kafka's LogLoader).
//
// 1. The log cleaner's interrupted swaps (storage/cleaner/log_cleaner.h) are finished as Kafka's
//    LogLoader does: *.cleaned and *.deleted files are removed; a <base>.log.swap completes (the
//    old segments in its range removed, its .swap files renamed to their final names); other
//    .swap files are removed. Then stray files are removed: *.tmp, and .index/.timeindex files
//    without their .log.
// 2. Every <base>.log becomes a segment, the last one active.
// 3. After an unclean shutdown, every segment from the one holding the recovery point on is
//    recovered: each batch validated (length, magic 2, CRC-32C, offsets strictly increasing:
//    the log cleaner leaves gaps), the .log
//    truncated at the first bad batch, indexes rebuilt. If a segment that is not the last was
//    truncated, is empty or ends before the next segment's base offset (a power cut took its
//    unflushed tail), every later segment is deleted: the log stays contiguous and ends at the
//    last valid offset + 1, as Kafka's recovery leaves it after a torn segment. (Not for a log
//    the cleaner has cleaned, whose segments may legitimately end early: truncation only.) Sealed
//    segments before that one (all of them after a clean shutdown) are trusted, as Kafka trusts
//    them: flushed before the recovery point moved past them, they are opened with a constant-time
//    check of their indexes and without reading or changing any file, so start-up costs a few
//    system calls per segment however much data they hold. The check (Kafka's sanity checks and
//    what a power cut leaves): size a multiple of the entry size, first and last entries in order
//    and inside the segment and the .log, the file trimmed to its entries (a sealed index is), no
//    all-zero first or last entry, a time index not empty beside a non-empty offset index. An index
//    that is missing or fails it is rebuilt from its .log (and reported), and the segment then
//    checked as above.
// 4. An empty directory gets one empty segment at `log_start_offset`.
//
// Runs before the log is shared with other threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "protocol/expected.h"
#include "storage/log_config.h"
#include "storage/log_segment.h"
#include "storage/storage_error.h"

namespace skiff::storage {

// What loading cost: how many segments were validated batch by batch (tests, start-up log).
struct RecoveryStats {
    int64_t segments = 0;            // segments opened
    int64_t segments_validated = 0;  // recovered: every batch read and checked, indexes rebuilt
    int64_t bytes_validated = 0;     // bytes of those segments kept after truncation
};

struct LoadedLog {
    std::vector<std::shared_ptr<LogSegment>> segments;
    std::vector<std::string> problems;  // what recovery found and repaired
    RecoveryStats stats;
    // Base offset of the first segment whose files loading rewrote (recovered, indexes rebuilt):
    // they need an fsync before they may be trusted after another crash. INT64_MAX: none.
    int64_t unsynced_from = INT64_MAX;
};

// `offsets_may_have_gaps`: the log cleaner has cleaned this log, so a segment may end before
// the next one begins (step 3 then only cuts after a truncated segment).
Expected<LoadedLog, StorageError> load_log(const std::filesystem::path& dir,
                                           const LogConfig& config, bool clean_shutdown,
                                           int64_t recovery_point, int64_t log_start_offset,
                                           bool offsets_may_have_gaps = false);

}  // namespace skiff::storage
