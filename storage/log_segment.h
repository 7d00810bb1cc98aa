// One segment of a partition log: <base>.log with its <base>.index and <base>.timeindex, named
// by the base offset zero-padded to 20 digits.
//
// .log holds Kafka record batches v2 back to back exactly as producers sent them, except that
// BaseOffset is rewritten to the assigned offset and PartitionLeaderEpoch to 0 (neither is
// covered by the CRC). The indexes follow Kafka's rule, applied per batch at the byte
// position P where the batch is about to be written:
//     if bytes_since_last_index_entry > index_interval_bytes (strictly):
//         offset index += (batch's last offset, P); time index += (max timestamp so far, its
//         offset) if the max grew; bytes_since_last_index_entry = 0
//     write the batch; bytes_since_last_index_entry += batch size
// So the first batch of a segment never gets an entry.
//
// Thread-safety: one appender (the partition's append lock) calls append/seal, and flush of the
// active segment; readers call locate/batches_end/find_timestamp/slice concurrently, always
// bounded by a committed size they snapshotted, so they never see a partially written batch.
// Sealed segments never change; flush() of a sealed segment may run on any thread.
//
// Descriptors: the active segment keeps its .log open for appends. A sealed one opens it on
// first read and leaves it to OpenSegmentFiles, which bounds how many stay open; the indexes
// keep none (mapped_index.h). A partition therefore holds one descriptor while idle.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "protocol/expected.h"
#include "protocol/record_batch.h"
#include "storage/file_slice.h"
#include "storage/log_config.h"
#include "storage/log_file.h"
#include "storage/offset_index.h"
#include "storage/storage_error.h"
#include "storage/time_index.h"
#include "storage/transaction_index.h"

namespace skiff::storage {

// Where an offset is inside a segment and what it cost to find it.
struct SegmentPosition {
    int64_t start_position = 0;  // where the scan began: an index entry's position, or 0
    int64_t batch_position = 0;  // the batch holding the offset
    protocol::BatchHeader header;
    int32_t batches_scanned = 0;
    int64_t records_scanned = 0;
};

// Where a read of whole batches stops, and the base offset of the batch found there (the first
// that did not fit); -1 when the read reached the limit without reading a header there.
struct BatchesEnd {
    int64_t position = 0;
    int64_t next_offset = -1;
};

class LogSegment {
  public:
    // A new, empty active segment.
    static Expected<std::shared_ptr<LogSegment>, StorageError> create(
        const std::filesystem::path& dir, int64_t base_offset, const LogConfig& config);

    struct Opened {
        std::shared_ptr<LogSegment> segment;
        bool recovered = false;  // indexes were rebuilt from the .log
        bool truncated = false;  // bytes after the last valid batch were cut off
        std::string problem;     // why it was recovered / truncated
    };
    // Opens an existing segment. With `recover`, every batch is validated (framing, magic, CRC,
    // contiguous offsets), the .log truncated at the first bad one and both indexes rebuilt.
    // Without it, the indexes are loaded and checked, and rebuilt the same way if missing or
    // implausible. Non-active segments are sealed afterwards.
    // `next_base`, for a sealed segment that is not recovered: the base offset of the segment
    // after it. Such a segment is trusted: its indexes get a constant-time check (first and last
    // entries, as Kafka's), its next offset is `next_base`, its max timestamp the last time
    // index entry, and neither its .log is read nor any of its files changed.
    static Expected<Opened, StorageError> open(const std::filesystem::path& dir,
                                               int64_t base_offset, const LogConfig& config,
                                               bool active, bool recover,
                                               std::optional<int64_t> next_base = std::nullopt);

    // Closes the .log unless a reader still holds it (takes it out of OpenSegmentFiles).
    ~LogSegment();
    LogSegment(const LogSegment&) = delete;
    LogSegment& operator=(const LogSegment&) = delete;

    int64_t base_offset() const { return base_offset_; }
    int64_t size_bytes() const { return size_bytes_.load(std::memory_order_acquire); }
    int64_t next_offset() const { return next_offset_.load(std::memory_order_acquire); }
    bool empty() const { return size_bytes() == 0; }
    // Largest batch max timestamp and the last offset of the batch holding it.
    std::optional<TimestampAndOffset> max_timestamp() const;

    // The rolling rule for an append of `incoming_bytes` whose last offset is `last_offset`.
    bool should_roll(int64_t incoming_bytes, int64_t last_offset, int64_t now_ms,
                     const LogConfig& config) const;
    // Writes the batches at the end of the .log with one pwritev, BaseOffset rewritten from
    // `base_offset` on. All or nothing: on failure the .log is truncated back and no index entry
    // is added.
    Expected<void, StorageError> append(int64_t base_offset, std::span<const std::byte> batches,
                                        std::span<const protocol::BatchSummary> summaries,
                                        const LogConfig& config, int64_t now_ms);

