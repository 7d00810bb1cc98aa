// LogSegment::open: loading a segment from disk, checking its indexes, and recovering it
// (validating every batch, truncating a torn tail, rebuilding the indexes) when needed.
#include <sys/stat.h>

#include <algorithm>

#include "storage/log_segment.h"
#include "storage/segment_names.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

// Kafka's sanity check of a trusted segment's indexes: constant time, it looks at the first and
// last entries only (a full check would read every index file at start-up). Empty when
// plausible for a segment [base, next) of log_size bytes.
std::string quick_index_problem(const OffsetIndex& oi, const TimeIndex& ti, int64_t base,
                                int64_t next, int64_t log_size) {
    auto describe = [](const MappedIndex& f, const char* what) {
        return f.path().string() + ": " + what;
    };
    if (size_t n = oi.entries(); n > 0) {
        OffsetPosition first = oi.entry(0), last = oi.entry(n - 1);
        if (first.offset < base || first.position < 0 || last.offset >= next ||
            last.position >= log_size)
            return describe(oi.file(), "first or last entry outside the segment");
        if (n > 1 && (first.offset >= last.offset || first.position >= last.position))
            return describe(oi.file(), "entries out of order");
    }
    if (size_t n = ti.entries(); n > 0) {
        TimestampAndOffset first = ti.entry(0), last = ti.entry(n - 1);
        if (first.offset < base || last.offset >= next)
            return describe(ti.file(), "first or last entry outside the segment");
        if (n > 1 && (first.timestamp >= last.timestamp || first.offset > last.offset))
            return describe(ti.file(), "entries out of order");
    }
    return {};
}

// What a power cut can leave of a sealed segment's index when its seal never reached the disk
// (before the sealed segment was fsynced after its roll, or with it lost): the preallocated file
// untrimmed, its entries zero, or trimmed with zeros where the entries were. Any of these
// would otherwise be trusted: a zeroed time index reads as max timestamp 0, which retention
// deletes at once. Constant time: the file size and the first and last entries. Empty when
// none applies.
std::string sealed_index_problem(const MappedIndex& f, size_t entries) {
    if (f.mapped_bytes() != entries * f.entry_size())
        return f.path().string() + ": not trimmed (" + std::to_string(f.mapped_bytes()) +
               " bytes, " + std::to_string(entries) +
               " entries): the segment's seal never reached the disk";
    if (entries > 0 && (f.entry_is_zero(0) || f.entry_is_zero(entries - 1)))
        return f.path().string() + ": all-zero entry (lost with the page cache?)";
    return {};
}

}  // namespace

