#include "storage/cleaner/cleaned_segment.h"
#include "storage/cleaner/cleaner_error.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <string>
#include <string_view>

#include "storage/durable_file.h"
#include "storage/log_segment.h"
#include "storage/mapped_index.h"
#include "storage/segment_names.h"

namespace skiff::storage::cleaner {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kCleaned = ".cleaned";
constexpr std::string_view kSwap = ".swap";
constexpr std::string_view kDeleted = ".deleted";
// The swap's files, the .log last: renamed in this order, the .log names the swap.
constexpr std::array<std::string_view, 5> kSuffixes = {kRangeSuffix, kIndexSuffix, kTimeIndexSuffix,
                                                       kTxnIndexSuffix, kLogSuffix};

fs::path with_suffix(const fs::path& dir, int64_t base, std::string_view suffix,
                     std::string_view extra = {}) {
    return dir / (segment_file_name(base, suffix) + std::string(extra));
}

// Best effort, as before: a failed directory fsync does not undo a swap whose renames are done.
void sync_dir(const fs::path& dir) {
    (void)fsync_directory(dir);
}

// Renames every existing `base` file from suffix `from` to `to` (.log last).
Expected<void, StorageError> rename_all(const fs::path& dir, int64_t base, std::string_view from,
                                        std::string_view to) {
    for (auto suffix : kSuffixes) {
        const fs::path source = with_suffix(dir, base, suffix, from);
        std::error_code ec;
        if (!fs::exists(source, ec))
            continue;
        fs::rename(source, with_suffix(dir, base, suffix, to), ec);
        if (ec)
            return unexpected(
                error(StorageErrc::io_error, "rename " + source.string() + ": " + ec.message()));
    }
    return {};
}

}  // namespace

Expected<std::unique_ptr<CleanedWriter>, StorageError> CleanedWriter::create(
    const fs::path& dir, int64_t base, const LogConfig& config) {
    std::unique_ptr<CleanedWriter> w(new CleanedWriter(dir, base, config));
    w->remove();  // leftovers of an earlier pass
    auto log = LogFile::open(with_suffix(dir, base, kLogSuffix, kCleaned), true);
    if (!log)
        return unexpected(log.error());
    w->log_ = std::move(*log);
    if (auto t = w->log_->truncate(0); !t)
        return unexpected(t.error());
    auto oi = MappedIndex::create(with_suffix(dir, base, kIndexSuffix, kCleaned),
                                  OffsetIndex::kEntrySize, config.index_size_max_bytes);
    if (!oi)
        return unexpected(oi.error());
    auto ti = MappedIndex::create(with_suffix(dir, base, kTimeIndexSuffix, kCleaned),
                                  TimeIndex::kEntrySize, config.index_size_max_bytes);
    if (!ti)
        return unexpected(ti.error());
    w->offset_index_ = std::make_unique<OffsetIndex>(std::move(*oi), base);
    w->time_index_ = std::make_unique<TimeIndex>(std::move(*ti), base);
    return w;
}

Expected<void, StorageError> CleanedWriter::append(std::span<const std::byte> batch,
                                                   const protocol::BatchHeader& h) {
    iovec iov{const_cast<std::byte*>(batch.data()), batch.size()};
    auto written = log_->write_at(position_, std::span<iovec>(&iov, 1), nullptr);
    if (!written)
        return written;
    if (h.max_timestamp > (max_ts_ ? max_ts_->timestamp : -1))
        max_ts_ = TimestampAndOffset{h.max_timestamp, h.last_offset()};
    if (bytes_since_entry_ > static_cast<int64_t>(config_.index_interval_bytes)) {
        offset_index_->append(h.last_offset(), position_);
        if (max_ts_)
            time_index_->maybe_append(max_ts_->timestamp, max_ts_->offset);
        bytes_since_entry_ = 0;
    }
    bytes_since_entry_ += static_cast<int64_t>(batch.size());
    position_ += static_cast<int64_t>(batch.size());
    return {};
}

