#include "storage/log_segment.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <vector>

#include "protocol/crc32c.h"
#include "storage/batch_records.h"
#include "storage/big_endian.h"
#include "storage/open_segment_files.h"
#include "storage/segment_names.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {
// BaseOffset, Length, PartitionLeaderEpoch: the part of a batch header rewritten on append.
constexpr size_t kRewrittenPrefix = 16;
constexpr size_t kMaxTimestampOffset = 35;
constexpr int16_t kLogAppendTimeBit = 0x08;

// message.timestamp.type=LogAppendTime: the whole header is rewritten, as Kafka's LogValidator
// does in place (setMaxTimestamp): the timestamp-type bit set, MaxTimestamp the append time,
// BaseTimestamp and the records as sent (a reader takes MaxTimestamp for every record of such
// a batch), the producer fields untouched, and the CRC recomputed - over the new header bytes
// and then the batch body, once per batch, never per record.
void stamp_log_append_time(std::byte* header, std::span<const std::byte> body, int64_t now_ms) {
    const auto attributes = load_be<int16_t>(header + protocol::kBatchAttributesOffset);
    store_be<int16_t>(header + protocol::kBatchAttributesOffset,
                      static_cast<int16_t>(attributes | kLogAppendTimeBit));
    store_be<int64_t>(header + kMaxTimestampOffset, now_ms);
    uint32_t crc =
        protocol::crc32c({header + protocol::kBatchAttributesOffset,
                          protocol::kBatchHeaderSize - protocol::kBatchAttributesOffset});
    crc = protocol::crc32c(body, crc);
    store_be<uint32_t>(header + protocol::kBatchCrcOffset, crc);
}
}  // namespace

Expected<void, StorageError> LogSegment::create_indexes(const fs::path& dir,
                                                        const LogConfig& config) {
    auto oi = MappedIndex::create(dir / segment_file_name(base_offset_, kIndexSuffix),
                                  OffsetIndex::kEntrySize, config.index_size_max_bytes);
    if (!oi)
        return unexpected(oi.error());
    auto ti = MappedIndex::create(dir / segment_file_name(base_offset_, kTimeIndexSuffix),
                                  TimeIndex::kEntrySize, config.index_size_max_bytes);
    if (!ti)
        return unexpected(ti.error());
    offset_index_ = std::make_unique<OffsetIndex>(std::move(*oi), base_offset_);
    time_index_ = std::make_unique<TimeIndex>(std::move(*ti), base_offset_);
    return {};
}

Expected<std::shared_ptr<LogSegment>, StorageError> LogSegment::create(const fs::path& dir,
                                                                       int64_t base_offset,
                                                                       const LogConfig& config) {
    fs::path log_path = dir / segment_file_name(base_offset, kLogSuffix);
    auto log = LogFile::open(log_path, true);
    if (!log)
        return unexpected(log.error());
    auto truncated = (*log)->truncate(0);
    if (!truncated)
        return unexpected(truncated.error());
    std::shared_ptr<LogSegment> segment(new LogSegment(base_offset, log_path, std::move(*log)));
    segment->next_offset_ = base_offset;
    auto indexes = segment->create_indexes(dir, config);
    if (!indexes) {
        std::error_code ec;
        fs::remove(log_path, ec);
        return unexpected(indexes.error());
    }
    return segment;
}

void LogSegment::index_batch(int64_t last_offset, int64_t max_timestamp, int64_t position,
                             int64_t size_bytes, const LogConfig& config) {
    {
        std::lock_guard lock(max_timestamp_mutex_);
        // -1 (no timestamp) never becomes a max, as in Kafka.
        if (max_timestamp > (max_timestamp_ ? max_timestamp_->timestamp : -1))
            max_timestamp_ = TimestampAndOffset{max_timestamp, last_offset};
    }
    if (bytes_since_last_index_entry_ > static_cast<int64_t>(config.index_interval_bytes)) {
        offset_index_->append(last_offset, position);  // a full index only costs lookup speed
        if (max_timestamp_)
            time_index_->maybe_append(max_timestamp_->timestamp, max_timestamp_->offset);
        bytes_since_last_index_entry_ = 0;
    }
    bytes_since_last_index_entry_ += size_bytes;
}