Expected<std::string, StorageError> LogSegment::load(const fs::path& dir, const LogConfig& config,
                                                     bool active,
                                                     std::optional<int64_t> next_base) {
    auto oi = MappedIndex::open(dir / segment_file_name(base_offset_, kIndexSuffix),
                                OffsetIndex::kEntrySize, config.index_size_max_bytes, active);
    if (!oi)
        return oi.error().message;
    auto ti = MappedIndex::open(dir / segment_file_name(base_offset_, kTimeIndexSuffix),
                                TimeIndex::kEntrySize, config.index_size_max_bytes, active);
    if (!ti)
        return ti.error().message;
    offset_index_ = std::make_unique<OffsetIndex>(std::move(*oi), base_offset_);
    time_index_ = std::make_unique<TimeIndex>(std::move(*ti), base_offset_);

    int64_t size = size_bytes();
    if (!active) {
        if (auto problem = sealed_index_problem(offset_index_->file(), offset_index_->entries());
            !problem.empty())
            return problem;
        if (auto problem = sealed_index_problem(time_index_->file(), time_index_->entries());
            !problem.empty())
            return problem;
        // Both get entries at the same moments (a time index entry whenever the max timestamp
        // grew): an empty time index beside offset index entries lost its content.
        if (offset_index_->entries() > 0 && time_index_->entries() == 0)
            return time_index_->file().path().string() +
                   ": empty while the offset index has entries";
    }
    if (next_base && !active) {
        // A trusted sealed segment: offsets are contiguous across segments, so it ends where the
        // next one begins, and sealing left its max timestamp as the last time index entry.
        // Nothing of the .log is read. Only a full time index may lack that final entry: then
        // the tail is scanned as below.
        if (auto problem =
                quick_index_problem(*offset_index_, *time_index_, base_offset_, *next_base, size);
            !problem.empty())
            return problem;
        const bool time_index_full =
            (time_index_->entries() + 1) * TimeIndex::kEntrySize > config.index_size_max_bytes;
        if (!time_index_full) {
            next_offset_ = *next_base;
            max_timestamp_ = time_index_->last_entry();
            return std::string{};
        }
    }
    if (auto problem = offset_index_->sanity_problem(size); !problem.empty())
        return problem;
    // Everything up to the last index entry is accounted for by the indexes; scan the rest (at
    // most about one index interval) for the next offset and the max timestamp.
    int64_t from = 0;
    int64_t next = base_offset_;
    auto last = offset_index_->last_entry();
    if (last)
        from = last->position;
    if (auto t = time_index_->last_entry())
        max_timestamp_ = t;
    if (auto opened = open_log(); !opened)
        return unexpected(opened.error());
    BatchScanner scanner(*log_, from, size);
    bool first = true;
    for (;;) {
        auto step = scanner.next(false);
        if (!step)
            return unexpected(step.error());
        if (!step->batch) {
            if (step->problem.empty())
                break;
            // The active segment of a durable-mode log closed by a crash (or whose trim at close
            // a power cut took back) still has the zeros its appends reserved: the data ends
            // here, and the zeros stay reserved until trim() or seal().
            const int64_t at = scanner.position();
            auto zeros = active ? only_zeros(*log_, at, size) : Expected<bool, StorageError>(false);
            if (!zeros)
                return unexpected(zeros.error());
            if (!*zeros)
                return log_path_.string() + ": " + step->problem;
            reserved_end_ = size;
            grown_ = true;
            size = at;
            size_bytes_ = at;
            break;
        }
        const protocol::BatchHeader& h = step->batch->header;
        if (first && last && h.last_offset() != last->offset)
            return log_path_.string() + ": last index entry names offset " +
                   std::to_string(last->offset) + " but its batch ends at " +
                   std::to_string(h.last_offset());
        first = false;
        if (h.max_timestamp > (max_timestamp_ ? max_timestamp_->timestamp : -1))
            max_timestamp_ = TimestampAndOffset{h.max_timestamp, h.last_offset()};
        next = h.last_offset() + 1;
    }
    if (auto problem = time_index_->sanity_problem(next); !problem.empty())
        return problem;
    next_offset_ = next;
    // The counter as the writer left it: reset at the last entry, then every batch added.
    bytes_since_last_index_entry_ = last ? size - last->position : size;
    return std::string{};
}

Expected<std::string, StorageError> LogSegment::recover(const fs::path& dir,
                                                        const LogConfig& config) {
    if (auto opened = open_log(); !opened)
        return unexpected(opened.error());
    auto indexes = create_indexes(dir, config);
    if (!indexes)
        return unexpected(indexes.error());
    bytes_since_last_index_entry_ = 0;
    max_timestamp_.reset();
    const int64_t size = size_bytes();
    BatchScanner scanner(*log_, 0, size);
    int64_t expected = base_offset_;
    std::string problem;
    for (;;) {
        int64_t position = scanner.position();
        auto step = scanner.next(true);
        if (!step)
            return unexpected(step.error());
        // Offsets strictly increase; a compacted segment has gaps (Kafka's rule too).
        if (step->batch && step->batch->header.base_offset < expected)
            step->problem = "batch at " + std::to_string(position) + " has base offset " +
                            std::to_string(step->batch->header.base_offset) + ", expected " +
                            std::to_string(expected) + " or more";
        if (!step->problem.empty()) {
            // An all-zero tail is the space durable mode grew the file by (append): cut off, but
            // nothing of the data is lost, so it is neither a problem nor a truncation that the
            // later segments pay for (load_log still removes them when this one ends short of
            // the next).
            auto zeros = only_zeros(*log_, position, size);
            if (!zeros)
                return unexpected(zeros.error());
            if (!*zeros)
                problem = log_path_.string() + " at position " + std::to_string(position) + ": " +
                          step->problem;
            auto t = log_->truncate(position);
            if (!t)
                return unexpected(t.error());
            size_bytes_ = position;
            break;
        }
        if (!step->batch)
            break;
        const protocol::BatchHeader& h = step->batch->header;
        index_batch(h.last_offset(), h.max_timestamp, position,
                    static_cast<int64_t>(h.size_bytes()), config);
        expected = h.last_offset() + 1;
    }
    next_offset_ = expected;
    return problem;
}