Expected<void, StorageError> CleanedWriter::finish(const std::vector<TxnIndexEntry>& aborted,
                                                   int64_t end) {
    {
        const fs::path range = with_suffix(dir_, base_, kRangeSuffix, kCleaned);
        auto file = LogFile::open(range, true);
        if (!file)
            return unexpected(file.error());
        const std::string text = std::to_string(end) + "\n";
        if (auto t = (*file)->truncate(0); !t)
            return t;
        iovec iov{const_cast<char*>(text.data()), text.size()};
        if (auto w = (*file)->write_at(0, std::span<iovec>(&iov, 1), nullptr); !w)
            return w;
        if (auto sy = (*file)->sync(); !sy)
            return sy;
    }
    if (max_ts_)
        time_index_->maybe_append(max_ts_->timestamp, max_ts_->offset);
    for (auto* f : {&offset_index_->file(), &time_index_->file()}) {
        if (auto t = f->trim(); !t)
            return t;
        if (auto s = f->flush(); !s)
            return s;
    }
    if (!aborted.empty()) {
        TransactionIndex txn(with_suffix(dir_, base_, kTxnIndexSuffix, kCleaned));
        for (const auto& e : aborted)
            if (auto a = txn.append(e); !a)
                return a;
        if (auto s = txn.flush(); !s)
            return s;
    }
    return log_->sync();
}

void CleanedWriter::remove() const {
    std::error_code ec;
    for (auto suffix : kSuffixes)
        fs::remove(with_suffix(dir_, base_, suffix, kCleaned), ec);
}

Expected<bool, StorageError> swap_in(PartitionLog& log, const LogConfig& config,
                                     const std::vector<std::shared_ptr<LogSegment>>& old,
                                     int64_t next_base, const std::function<void(SwapStep)>& hook) {
    auto step = [&](SwapStep s) {
        if (hook)
            hook(s);
    };
    const fs::path& dir = log.dir();
    const int64_t base = old.front()->base_offset();
    step(SwapStep::cleaned_written);
    bool installed = false;
    auto replaced =
        log.replace_segments(old, [&]() -> Expected<std::shared_ptr<LogSegment>, StorageError> {
            installed = true;
            if (auto r = rename_all(dir, base, kCleaned, kSwap); !r)
                return unexpected(r.error());
            sync_dir(dir);
            step(SwapStep::renamed_to_swap);
            for (const auto& segment : old)
                if (auto p = segment->pin_files(); !p)
                    return unexpected(p.error());
            for (const auto& segment : old)
                if (auto r = rename_all(dir, segment->base_offset(), "", kDeleted); !r)
                    return unexpected(r.error());
            step(SwapStep::old_renamed_to_deleted);
            if (auto r = rename_all(dir, base, kSwap, ""); !r)
                return unexpected(r.error());
            // The cleaned segment under its final name is durable before the old segments'
            // .deleted files go: a power cut in between finds one or the other, never neither.
            sync_dir(dir);
            std::error_code ec;
            fs::remove(with_suffix(dir, base, kRangeSuffix), ec);
            step(SwapStep::swap_renamed_to_final);
            auto opened = LogSegment::open(dir, base, config, false, false, next_base);
            if (!opened)
                return unexpected(opened.error());
            return std::move(opened->segment);
        });
    if (!replaced) {
        if (!installed && replaced.error().code == StorageErrc::not_found) {
            std::error_code ec;
            for (auto suffix : kSuffixes)
                fs::remove(with_suffix(dir, base, suffix, kCleaned), ec);
            return false;
        }
        return unexpected(replaced.error());
    }
    step(SwapStep::published);
    std::error_code ec;
    for (const auto& segment : old)
        for (auto suffix : kSuffixes)
            fs::remove(with_suffix(dir, segment->base_offset(), suffix, kDeleted), ec);
    sync_dir(dir);
    step(SwapStep::old_deleted);
    return true;
}

}  // namespace skiff::storage::cleaner
