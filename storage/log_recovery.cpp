#include "storage/log_recovery.h"

#include <algorithm>
#include <system_error>

#include "storage/segment_names.h"
#include "storage/transaction_index.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

bool is_stray_suffix(const std::string& name) {
    for (const char* suffix : {".tmp", ".cleaned", ".deleted", ".swap"})
        if (name.ends_with(suffix))
            return true;
    return false;
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
                                           int64_t log_start_offset) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return unexpected(
            StorageError{StorageErrc::io_error, "create " + dir.string() + ": " + ec.message()});
    LoadedLog loaded;
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
            ++loaded.stats.segments_validated;
            loaded.stats.bytes_validated += opened->segment->size_bytes();
        }
        if (!opened->problem.empty())
            loaded.problems.push_back(opened->problem);
        if (opened->truncated && !last) {
            // Nothing after a torn batch can be trusted: it would leave a gap in the offsets.
            for (size_t j = i + 1; j < bases.size(); ++j) {
                remove_segment_files(dir, bases[j]);
                loaded.problems.push_back("deleted segment " + std::to_string(bases[j]) +
                                          " after truncated segment " + std::to_string(bases[i]));
            }
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