bool LogSegment::should_roll(int64_t incoming_bytes, int64_t last_offset, int64_t now_ms,
                             const LogConfig& config) const {
    int64_t size = size_bytes();
    if (size == 0)
        return false;  // an empty segment never rolls: a huge batch lands alone
    if (static_cast<uint64_t>(size + incoming_bytes) > config.segment_bytes)
        return true;
    if (rolling_base_ms_ && now_ms - *rolling_base_ms_ > config.roll_ms)
        return true;
    if (offset_index_->file().is_full() || time_index_->file().is_full())
        return true;
    return last_offset - base_offset_ > INT32_MAX;
}

Expected<void, StorageError> LogSegment::append(int64_t base_offset,
                                                std::span<const std::byte> batches,
                                                std::span<const protocol::BatchSummary> summaries,
                                                const LogConfig& config, int64_t now_ms) {
    if (sealed_)
        return unexpected(
            StorageError{StorageErrc::io_error,
                         log_path_.string() + " is sealed; appends go to the active segment"});
    const int64_t start = size_bytes();
    // Build the iovecs: a rewritten 16-byte prefix per batch from a local buffer, then the rest
    // of the caller's bytes untouched. The buffers are per thread and keep their capacity, so a
    // steady stream of appends allocates nothing here (append never runs concurrently with
    // itself on one thread).
    // LogAppendTime rewrites the whole header (stamp_log_append_time), CreateTime the prefix.
    const size_t rewritten = config.log_append_time ? protocol::kBatchHeaderSize : kRewrittenPrefix;
    thread_local std::vector<std::array<std::byte, protocol::kBatchHeaderSize>> prefixes;
    thread_local std::vector<iovec> iov;
    prefixes.resize(summaries.size());
    iov.clear();
    size_t at = 0;
    int64_t offset = base_offset;
    for (size_t i = 0; i < summaries.size(); ++i) {
        const auto& s = summaries[i];
        const std::byte* batch = batches.data() + at;
        std::copy(batch, batch + rewritten, prefixes[i].data());  // Length and the rest as sent
        store_be<int64_t>(prefixes[i].data(), offset);
        store_be<int32_t>(prefixes[i].data() + 12, 0);  // PartitionLeaderEpoch
        if (config.log_append_time)
            stamp_log_append_time(prefixes[i].data(), {batch + rewritten, s.size_bytes - rewritten},
                                  now_ms);
        iov.push_back({prefixes[i].data(), rewritten});
        iov.push_back({const_cast<std::byte*>(batch + rewritten), s.size_bytes - rewritten});
        at += s.size_bytes;
        offset += static_cast<int64_t>(s.last_offset_delta) + 1;
    }
    // Reserve the blocks this write lands in, and some ahead, in steps of kReserveStep: the
    // write skips ext4's per-page delayed allocation, and at most one step of unused space is
    // held per active segment until it is sealed.
    //  - By default the file size stays exact (FALLOC_FL_KEEP_SIZE): nothing changes for readers
    //    or recovery.
    //  - In durable mode (flush.messages=1: every acknowledged append is fdatasynced) the file
    //    size grows by the step too. An fdatasync after an append that grew the file writes the
    //    inode (the new size) after the data, before its cache flush; one after a write inside
    //    the size writes the data only, one disk round trip fewer per sync
    //    (tests/bench/durable-results.md). The zeros past the data never reach a reader (every
    //    read is bounded by size_bytes()); trim(), seal() and a crash's recovery (where an
    //    all-zero tail is unused space, not a torn write) cut them off.
    constexpr int64_t kReserveStep = 1 << 20;
    const auto end = start + static_cast<int64_t>(batches.size());
    if (reserve_blocks_ && end > reserved_end_) {
        const int64_t from = std::max(start, reserved_end_);
        const int64_t to = (end / kReserveStep + 1) * kReserveStep;
        const bool grow = config.flush_interval_messages == 1;
        reserve_blocks_ = log_->reserve(from, to - from, grow);
        reserved_end_ = to;
        grown_ = grown_ || (grow && reserve_blocks_);
    }
    auto written = log_->write_at(start, iov, config.fault_injector.get());
    if (!written) {
        // Leave the log exactly as before: nothing partial visible or left on disk.
        (void)log_->truncate(start);  // also releases the reserved blocks
        reserved_end_ = start;
        grown_ = false;
        return written;
    }
    // Index entries only once the bytes are in the file.
    int64_t position = start;
    offset = base_offset;
    for (const auto& s : summaries) {
        int64_t last = offset + s.last_offset_delta;
        index_batch(last, config.log_append_time ? now_ms : s.max_timestamp, position, s.size_bytes,
                    config);
        position += s.size_bytes;
        offset = last + 1;
    }
    if (!rolling_base_ms_)
        rolling_base_ms_ = now_ms;
    next_offset_.store(offset, std::memory_order_release);
    size_bytes_.store(position, std::memory_order_release);
    return {};
}

