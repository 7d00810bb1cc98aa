// The log of one partition: a directory <log dir>/<topic>-<partition>/ of segments, only the
// last (active) one written to.
//
// Thread-safety: appends, rolls, retention, flushes and close are serialized by an internal
// append mutex (one appender at a time); flush_rolled() runs on a background thread without it
// and only syncs sealed segments. Readers (read, lookup, offset queries) may run on any
// thread concurrently: they copy a snapshot (segment set + high watermark + committed size of
// the active segment) under a short state lock and then work lock-free on immutable sealed
// segments and on the committed prefix of the active one, so they never see a partial batch
// and never block the appender for longer than that copy.
//
// Durability (Kafka's recovery point): recovery_point() is the offset below which the log is
// known to be on disk; after a crash only the segments from the one holding it are validated,
// the ones below are trusted. A roll seals the old active segment on the append path (final
// time index entry, indexes trimmed) but does not flush it: it records that everything below
// the new active segment's base offset is due (flush_pending()), and a background thread calls
// flush_rolled(), which fsyncs those sealed segments (.log, .index, .timeindex, .txnindex) and
// the directory and only then moves the recovery point to that base offset. flush() (a clean
// close, log.flush.interval.*) flushes everything up to the log end under the append lock.
//
// Whatever flushes first, a sealed segment is fsynced after its seal before the recovery point
// may count it as trusted: with log.flush.interval.messages=1 the recovery point reaches the
// roll's base offset before the roll (the last append flushed it), so the seal's index work
// would otherwise never reach the disk, and after a power cut a zeroed 10 MiB index would be
// trusted. sealed_synced_ tracks that, separately from the recovery point.
//
// Durable mode (flush.messages=1, Kafka's "flush every message"): nothing is visible to readers
// (high watermark, last stable offset, fetches, offset lookups) before it is on disk, as in Kafka
// where such an append flushes before the high watermark moves. Appends by the produce path use
// group commit (Durability::group_commit): sync_appended() fdatasyncs the .log files holding
// everything appended since the last sync, then moves the durable end, which is what readers
// see, and completes the when_durable() waiters. The indexes are not synced there: they stay
// above the recovery point, which only flushes (rolls, close, flush.ms) move, so recovery
// rebuilds them from the synced .log after a power cut.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "protocol/expected.h"
#include "protocol/record_batch.h"
#include "storage/file_slice.h"
#include "storage/log_config.h"
#include "storage/log_recovery.h"
#include "storage/partition_traffic.h"
#include "storage/producer_state.h"
#include "storage/segment_set.h"
#include "storage/storage_error.h"

namespace skiff::storage {

struct AppendResult {
    int64_t base_offset;
    int64_t last_offset;
    int64_t log_start_offset;
    // A retried idempotent batch already in the log: nothing was written and the offsets are
    // those it got the first time.
    bool duplicate = false;
    // Durability::group_commit in durable mode: the batches are written but not yet on disk nor
    // visible to readers; when_durable(last_offset + 1, ...) says when they are.
    bool sync_pending = false;
    // message.timestamp.type=LogAppendTime: the time the batches were stamped with (Produce's
    // log_append_time_ms); -1 for CreateTime and for a duplicate.
    int64_t log_append_time = -1;
};

// When an append reaches the disk.
//  - flush_settings: as the log's flush settings say, on the appending thread (Kafka's
//    flush.messages / flush.ms). Internal writes that no request waits for use this.
//  - group_commit: in durable mode (flush.messages=1) the append returns at once with
//    sync_pending, and a GroupCommitter thread makes it durable together with the appends made
//    meanwhile (storage/group_commit.h). In any other mode it is flush_settings. Produce,
//    offset commits, share-group state and the transaction coordinator's writes use this: the
//    request that caused them is answered once they are synced.
enum class Durability { flush_settings, group_commit };

// Who appends: a client (Produce; every idempotence check, control batches refused) or the
// group coordinator (its transactional offset batches: no sequence checks).
enum class AppendOrigin { client, coordinator };

// A transaction marker (control batch) for append_marker.
struct TxnMarker {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t coordinator_epoch = 0;
    bool commit = false;        // false: ABORT
    int64_t timestamp_ms = -1;  // -1: the log's clock
};

struct AbortedTxn {
    int64_t producer_id;
    int64_t first_offset;
    bool operator==(const AbortedTxn&) const = default;
};

enum class Isolation { read_uncommitted, read_committed };

// File ranges of whole batches, for sendfile(). Spans into following segments: one slice per
// segment touched.
struct ReadResult {
    std::vector<FileSlice> slices;
    int64_t total_bytes = 0;
    int64_t high_watermark = 0;
    int64_t log_start_offset = 0;
    int64_t last_stable_offset = 0;
    // The offsets the slices span: the first batch's base offset, and the offset of the batch
    // after the last one returned (the end of the range read when the read reached it). Both
    // -1 when nothing was returned. Their difference counts the records returned (offsets
    // removed by compaction included).
    int64_t first_offset = -1;
    int64_t next_offset = -1;
    // read_committed only: the aborted transactions overlapping the returned range, by
    // first_offset (Fetch's aborted_transactions).
    std::vector<AbortedTxn> aborted;
};

struct TimestampOffset {
    int64_t timestamp;
    int64_t offset;
};

struct LookupResult {
    int64_t segment_base_offset;
    int64_t position;  // where the scan started: the index entry's position, or 0
    int32_t batches_scanned;
    int64_t records_scanned;
    int64_t batch_position = 0;  // the batch holding the offset
};

class PartitionLog {
  public:
    static Expected<std::unique_ptr<PartitionLog>, StorageError> open(
        std::filesystem::path dir, LogConfig config, Clock clock = {}, bool clean_shutdown = false,
        int64_t recovery_point = 0, int64_t log_start_offset = 0, bool cleaned_before = false);

