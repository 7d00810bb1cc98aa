#include "storage/log_recovery.h"

#include <algorithm>
#include <fstream>
#include <system_error>

#include "storage/durable_file.h"
#include "storage/log_file.h"
#include "storage/segment_names.h"
#include "storage/transaction_index.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

bool is_stray_suffix(const std::string& name) {
    for (const char* suffix : {".tmp", ".cleaned", ".deleted", ".range"})
        if (name.ends_with(suffix))
            return true;
    return false;
}

constexpr std::string_view kSwapSuffix = ".swap";

// The last offset of the whole batches of a .log.swap file (-1 if it has none).
int64_t last_offset_of(const fs::path& path) {
    auto file = LogFile::open_read_only(path);
    if (!file)
        return -1;
    auto size = (*file)->size();
    if (!size)
        return -1;
    BatchScanner scanner(**file, 0, *size);
    int64_t last = -1;
    for (;;) {
        auto step = scanner.next(false);
        if (!step || !step->batch)
            return last;
        last = step->batch->header.last_offset();
    }
}

// Kafka's LogLoader for the log cleaner's swap files (storage/cleaner/log_cleaner.h): a
// <base>.log.swap is a cleaned segment that was complete on disk before any old file was
// touched, so the swap is completed: every segment whose base offset lies in the swap
// segment's range is removed (the old files it replaces) and the .swap files take their final
// names. The range is [base, last offset of the swap file], extended to the offset recorded in
// <base>.range.swap when the cleaner wrote one (Kafka reads only the swap file, which misses old
// segments whose records were all removed). Index .swap files without their .log.swap belong to a
// swap that never reached that point: they go, and the old segment stays.
void complete_swaps(const fs::path& dir, const std::vector<fs::path>& swaps,
                    std::vector<std::string>& problems) {
    std::error_code ec;
    std::vector<int64_t> swap_bases;
    for (const auto& path : swaps)
        if (auto base = parse_segment_file_name(path.stem().string(), kLogSuffix))
            swap_bases.push_back(*base);
    std::vector<int64_t> log_bases;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (auto base = parse_segment_file_name(entry.path().filename().string(), kLogSuffix))
            log_bases.push_back(*base);
    for (int64_t base : swap_bases) {
        const fs::path swap_log = dir / (segment_file_name(base, kLogSuffix) + ".swap");
        int64_t last = std::max(last_offset_of(swap_log), base);
        // The cleaner's record of where the replaced segments ended (the cleaned batches may
        // stop earlier: the records at the end of the last old segment may all be gone).
        const fs::path range = dir / (segment_file_name(base, kRangeSuffix) + ".swap");
        if (std::ifstream in(range); in) {
            int64_t end = 0;
            if (in >> end && end > last)
                last = end - 1;
        }
        fs::remove(range, ec);
        for (int64_t old : log_bases)
            if (old >= base && old <= last)
                for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix})
                    fs::remove(dir / segment_file_name(old, suffix), ec);
        // Indexes first, the .log last: as on the cleaner's side, the .log names the swap.
        for (auto suffix : {kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix, kLogSuffix}) {
            const fs::path from = dir / (segment_file_name(base, suffix) + ".swap");
            if (fs::exists(from, ec))
                fs::rename(from, dir / segment_file_name(base, suffix), ec);
        }
        problems.push_back("completed the cleaner's swap of segment " + std::to_string(base) +
                           " (replacing the segments in [" + std::to_string(base) + ", " +
                           std::to_string(last) + "])");
    }
}

void remove_segment_files(const fs::path& dir, int64_t base) {
    std::error_code ec;
    fs::remove(dir / segment_file_name(base, kLogSuffix), ec);
    fs::remove(dir / segment_file_name(base, kIndexSuffix), ec);
    fs::remove(dir / segment_file_name(base, kTimeIndexSuffix), ec);
    fs::remove(dir / segment_file_name(base, kTxnIndexSuffix), ec);
}

}  // namespace