Expected<LogSegment::Opened, StorageError> LogSegment::open(const fs::path& dir,
                                                            int64_t base_offset,
                                                            const LogConfig& config, bool active,
                                                            bool recover,
                                                            std::optional<int64_t> next_base) {
    // A trusted sealed segment's .log is not opened at all: its size is all that start-up needs
    // (the first read opens it). Every other one is opened to be scanned or appended to.
    fs::path log_path = dir / segment_file_name(base_offset, kLogSuffix);
    Opened opened;
    opened.segment.reset(new LogSegment(base_offset, log_path, nullptr));
    LogSegment& s = *opened.segment;
    if (next_base && !active && !recover) {
        struct stat st {};
        if (::stat(log_path.c_str(), &st) != 0) {
            if (errno == ENOENT)
                return unexpected(StorageError{StorageErrc::not_found, log_path.string()});
            return unexpected(errno_error(errno, "stat " + log_path.string()));
        }
        s.size_bytes_ = static_cast<int64_t>(st.st_size);
    } else {
        if (auto log = s.open_log(); !log)
            return unexpected(log.error());
        auto size = s.log_->size();
        if (!size)
            return unexpected(size.error());
        s.size_bytes_ = *size;
    }
    s.next_offset_ = base_offset;
    if (!recover) {
        auto problem = s.load(dir, config, active, next_base);
        if (!problem)
            return unexpected(problem.error());
        if (!problem->empty()) {
            recover = true;
            opened.problem = *problem;
        }
    }
    if (recover) {
        s.offset_index_.reset();
        s.time_index_.reset();
        int64_t before = s.size_bytes();
        auto problem = s.recover(dir, config);
        if (!problem)
            return unexpected(problem.error());
        opened.recovered = true;
        opened.truncated = s.size_bytes() < before && !problem->empty();
        // Aborts whose marker was cut off go; the partition's producer-state replay writes back
        // the entries of the markers that remain (PartitionLog::load_producer_state).
        if (auto t = s.txn_index_.truncate_to(s.next_offset()); !t)
            return unexpected(t.error());
        if (!problem->empty())
            opened.problem = *problem;
    }
    // Roll time of a reopened active segment: its first batch's max timestamp, as Kafka does;
    // the moment of its first append is not on disk. A batch without timestamps (-1) falls back
    // to the file's modification time. Sealed segments never roll: nothing to read.
    if (active && s.size_bytes() > 0) {
        std::byte head[protocol::kBatchHeaderSize];
        if (s.log_->read_at(0, head))
            s.rolling_base_ms_ = protocol::read_batch_header(head).max_timestamp;
        struct stat st {};
        if (s.rolling_base_ms_ < 0 && ::fstat(s.log_->fd(), &st) == 0)
            s.rolling_base_ms_ = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000;
    }
    if (!active && opened.recovered) {
        auto sealed = s.seal();
        if (!sealed)
            return unexpected(sealed.error());
    } else if (!active) {
        // Loaded as it was sealed before: its indexes are trimmed and the blocks reserved past
        // its end were released when it was sealed, so seal()'s ftruncate calls (the bulk of
        // the start-up time of a partition with many segments) have nothing to do.
        s.sealed_ = true;
    }
    if (!active)
        s.release_log(false);  // closed: the first read opens it again
    return opened;
}

}  // namespace skiff::storage