    // `batches` holds one or more validated v2 batches back to back; `summaries` one per batch.
    // All-or-nothing. Batches with a producer id go through the idempotence checks of
    // producer_state.h first, under the append lock: a duplicate is acknowledged with its
    // original offsets (`duplicate`), a sequence gap is out_of_order_sequence, a stale epoch
    // invalid_producer_epoch. Assigns consecutive offsets starting at the log end offset. The
    // rolling decision is made once for the whole append (as Kafka does for one produce request),
    // so batches of one append always share a segment.
    //
    // Transactions: a control batch from a client is invalid_record; a non-transactional batch
    // from a producer with an open transaction is invalid_txn_state; the first transactional
    // batch of a producer opens its transaction at its first offset (last_stable_offset()).
    // AppendOrigin::coordinator skips the duplicate and sequence checks (epochs still apply).
    Expected<AppendResult, StorageError> append(std::span<const std::byte> batches,
                                                std::span<const protocol::BatchSummary> summaries,
                                                AppendOrigin origin = AppendOrigin::client,
                                                Durability durability = Durability::flush_settings);
    // Appends one control batch in Kafka's format (storage/control_batch.h, 78 bytes). Marker
    // epoch below the producer's -> invalid_producer_epoch; coordinator epoch below the
    // producer's -> transaction_coordinator_fenced. Closes the producer's open transaction in
    // this partition (if any); an abort appends a .txnindex entry {pid, first offset, marker
    // offset, LSO} to the active segment. A marker for a producer without an open transaction
    // is appended and changes nothing else. `durability` as for append (the transaction
    // coordinator's markers use group_commit in durable mode).
    Expected<AppendResult, StorageError> append_marker(
        const TxnMarker& marker, Durability durability = Durability::flush_settings);
    // First offset of the oldest open transaction, else the high watermark.
    int64_t last_stable_offset() const;
    // offset in [log_start_offset, high_watermark]; offset == high_watermark -> empty result.
    // Outside that range -> offset_out_of_range. min_one_batch: return the first batch whole
    // even if > max_bytes. read_committed: only bytes below last_stable_offset() (an offset at
    // or above it reads nothing), and `aborted` lists the aborted transactions overlapping the
    // bytes returned, from the .txnindex files (Kafka's collectAbortedTransactions).
    Expected<ReadResult, StorageError> read(
        int64_t offset, int64_t max_bytes, bool min_one_batch,
        Isolation isolation = Isolation::read_uncommitted) const;
    // offset in [log_start_offset, high_watermark).
    Expected<LookupResult, StorageError> lookup(int64_t offset) const;
    std::optional<TimestampOffset> offset_for_timestamp(int64_t timestamp_ms) const;
    std::optional<TimestampOffset> max_timestamp() const;
    int64_t log_start_offset() const;
    int64_t log_end_offset() const;
    int64_t high_watermark() const;
    int64_t size_bytes() const;
    int64_t recovery_point() const { return recovery_point_.load(); }
    size_t segment_count() const;
    // What recovery repaired at open (empty after a clean start with sound files).
    const std::vector<std::string>& recovery_problems() const { return recovery_problems_; }
    // What loading the log at open cost (segments validated batch by batch).
    const RecoveryStats& recovery_stats() const { return recovery_stats_; }

