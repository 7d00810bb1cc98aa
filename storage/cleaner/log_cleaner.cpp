#include "storage/cleaner/log_cleaner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "protocol/compression/compression.h"
#include "protocol/crc32c.h"
#include "protocol/record_batch.h"
#include "protocol/wire.h"
#include "storage/big_endian.h"
#include "storage/cleaner/offset_map.h"
#include "storage/control_batch.h"
#include "storage/log_file.h"
#include "storage/mapped_index.h"
#include "storage/offset_index.h"
#include "storage/segment_names.h"
#include "storage/time_index.h"
#include "storage/transaction_index.h"

namespace skiff::storage {

namespace fs = std::filesystem;
using cleaner::hash_key;
using cleaner::KeyHash;
using cleaner::OffsetMap;

namespace {

constexpr std::string_view kCleaned = ".cleaned";
constexpr std::string_view kSwap = ".swap";
constexpr std::string_view kDeleted = ".deleted";
// The swap's files, the .log last: renamed in this order, the .log names the swap.
constexpr std::array<std::string_view, 5> kSuffixes = {kRangeSuffix, kIndexSuffix, kTimeIndexSuffix,
                                                       kTxnIndexSuffix, kLogSuffix};
// Decompressed records of one batch beyond this are refused as corrupt (Kafka's batches are
// bounded by message.max.bytes; this only guards against a decompression bomb on disk).
constexpr size_t kMaxPlainBytes = size_t{1} << 30;

StorageError error(StorageErrc code, std::string message) {
    return StorageError{code, std::move(message)};
}

fs::path with_suffix(const fs::path& dir, int64_t base, std::string_view suffix,
                     std::string_view extra = {}) {
    return dir / (segment_file_name(base, suffix) + std::string(extra));
}

void sync_dir(const fs::path& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// When the segment's data was last written, as Kafka's lastModified: the newest record's
// timestamp, else the .log's modification time.
int64_t last_modified_ms(const LogSegment& segment) {
    if (auto m = segment.max_timestamp())
        return m->timestamp;
    struct stat st {};
    if (::stat(segment.log_path().c_str(), &st) == 0)
        return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    return -1;
}

// The cleanable section of a log at one moment.
struct Section {
    std::shared_ptr<const SegmentSet> set;
    int64_t first_dirty = 0;
    int64_t first_uncleanable = 0;
    size_t first_dirty_segment = 0;  // the segment holding first_dirty
    size_t end_segment = 0;          // segments [0, end_segment) lie wholly below uncleanable
};

Section cleanable_section(const PartitionLog& log, int64_t checkpoint, int64_t now_ms) {
    Section s;
    s.set = log.segments();
    const SegmentSet& set = *s.set;
    const LogConfig config = log.config();
    int64_t uncleanable =
        std::min({set.active()->base_offset(), log.last_stable_offset(), log.recovery_point()});
    if (config.min_compaction_lag_ms > 0) {
        for (size_t i = 0; i + 1 < set.size(); ++i) {
            if (last_modified_ms(*set[i]) > now_ms - config.min_compaction_lag_ms) {
                uncleanable = std::min(uncleanable, set[i]->base_offset());
                break;
            }
        }
    }
    s.first_uncleanable = uncleanable;
    while (s.end_segment + 1 < set.size() && set[s.end_segment + 1]->base_offset() <= uncleanable)
        ++s.end_segment;
    s.first_dirty = std::max({checkpoint, log.log_start_offset(), set[0]->base_offset()});
    s.first_dirty_segment = set.floor(s.first_dirty).value_or(0);
    if (s.first_dirty_segment + 1 < set.size() &&
        set[s.first_dirty_segment + 1]->base_offset() <= s.first_dirty)
        ++s.first_dirty_segment;
    return s;
}

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

// One record of a batch's (decompressed) records, with its raw bytes.
struct RawRecord {
    size_t begin = 0, end = 0;
    int32_t offset_delta = 0;
    bool has_key = false;
    KeyHash key;
    bool null_value = false;
};

bool read_varint(std::span<const std::byte> in, size_t& pos, int64_t& out) {
    uint64_t raw = 0;
    if (protocol::wire::get_uvarint(in, pos, raw, 10, UINT64_MAX) !=
        protocol::wire::VarintStatus::ok)
        return false;
    out = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
    return true;
}

// Splits `records` into `count` records; false if they do not parse.
bool split_records(std::span<const std::byte> records, int32_t count, std::vector<RawRecord>& out) {
    out.clear();
    size_t pos = 0;
    for (int32_t i = 0; i < count; ++i) {
        RawRecord r;
        r.begin = pos;
        int64_t length = 0;
        if (!read_varint(records, pos, length) || length < 0 ||
            static_cast<uint64_t>(length) > records.size() - pos)
            return false;
        r.end = pos + static_cast<size_t>(length);
        auto body = records.subspan(0, r.end);
        pos += 1;  // attributes
        int64_t ts_delta = 0, offset_delta = 0, key_length = 0, value_length = 0;
        if (!read_varint(body, pos, ts_delta) || !read_varint(body, pos, offset_delta) ||
            !read_varint(body, pos, key_length))
            return false;
        r.offset_delta = static_cast<int32_t>(offset_delta);
        if (key_length >= 0) {
            if (static_cast<uint64_t>(key_length) > body.size() - std::min(pos, body.size()))
                return false;
            r.has_key = true;
            r.key = hash_key(body.subspan(pos, static_cast<size_t>(key_length)));
            pos += static_cast<size_t>(key_length);
        }
        if (!read_varint(body, pos, value_length))
            return false;
        r.null_value = value_length < 0;
        out.push_back(r);
        pos = r.end;
    }
    return pos == records.size();
}

// The records of a whole batch, decompressed into `plain` if needed.
Expected<std::span<const std::byte>, StorageError> batch_records(std::span<const std::byte> batch,
                                                                 const protocol::BatchHeader& h,
                                                                 std::vector<std::byte>& plain) {
    auto body = batch.subspan(protocol::kBatchHeaderSize);
    if (h.compression() == protocol::Compression::none)
        return body;
    auto d = protocol::compression::decompress(h.compression(), body, plain, kMaxPlainBytes);
    if (!d)
        return unexpected(
            error(StorageErrc::corrupt, "batch at offset " + std::to_string(h.base_offset) +
                                            " does not decompress: " + d.error().message));
    return std::span<const std::byte>(plain);
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

// Writes one cleaned segment: <base>.log.cleaned and its indexes, by LogSegment's index rule.
class CleanedWriter {
  public:
    static Expected<std::unique_ptr<CleanedWriter>, StorageError> create(const fs::path& dir,
                                                                         int64_t base,
                                                                         const LogConfig& config) {
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

    Expected<void, StorageError> append(std::span<const std::byte> batch,
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

    // Seals and fsyncs every file; the aborted transactions of the group go to .txnindex, and
    // the offset after the group (`end`) to the range file (see kRangeSuffix).
    Expected<void, StorageError> finish(const std::vector<TxnIndexEntry>& aborted, int64_t end) {
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

    void remove() const {
        std::error_code ec;
        for (auto suffix : kSuffixes)
            fs::remove(with_suffix(dir_, base_, suffix, kCleaned), ec);
    }

    int64_t size() const { return position_; }

  private:
    CleanedWriter(fs::path dir, int64_t base, LogConfig config)
        : dir_(std::move(dir)), base_(base), config_(std::move(config)) {}

    fs::path dir_;
    int64_t base_;
    LogConfig config_;
    std::shared_ptr<LogFile> log_;
    std::unique_ptr<OffsetIndex> offset_index_;
    std::unique_ptr<TimeIndex> time_index_;
    int64_t position_ = 0;
    int64_t bytes_since_entry_ = 0;
    std::optional<TimestampAndOffset> max_ts_;
};

// Rebuilds `batch` keeping only `kept` of its records (raw bytes in `records`), same codec and
// header fields; appended to `out`.
Expected<void, StorageError> rebuild_batch(std::span<const std::byte> batch,
                                           const protocol::BatchHeader& h,
                                           std::span<const std::byte> records,
                                           const std::vector<const RawRecord*>& kept,
                                           std::vector<std::byte>& scratch,
                                           std::vector<std::byte>& out) {
    scratch.clear();
    for (const RawRecord* r : kept)
        scratch.insert(scratch.end(), records.begin() + static_cast<ptrdiff_t>(r->begin),
                       records.begin() + static_cast<ptrdiff_t>(r->end));
    out.clear();
    out.insert(out.end(), batch.begin(),
               batch.begin() + static_cast<ptrdiff_t>(protocol::kBatchHeaderSize));
    if (h.compression() == protocol::Compression::none) {
        out.insert(out.end(), scratch.begin(), scratch.end());
    } else {
        auto c = protocol::compression::compress(h.compression(), scratch, out);
        if (!c)
            return unexpected(error(StorageErrc::io_error, "compress batch at offset " +
                                                               std::to_string(h.base_offset) +
                                                               ": " + c.error().message));
    }
    // Length, RecordsCount, then the CRC over attributes..end.
    store_be<int32_t>(out.data() + 8,
                      static_cast<int32_t>(out.size() - protocol::kBatchLogOverhead));
    store_be<int32_t>(out.data() + 57, static_cast<int32_t>(kept.size()));
    const uint32_t crc =
        protocol::crc32c(std::span<const std::byte>(out).subspan(protocol::kBatchAttributesOffset));
    store_be<uint32_t>(out.data() + protocol::kBatchCrcOffset, crc);
    return {};
}

// The header of `batch` alone as an empty batch (Kafka's writeEmptyHeader): the same base
// offset, last offset delta, producer id, epoch, base sequence and attributes, no records, both
// timestamps the batch's max timestamp. What the cleaner leaves of an idempotent producer's last
// batch when all its records go, so that its sequence and epoch survive a rebuild of the producer
// state from the log.
void empty_batch(std::span<const std::byte> batch, const protocol::BatchHeader& h,
                 std::vector<std::byte>& out) {
    out.assign(batch.begin(), batch.begin() + static_cast<ptrdiff_t>(protocol::kBatchHeaderSize));
    store_be<int32_t>(out.data() + 8, static_cast<int32_t>(protocol::kBatchHeaderSize -
                                                           protocol::kBatchLogOverhead));
    // No records, so no codec: attributes keep timestamp type, transactional and control bits.
    store_be<int16_t>(out.data() + protocol::kBatchAttributesOffset,
                      static_cast<int16_t>(h.attributes & ~int16_t{0x07}));
    store_be<int64_t>(out.data() + 27, h.max_timestamp);  // FirstTimestamp
    store_be<int32_t>(out.data() + 57, 0);
    const uint32_t crc =
        protocol::crc32c(std::span<const std::byte>(out).subspan(protocol::kBatchAttributesOffset));
    store_be<uint32_t>(out.data() + protocol::kBatchCrcOffset, crc);
}

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
    void hook(SwapStep step) const {
        if (cfg.swap_hook)
            cfg.swap_hook(step);
    }

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
                return unexpected(error(StorageErrc::io_error, "stopped"));
            auto step = scanner.next(true);
            if (!step)
                return unexpected(step.error());
            if (!step->batch) {
                if (!step->problem.empty())
                    return unexpected(error(StorageErrc::corrupt,
                                            segment.log_path().string() + ": " + step->problem));
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
            return unexpected(error(StorageErrc::corrupt, "records of the batch at offset " +
                                                              std::to_string(h.base_offset) +
                                                              " do not parse"));
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

    // Renames every existing `base` file from suffix `from` to `to` (.log last).
    static Expected<void, StorageError> rename_all(const fs::path& dir, int64_t base,
                                                   std::string_view from, std::string_view to) {
        for (auto suffix : kSuffixes) {
            const fs::path source = with_suffix(dir, base, suffix, from);
            std::error_code ec;
            if (!fs::exists(source, ec))
                continue;
            fs::rename(source, with_suffix(dir, base, suffix, to), ec);
            if (ec)
                return unexpected(error(StorageErrc::io_error,
                                        "rename " + source.string() + ": " + ec.message()));
        }
        return {};
    }

    // The swap of one group (see the header). false: the group's segments are gone (retention
    // ran meanwhile); the .cleaned files are removed and nothing else changed.
    Expected<bool, StorageError> swap(const std::vector<std::shared_ptr<LogSegment>>& old,
                                      int64_t next_base) {
        const fs::path& dir = log.dir();
        const int64_t base = old.front()->base_offset();
        hook(SwapStep::cleaned_written);
        bool installed = false;
        auto replaced =
            log.replace_segments(old, [&]() -> Expected<std::shared_ptr<LogSegment>, StorageError> {
                installed = true;
                if (auto r = rename_all(dir, base, kCleaned, kSwap); !r)
                    return unexpected(r.error());
                sync_dir(dir);
                hook(SwapStep::renamed_to_swap);
                for (const auto& segment : old)
                    if (auto p = segment->pin_files(); !p)
                        return unexpected(p.error());
                for (const auto& segment : old)
                    if (auto r = rename_all(dir, segment->base_offset(), "", kDeleted); !r)
                        return unexpected(r.error());
                hook(SwapStep::old_renamed_to_deleted);
                if (auto r = rename_all(dir, base, kSwap, ""); !r)
                    return unexpected(r.error());
                std::error_code ec;
                fs::remove(with_suffix(dir, base, kRangeSuffix), ec);
                hook(SwapStep::swap_renamed_to_final);
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
        hook(SwapStep::published);
        std::error_code ec;
        for (const auto& segment : old)
            for (auto suffix : kSuffixes)
                fs::remove(with_suffix(dir, segment->base_offset(), suffix, kDeleted), ec);
        sync_dir(dir);
        hook(SwapStep::old_deleted);
        return true;
    }
};

// Kafka's groupSegmentsBySize over segments [0, end) of `set`: consecutive segments whose
// sizes add up to at most segment.bytes, whose index entries fit one index file and whose
// offsets stay within 2^31 of the group's base.
std::vector<std::pair<size_t, size_t>> group_segments(const SegmentSet& set, size_t end,
                                                      const LogConfig& config) {
    std::vector<std::pair<size_t, size_t>> groups;
    size_t i = 0;
    while (i < end) {
        size_t j = i + 1;
        int64_t bytes = set[i]->size_bytes();
        int64_t offset_index = static_cast<int64_t>(set[i]->offset_index().entries());
        int64_t time_index = static_cast<int64_t>(set[i]->time_index().entries()) + 1;
        while (j < end) {
            const int64_t b = bytes + set[j]->size_bytes();
            const int64_t oi =
                offset_index + static_cast<int64_t>(set[j]->offset_index().entries());
            const int64_t ti =
                time_index + static_cast<int64_t>(set[j]->time_index().entries()) + 1;
            if (b > static_cast<int64_t>(config.segment_bytes) ||
                oi * static_cast<int64_t>(OffsetIndex::kEntrySize) >
                    static_cast<int64_t>(config.index_size_max_bytes) ||
                ti * static_cast<int64_t>(TimeIndex::kEntrySize) >
                    static_cast<int64_t>(config.index_size_max_bytes) ||
                set[j + 1]->base_offset() - 1 - set[i]->base_offset() > INT32_MAX)
                break;
            bytes = b;
            offset_index = oi;
            time_index = ti;
            ++j;
        }
        groups.emplace_back(i, j);
        i = j;
    }
    return groups;
}

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
        return unexpected(error(StorageErrc::invalid_argument,
                                "the dedupe buffer (" + std::to_string(map.capacity()) +
                                    " keys) cannot hold the keys of segment " +
                                    std::to_string(set[mapped_end]->base_offset()) + " of " +
                                    log.dir().string()));
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
        auto swapped = pass.swap(old, set[last]->base_offset());
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