    // The batch holding `offset`, scanning batches in [index hit, limit).
    Expected<std::optional<SegmentPosition>, StorageError> locate(int64_t offset,
                                                                  int64_t limit) const;
    // End of the whole batches starting at `start` that fit in max_bytes (== start if not even
    // one fits), never past `limit`.
    Expected<BatchesEnd, StorageError> batches_end(int64_t start, int64_t max_bytes,
                                                   int64_t limit) const;
    // First record with timestamp >= target in [0, limit).
    Expected<std::optional<TimestampAndOffset>, StorageError> find_timestamp(int64_t target,
                                                                             int64_t limit) const;
    Expected<FileSlice, StorageError> slice(int64_t position, int64_t length) const;

    // Cuts the .log back to its batches when durable mode grew the file past them (append), so
    // that a clean close leaves it exactly as long as its data, and syncs that size.
    Expected<void, StorageError> trim();
    // Seals the segment: final time index entry, indexes trimmed to their entries, disk blocks
    // reserved past the end of the .log released. Nothing is flushed.
    Expected<void, StorageError> seal();
    // fdatasync of the .log, both indexes and the .txnindex. For a sealed segment this may run on
    // any thread (the background flush after a roll) concurrently with readers and with appends to
    // the active segment: it changes nothing, it only waits for the disk.
    Expected<void, StorageError> flush();
    // Unlinks the files (.log, both indexes, .txnindex); open FileSlices keep the data readable.
    // Reads that come later (from a snapshot taken before the delete) get offset_out_of_range, as
    // the offset is then below the log start.
    void delete_files();

    // For the log cleaner's swap, before this segment's files are renamed away and a cleaned
    // segment takes its name: opens the .log (if it is not open) and keeps it open for the life
    // of this object, and loads the .txnindex entries, so that readers still holding this segment
    // keep reading its own (soon unlinked) files and never reopen a path that now names another
    // file. The indexes are mapped and need nothing.
    Expected<void, StorageError> pin_files();

    // The open .log: the active segment's own, or a sealed segment's, opened if needed.
    Expected<std::shared_ptr<LogFile>, StorageError> file() const;
    const std::filesystem::path& log_path() const { return log_path_; }
    const OffsetIndex& offset_index() const { return *offset_index_; }
    const TimeIndex& time_index() const { return *time_index_; }
    // The aborted transactions whose ABORT marker is in this segment (.txnindex). Appended to by
    // the partition's appender only; read by any thread.
    TransactionIndex& txn_index() const { return txn_index_; }

  private:
    LogSegment(int64_t base_offset, std::filesystem::path log_path, std::shared_ptr<LogFile> log)
        : base_offset_(base_offset),
          log_path_(std::move(log_path)),
          log_(std::move(log)),
          txn_index_(std::filesystem::path(log_path_).replace_extension(kTxnIndexSuffix)) {}
    // Opens log_ for the appender or for recovery, if it is not open (a trusted sealed segment
    // found implausible at start).
    Expected<void, StorageError> open_log();
    // Hands the .log over from the appender to the bounded cache of sealed files (`keep_open`)
    // or closes it.
    void release_log(bool keep_open);
    Expected<void, StorageError> create_indexes(const std::filesystem::path& dir,
                                                const LogConfig& config);
    // Replays the index rule for one batch about to be written at `position`.
    void index_batch(int64_t last_offset, int64_t max_timestamp, int64_t position,
                     int64_t size_bytes, const LogConfig& config);
    // Rebuilds indexes by validating the whole .log; truncates after the last valid batch.
    Expected<std::string, StorageError> recover(const std::filesystem::path& dir,
                                                const LogConfig& config);
    // Loads the indexes; the problem found, empty if they are fine.
    Expected<std::string, StorageError> load(const std::filesystem::path& dir,
                                             const LogConfig& config, bool active,
                                             std::optional<int64_t> next_base);

    const int64_t base_offset_;
    const std::filesystem::path log_path_;
    // Written by the appender only (open, seal) under file_mutex_; readers go through file().
    std::shared_ptr<LogFile> log_;
    mutable std::mutex file_mutex_;
    mutable std::weak_ptr<LogFile> sealed_file_;  // open while cached or read, else expired
    std::atomic<bool> deleted_{false};
    std::unique_ptr<OffsetIndex> offset_index_;
    std::unique_ptr<TimeIndex> time_index_;
    mutable TransactionIndex txn_index_;
    std::atomic<int64_t> size_bytes_{0};
    std::atomic<int64_t> next_offset_{0};
    mutable std::mutex max_timestamp_mutex_;
    std::optional<TimestampAndOffset> max_timestamp_;
    // Appender only.
    int64_t bytes_since_last_index_entry_ = 0;
    std::optional<int64_t> rolling_base_ms_;  // when the first batch was appended
    bool sealed_ = false;
    // Disk blocks are reserved ahead of the end of an active segment up to here (see append).
    int64_t reserved_end_ = 0;
    bool reserve_blocks_ = true;  // false once the file system has refused a reservation
    bool grown_ = false;          // the file size is reserved_end_, past the data (append)
};

}  // namespace skiff::storage