    Expected<void, StorageError> flush();

    // Group commit (durable mode). `done` runs once everything below `end` is on disk: at once
    // (on this thread) if it is already, else on the thread of the sync that covers it, or of
    // the close or failure that ends the wait (with the error: the data may not be on disk).
    using SyncDone = std::function<void(const Expected<void, StorageError>&)>;
    void when_durable(int64_t end, SyncDone done);
    // Everything below this offset is on disk (durable mode; it only grows).
    int64_t durable_end() const { return durable_end_.load(); }
    // Makes everything appended so far durable (one fdatasync per .log touched since the last
    // sync, and the directory after a roll) and completes the waiters it covers. Called by a
    // GroupCommitter thread; one sync per log at a time, never under the append lock.
    void sync_appended();
    // flush.messages=1 (or log.flush.interval.messages=1 inherited).
    bool durable_mode() const { return durable_mode_.load(); }

    // True when sealed segments wait for flush_rolled(): above the recovery point, or below it
    // with their seal (or an index rebuilt at open) not yet fsynced.
    bool flush_pending() const {
        const int64_t due = flush_upto_.load();
        return due > recovery_point_.load() || due > sealed_synced_.load();
    }
    // The background half of a roll (Kafka's flushUptoOffsetExclusive): fsyncs every sealed
    // segment below the base offset of the newest roll, its indexes and the directory, then
    // moves the recovery point there. Never takes the append lock, so appends go on meanwhile.
    // Returns whether the recovery point moved. Sealed segments after an unclean open (validated
    // but maybe not on disk) are flushed the same way.
    Expected<bool, StorageError> flush_rolled();
    size_t apply_retention();
    // DeleteRecords: moves the log start offset up to `offset` (-1: the high watermark) and
    // deletes the segments wholly below it. Never moves it back. An offset above the high
    // watermark is offset_out_of_range. Returns the new log start offset (Kafka's low
    // watermark). The caller checkpoints it (LogManager::checkpoint_log_start_offsets).
    Expected<int64_t, StorageError> delete_records_before(int64_t offset);
    void flush_if_due();
    Expected<void, StorageError> close();
    // Closes the log without flushing or snapshotting anything: for a log whose files are about
    // to be deleted as a whole (broker/control's reset), where close()'s fsyncs would only cost
    // time. Appends are refused from then on; durable waiters get an error.
    void abandon();
    // Runs `fn` under the append lock after flushing everything up to the log end, so no append,
    // roll, retention or cleaner swap changes the files while it runs: broker/control's snapshots
    // link and copy the files of dir() inside `fn`. `fn` gets the segments (the last is the
    // active one) and the log end offset, which is also the recovery point then.
    using FrozenVisitor = std::function<Expected<void, StorageError>(
        const SegmentSet& segments, int64_t log_end_offset, int64_t log_start_offset)>;
    Expected<void, StorageError> freeze(const FrozenVisitor& fn);
    const std::filesystem::path& dir() const { return dir_; }
    void update_config(LogConfig config);
    LogConfig config() const;  // a copy
    // The current segments, oldest first (the log cleaner, tools): a snapshot that stays valid
    // however the log changes afterwards.
    std::shared_ptr<const SegmentSet> segments() const;
    // The log cleaner's swap (storage/cleaner/log_cleaner.h), under the append lock: checks that
    // `old` (non-empty) are still consecutive sealed segments of the log, runs `install` (which
    // renames the files on disk and opens the segment replacing them) and publishes the segment
    // list with `old` replaced by the one segment `install` returns. Readers holding an older
    // snapshot keep reading `old`. not_found if `old` is gone (retention or DeleteRecords
    // removed some meanwhile, or the log is closed): nothing was changed then.
    Expected<void, StorageError> replace_segments(
        std::span<const std::shared_ptr<LogSegment>> old,
        const std::function<Expected<std::shared_ptr<LogSegment>, StorageError>()>& install);
    // A copy of the idempotent-producer state (tests, tools).
    ProducerState::Entries producer_entries() const;

    // Client traffic counters (partition_traffic.h), updated by the broker's handlers.
    PartitionTraffic& traffic() const { return traffic_; }