std::optional<TimestampAndOffset> LogSegment::max_timestamp() const {
    std::lock_guard lock(max_timestamp_mutex_);
    return max_timestamp_;
}

Expected<std::optional<SegmentPosition>, StorageError> LogSegment::locate(int64_t offset,
                                                                          int64_t limit) const {
    SegmentPosition found;
    if (auto entry = offset_index_->lookup(offset); entry && entry->position < limit)
        found.start_position = entry->position;
    auto log = file();
    if (!log)
        return unexpected(log.error());
    BatchScanner scanner(**log, found.start_position, limit);
    for (;;) {
        auto step = scanner.next(false);
        if (!step)
            return unexpected(step.error());
        if (!step->batch) {
            if (!step->problem.empty())
                return unexpected(
                    StorageError{StorageErrc::corrupt, log_path_.string() + ": " + step->problem});
            return std::optional<SegmentPosition>{};
        }
        ++found.batches_scanned;
        found.records_scanned += step->batch->header.records_count;
        if (step->batch->header.last_offset() >= offset) {
            found.batch_position = step->batch->position;
            found.header = step->batch->header;
            return std::optional<SegmentPosition>{found};
        }
    }
}

Expected<BatchesEnd, StorageError> LogSegment::batches_end(int64_t start, int64_t max_bytes,
                                                           int64_t limit) const {
    if (max_bytes >= limit - start)
        return BatchesEnd{.position = limit};
    const int64_t target = start + max_bytes;
    // Index entries sit on batch boundaries: jump to the last one before the target so the
    // scan covers at most one index interval.
    int64_t from = start;
    if (auto entry = offset_index_->lookup_by_position(target); entry && entry->position > start)
        from = entry->position;
    auto log = file();
    if (!log)
        return unexpected(log.error());
    BatchScanner scanner(**log, from, limit);
    BatchesEnd end{.position = from};
    for (;;) {
        auto step = scanner.next(false);
        if (!step)
            return unexpected(step.error());
        if (!step->batch)
            break;
        int64_t batch_end =
            step->batch->position + static_cast<int64_t>(step->batch->header.size_bytes());
        if (batch_end > target) {
            end.next_offset = step->batch->header.base_offset;
            break;
        }
        end.position = batch_end;
    }
    return end;
}

Expected<std::optional<TimestampAndOffset>, StorageError> LogSegment::find_timestamp(
    int64_t target, int64_t limit) const {
    int64_t start = 0;
    if (auto te = time_index_->lookup(target))
        if (auto oe = offset_index_->lookup(te->offset); oe && oe->position < limit)
            start = oe->position;
    auto log = file();
    if (!log)
        return unexpected(log.error());
    BatchScanner scanner(**log, start, limit);
    for (;;) {
        auto step = scanner.next(false);
        if (!step)
            return unexpected(step.error());
        if (!step->batch)
            return std::optional<TimestampAndOffset>{};
        const protocol::BatchHeader& h = step->batch->header;
        if (h.max_timestamp < target)
            continue;
        // LogAppendTime batches carry one timestamp for all their records.
        if (h.log_append_time())
            return std::optional<TimestampAndOffset>{
                TimestampAndOffset{h.max_timestamp, h.base_offset}};
        std::vector<std::byte> bytes(h.size_bytes());
        auto r = (*log)->read_at(step->batch->position, bytes);
        if (!r)
            return unexpected(r.error());
        if (auto rec = first_record_at_or_after(bytes, h, target))
            return std::optional{*rec};
        return std::optional<TimestampAndOffset>{
            TimestampAndOffset{h.max_timestamp, h.base_offset}};
    }
}