Expected<LoadedLog, StorageError> load_log(const fs::path& dir, const LogConfig& config,
                                           bool clean_shutdown, int64_t recovery_point,
                                           int64_t log_start_offset, bool offsets_may_have_gaps) {
    std::error_code ec;
    const bool made = fs::create_directories(dir, ec);
    if (ec)
        return unexpected(
            StorageError{StorageErrc::io_error, "create " + dir.string() + ": " + ec.message()});
    // A new partition's directory entry: without it every fsync inside the directory is for
    // nothing after a power cut.
    if (made && dir.has_parent_path())
        if (auto synced = fsync_directory(dir.parent_path()); !synced)
            return unexpected(synced.error());
    LoadedLog loaded;
    // First the cleaner's leftovers: .cleaned and .deleted files go, .swap files complete.
    std::vector<fs::path> swaps;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        std::string name = entry.path().filename().string();
        if (name.ends_with(kSwapSuffix))
            swaps.push_back(entry.path());
    }
    if (!swaps.empty()) {
        // Remove .cleaned/.deleted before completing (a .deleted old file is already gone).
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            std::string name = entry.path().filename().string();
            if (name.ends_with(".cleaned") || name.ends_with(".deleted")) {
                fs::remove(entry.path(), ec);
                loaded.problems.push_back("removed stray file " + name);
            }
        }
        // .log.swap files first in the list: their index .swap files are renamed with them.
        std::stable_partition(swaps.begin(), swaps.end(),
                              [](const fs::path& p) { return p.stem().extension() == kLogSuffix; });
        std::vector<fs::path> logs;
        for (const auto& p : swaps)
            if (p.stem().extension() == kLogSuffix)
                logs.push_back(p);
        complete_swaps(dir, logs, loaded.problems);
        for (const auto& p : swaps) {
            if (fs::exists(p, ec)) {
                fs::remove(p, ec);
                loaded.problems.push_back("removed stray file " + p.filename().string());
            }
        }
    }
    std::vector<int64_t> bases;
    std::vector<std::pair<int64_t, fs::path>> indexes;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        std::string name = entry.path().filename().string();
        if (is_stray_suffix(name)) {
            fs::remove(entry.path(), ec);
            loaded.problems.push_back("removed stray file " + name);
        } else if (auto base = parse_segment_file_name(name, kLogSuffix)) {
            bases.push_back(*base);
        } else if (auto ib = parse_segment_file_name(name, kIndexSuffix)) {
            indexes.emplace_back(*ib, entry.path());
        } else if (auto tb = parse_segment_file_name(name, kTimeIndexSuffix)) {
            indexes.emplace_back(*tb, entry.path());
        } else if (auto xb = parse_segment_file_name(name, kTxnIndexSuffix)) {
            indexes.emplace_back(*xb, entry.path());
        }
    }
    if (ec)
        return unexpected(
            StorageError{StorageErrc::io_error, "list " + dir.string() + ": " + ec.message()});
    std::sort(bases.begin(), bases.end());
    // From the listing, not one stat per index file: start-up cost per segment matters.
    for (const auto& [base, index] : indexes) {
        if (!std::binary_search(bases.begin(), bases.end(), base)) {
            fs::remove(index, ec);
            loaded.problems.push_back("removed index without log " + index.filename().string());
        }
    }

    // Recovery starts at the segment holding the recovery point (or the first one).
    int64_t recover_from = INT64_MAX;
    if (!clean_shutdown && !bases.empty()) {
        auto it = std::upper_bound(bases.begin(), bases.end(), recovery_point);
        recover_from = it == bases.begin() ? bases.front() : *(it - 1);
    }
    for (size_t i = 0; i < bases.size(); ++i) {
        bool last = i + 1 == bases.size();
        bool recover = bases[i] >= recover_from;
        std::optional<int64_t> next_base;
        if (!last && !recover)
            next_base = bases[i + 1];
        auto opened = LogSegment::open(dir, bases[i], config, last, recover, next_base);
        if (!opened)
            return unexpected(opened.error());
        ++loaded.stats.segments;
        if (opened->recovered) {
            loaded.unsynced_from = std::min(loaded.unsynced_from, bases[i]);
            ++loaded.stats.segments_validated;
            loaded.stats.bytes_validated += opened->segment->size_bytes();
        }
        if (!opened->problem.empty())
            loaded.problems.push_back(opened->problem);
        // A segment that ends before the next one begins lost its tail (a power cut took the
        // unflushed bytes of a segment rolled just before it, while the next one's file was
        // already on disk): the later segments would leave a hole in the offsets, which a
        // consumer at the first missing offset never gets past. Trusted segments end where the
        // next begins by construction; a compacted log has gaps of its own.
        const int64_t next = opened->segment->next_offset();
        const bool hole = !last && !offsets_may_have_gaps && next < bases[i + 1];
        if ((opened->truncated || hole) && !last) {
            // Nothing after a torn batch or a hole can be kept: the log ends at the last valid
            // offset + 1, as after a torn tail.
            const std::string why = opened->truncated
                                        ? "truncated segment " + std::to_string(bases[i])
                                        : "segment " + std::to_string(bases[i]) +
                                              ", which ends at offset " + std::to_string(next) +
                                              " (offsets " + std::to_string(next) + ".." +
                                              std::to_string(bases[i + 1] - 1) + " lost)";
            for (size_t j = i + 1; j < bases.size(); ++j) {
                remove_segment_files(dir, bases[j]);
                loaded.problems.push_back("deleted segment " + std::to_string(bases[j]) +
                                          " after " + why);
            }
            if (auto synced = fsync_directory(dir); !synced)
                return unexpected(synced.error());
            opened->segment.reset();
            opened = LogSegment::open(dir, bases[i], config, true, false);  // reopen as active
            if (!opened)
                return unexpected(opened.error());
            loaded.segments.push_back(std::move(opened->segment));
            break;
        }
        loaded.segments.push_back(std::move(opened->segment));
    }
    if (loaded.segments.empty()) {
        auto created = LogSegment::create(dir, std::max<int64_t>(log_start_offset, 0), config);
        if (!created)
            return unexpected(created.error());
        loaded.segments.push_back(std::move(*created));
    }
    return loaded;
}

}  // namespace skiff::storage