  private:
    mutable PartitionTraffic traffic_;
    struct Snapshot {
        std::shared_ptr<const SegmentSet> segments;
        int64_t high_watermark = 0;
        int64_t log_start_offset = 0;
        int64_t active_size = 0;      // committed bytes of the active segment
        int64_t first_unstable = -1;  // first offset of the oldest open transaction, -1: none
        // Durable mode: the end of what is on disk, which readers may see; -1 in other modes.
        int64_t durable_end = -1;
        // `high_watermark` is the log end; what readers see ends here (the high watermark that
        // Fetch and ListOffsets report).
        int64_t visible_end() const {
            return durable_end >= 0 ? std::min(durable_end, high_watermark) : high_watermark;
        }
        int64_t lso() const {
            const int64_t end = visible_end();
            return first_unstable >= 0 ? std::min(first_unstable, end) : end;
        }
        // Bytes of segment i a reader may look at.
        int64_t limit(size_t i) const {
            return i + 1 == segments->size() ? active_size : (*segments)[i]->size_bytes();
        }
    };
    PartitionLog(std::filesystem::path dir, LogConfig config, Clock clock);
    Snapshot snapshot() const;
    void publish(std::shared_ptr<const SegmentSet> segments);  // call with append_mutex_ held
    Expected<void, StorageError> roll(int64_t now_ms);
    size_t apply_retention_locked();  // call with append_mutex_ held
    Expected<void, StorageError> flush_locked();
    // Everything below `end` is on disk: moves the durable end (and what readers see, in durable
    // mode) and completes the waiters it covers.
    void mark_durable(int64_t end);
    // A sync or close failed: every waiter gets the error.
    void fail_durable_waiters(const StorageError& error);
    void sync_appended_locked();  // sync_appended's work, with sync_mutex_ held
    // The recovery point only grows: flush_rolled and flush_locked race to move it.
    void advance_recovery_point(int64_t offset);
    static void advance(std::atomic<int64_t>& mark, int64_t offset);
    // The directory entries of segment files (created by a roll, removed by retention).
    Expected<void, StorageError> sync_dir() const;
    // Where flushing must start: the segment holding the recovery point, or an older sealed
    // segment whose seal is not yet on disk.
    int64_t flush_start() const { return std::min(recovery_point_.load(), sealed_synced_.load()); }
    // Newest snapshot at or below the log end, then the batch headers after it (open only).
    void load_producer_state();
    void write_producer_snapshot_at(int64_t offset);  // call with append_mutex_ held
    // Replay of one batch header (and of a control batch's record) into producers_, writing the
    // .txnindex entry of an abort that the segment's index lacks.
    void replay_batch(const LogSegment& segment, const LogFile& file,
                      const protocol::BatchHeader& header, int64_t position);
    // Aborted transactions for a read_committed read of [offset, upper_bound).
    std::vector<AbortedTxn> collect_aborted(const Snapshot& snap, size_t first_segment,
                                            int64_t offset, int64_t upper_bound) const;
    int64_t now() const { return clock_ ? clock_() : wall_clock_ms(); }

    std::filesystem::path dir_;
    LogConfig config_;
    Clock clock_;
    std::vector<std::string> recovery_problems_;
    RecoveryStats recovery_stats_;

    mutable std::mutex append_mutex_;
    mutable std::mutex state_mutex_;
    Snapshot state_;  // guarded by state_mutex_

    std::atomic<int64_t> recovery_point_{0};
    // Everything below this is sealed and due for flush_rolled(); set by roll.
    std::atomic<int64_t> flush_upto_{0};
    // Every sealed segment below this was fsynced after it was sealed (only grows).
    std::atomic<int64_t> sealed_synced_{0};
    std::mutex flush_mutex_;  // one flush_rolled at a time
    // Appender only (append_mutex_).
    int64_t unflushed_messages_ = 0;
    int64_t producer_snapshot_offset_ = -1;  // the newest producer snapshot on disk
    int64_t last_flush_ms_ = 0;
    std::atomic<bool> closed_{false};  // written under the append lock, read by syncs too
    ProducerState producers_;

    // Group commit (partition_log_sync.cpp).
    std::atomic<bool> durable_mode_{false};
    std::atomic<int64_t> durable_end_{0};  // everything below is on disk (only grows)
    std::mutex sync_mutex_;                // one sync_appended at a time
    int64_t dir_synced_base_ = -1;         // active segment when the dir was last synced
    struct SyncWaiter {
        int64_t end;
        SyncDone done;
    };
    std::mutex waiters_mutex_;
    std::vector<SyncWaiter> sync_waiters_;  // guarded by waiters_mutex_
};

}  // namespace skiff::storage