Expected<FileSlice, StorageError> LogSegment::slice(int64_t position, int64_t length) const {
    auto log = file();
    if (!log)
        return unexpected(log.error());
    int fd = (*log)->fd();
    return FileSlice{fd, position, length, std::move(*log)};
}

Expected<std::shared_ptr<LogFile>, StorageError> LogSegment::file() const {
    std::lock_guard lock(file_mutex_);
    if (log_)
        return log_;
    auto& cache = OpenSegmentFiles::global();
    if (auto open = sealed_file_.lock()) {
        cache.touch(open);
        return open;
    }
    if (deleted_.load(std::memory_order_acquire))
        return unexpected(StorageError{StorageErrc::offset_out_of_range,
                                       log_path_.string() + " was deleted by retention"});
    // Sealed files are only read (and fdatasync'ed, which a read-only descriptor can do).
    auto opened = LogFile::open_read_only(log_path_);
    if (!opened)
        return unexpected(opened.error());
    sealed_file_ = *opened;
    cache.touch(*opened);
    return std::move(*opened);
}

Expected<void, StorageError> LogSegment::pin_files() {
    auto log = file();
    if (!log)
        return unexpected(log.error());
    (void)txn_index_.entries();  // cached from now on
    std::lock_guard lock(file_mutex_);
    if (!log_) {
        if (auto open = sealed_file_.lock())
            OpenSegmentFiles::global().forget(open.get());
        log_ = std::move(*log);
    }
    return {};
}

LogSegment::~LogSegment() {
    if (auto open = sealed_file_.lock())
        OpenSegmentFiles::global().forget(open.get());
}

Expected<void, StorageError> LogSegment::open_log() {
    if (log_)
        return {};
    auto opened = LogFile::open(log_path_, false);
    if (!opened)
        return unexpected(opened.error());
    std::lock_guard lock(file_mutex_);
    log_ = std::move(*opened);
    return {};
}

void LogSegment::release_log(bool keep_open) {
    std::lock_guard lock(file_mutex_);
    if (!log_)
        return;
    if (keep_open) {
        sealed_file_ = log_;
        OpenSegmentFiles::global().touch(log_);
    }
    log_.reset();
}

Expected<void, StorageError> LogSegment::trim() {
    if (!grown_)
        return {};
    if (auto t = log_->truncate(size_bytes()); !t)
        return t;
    reserved_end_ = size_bytes();
    grown_ = false;
    // Synced here: a flush finding nothing new written since the last one would skip it.
    return log_->sync();
}

Expected<void, StorageError> LogSegment::seal() {
    if (sealed_)
        return {};
    if (auto m = max_timestamp())
        time_index_->maybe_append(m->timestamp, m->offset);
    auto a = offset_index_->file().trim();
    if (!a)
        return a;
    auto b = time_index_->file().trim();
    if (!b)
        return b;
    // Truncating to the current size frees the blocks reserved past it (ext4 frees blocks past
    // the end on every truncate, even one that does not change the size; tested in
    // tests/storage), and cuts off durable mode's grown size.
    auto c = log_->truncate(size_bytes());
    if (!c)
        return c;
    reserved_end_ = size_bytes();
    grown_ = false;
    sealed_ = true;
    // Kept open: the background flush after a roll syncs it next, and consumers close behind
    // the producer read it soon.
    release_log(true);
    return {};
}

Expected<void, StorageError> LogSegment::flush() {
    auto log = file();
    if (!log) {
        if (log.error().code == StorageErrc::offset_out_of_range)
            return {};  // deleted by retention meanwhile
        return unexpected(log.error());
    }
    auto a = (*log)->sync();
    if (!a)
        return a;
    auto b = offset_index_->file().flush();
    if (!b)
        return b;
    auto c = txn_index_.flush();
    if (!c)
        return c;
    return time_index_->file().flush();
}

void LogSegment::delete_files() {
    deleted_.store(true, std::memory_order_release);
    {
        std::lock_guard lock(file_mutex_);
        if (auto open = sealed_file_.lock())
            OpenSegmentFiles::global().forget(open.get());
    }
    std::error_code ec;
    fs::remove(log_path_, ec);  // the .log first: a leftover index without it is stray
    fs::remove(offset_index_->file().path(), ec);
    fs::remove(time_index_->file().path(), ec);
    txn_index_.delete_file();
}

}  // namespace skiff::storage
