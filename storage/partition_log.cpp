// PartitionLog: open, append, roll, retention, flush, close. The read side is in
// partition_log_read.cpp.
#include "storage/partition_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>

#include "storage/control_batch.h"
#include "storage/durable_file.h"
#include "storage/log_recovery.h"
#include "storage/producer_snapshot.h"
#include "storage/retention.h"
#include "storage/segment_names.h"
#include "storage/sync_failure.h"
#include "storage/sync_timing.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {
// Snapshots kept per partition: the newest is enough to restart, the older ones cover a torn
// tail that truncates the log below the newest.
constexpr size_t kSnapshotsKept = 3;
}  // namespace

PartitionLog::PartitionLog(fs::path dir, LogConfig config, Clock clock)
    : dir_(std::move(dir)), config_(std::move(config)), clock_(std::move(clock)) {}

Expected<std::unique_ptr<PartitionLog>, StorageError> PartitionLog::open(
    fs::path dir, LogConfig config, Clock clock, bool clean_shutdown, int64_t recovery_point,
    int64_t log_start_offset, bool cleaned_before) {
    // A compacted log's segments may end before the next begins (load_log).
    auto loaded = load_log(dir, config, clean_shutdown, recovery_point, log_start_offset,
                           cleaned_before || config.cleanup_compact);
    if (!loaded)
        return unexpected(loaded.error());
    std::unique_ptr<PartitionLog> log(
        new PartitionLog(std::move(dir), std::move(config), std::move(clock)));
    log->recovery_problems_ = std::move(loaded->problems);
    log->recovery_stats_ = loaded->stats;
    auto segments = std::make_shared<const SegmentSet>(std::move(loaded->segments));
    int64_t leo = segments->active()->next_offset();
    log->state_.segments = segments;
    log->state_.high_watermark = leo;
    log->state_.active_size = segments->active()->size_bytes();
    // Never below the first segment (deleted data stays deleted), never above the end.
    log->state_.log_start_offset =
        std::min(std::max(log_start_offset, (*segments)[0]->base_offset()), leo);
    // Unclean: recovered bytes are validated but maybe not on disk yet, so the recovery point
    // stays where the last flush left it, and the sealed segments above it are handed to the
    // background flush (flush_rolled) as if they had just been rolled.
    log->recovery_point_ = clean_shutdown ? leo : std::min(recovery_point, leo);
    log->flush_upto_ = segments->active()->base_offset();
    // Segments whose files load_log rewrote (indexes rebuilt, .log truncated) are not on disk
    // yet either, even below the recovery point.
    log->sealed_synced_ =
        std::min({clean_shutdown ? segments->active()->base_offset() : log->recovery_point_.load(),
                  loaded->unsynced_from, segments->active()->base_offset()});
    log->last_flush_ms_ = log->now();
    log->load_producer_state();
    log->state_.first_unstable = log->producers_.first_unstable_offset().value_or(-1);
    // What recovery kept is what the next sync or flush starts from; readers see all of it.
    log->durable_mode_ = log->config_.flush_interval_messages == 1;
    log->durable_end_ = leo;
    log->state_.durable_end = log->durable_mode_ ? leo : -1;
    return log;
}

PartitionLog::Snapshot PartitionLog::snapshot() const {
    std::lock_guard lock(state_mutex_);
    return state_;
}

void PartitionLog::publish(std::shared_ptr<const SegmentSet> segments) {
    std::lock_guard lock(state_mutex_);
    state_.segments = std::move(segments);
    state_.active_size = state_.segments->active()->size_bytes();
}

Expected<void, StorageError> PartitionLog::roll(int64_t now_ms) {
    auto current = snapshot().segments;
    const auto& old_active = current->active();
    // Create the new segment first: if that fails nothing has changed.
    auto created = LogSegment::create(dir_, old_active->next_offset(), config_);
    if (!created)
        return unexpected(created.error());
    auto sealed = old_active->seal();
    if (!sealed) {
        (*created)->delete_files();
        return sealed;
    }
    const int64_t new_base = (*created)->base_offset();
    publish(current->with_appended(std::move(*created)));
    write_producer_snapshot_at(old_active->next_offset());
    // The sealed segment is flushed off the append path (flush_rolled), as Kafka schedules
    // flushUptoOffsetExclusive after a roll: a roll does not wait for the disk.
    flush_upto_.store(new_base);
    return {};
}

void PartitionLog::advance(std::atomic<int64_t>& mark, int64_t offset) {
    int64_t current = mark.load();
    while (current < offset && !mark.compare_exchange_weak(current, offset)) {
    }
}

void PartitionLog::advance_recovery_point(int64_t offset) {
    advance(recovery_point_, offset);
}

Expected<void, StorageError> PartitionLog::sync_dir() const {
    auto synced = fsync_directory(dir_);
    if (!synced)
        report_sync_failure(synced.error());
    return synced;
}

Expected<bool, StorageError> PartitionLog::flush_rolled() {
    std::lock_guard lock(flush_mutex_);
    const int64_t target = flush_upto_.load();
    const int64_t before = recovery_point_.load();
    if (target <= before && target <= sealed_synced_.load())
        return false;
    SyncTimer timer(SyncKind::log_flush);
    // Every segment below `target` is sealed: the active one's base is at least `target`.
    auto snap = snapshot();
    const auto& set = *snap.segments;
    for (size_t i = set.floor(flush_start()).value_or(0);
         i < set.size() && set[i]->base_offset() < target; ++i) {
        auto flushed = set[i]->flush();
        if (!flushed)
            return unexpected(flushed.error());
    }
    if (auto synced = sync_dir(); !synced)
        return unexpected(synced.error());
    advance(sealed_synced_, target);
    advance_recovery_point(target);
    return recovery_point_.load() > before;
}

namespace {

// A refused producer-state check as the error the append answers.
StorageError verdict_error(SequenceCheck& check) {
    StorageErrc code = StorageErrc::invalid_argument;
    switch (check.verdict) {
        case SequenceVerdict::out_of_order_sequence:
            code = StorageErrc::out_of_order_sequence;
            break;
        case SequenceVerdict::invalid_producer_epoch:
            code = StorageErrc::invalid_producer_epoch;
            break;
        case SequenceVerdict::invalid_txn_state:
            code = StorageErrc::invalid_txn_state;
            break;
        case SequenceVerdict::transaction_coordinator_fenced:
            code = StorageErrc::transaction_coordinator_fenced;
            break;
        case SequenceVerdict::append:
        case SequenceVerdict::duplicate:
            break;
    }
    return StorageError{code, std::move(check.message)};
}

}  // namespace

Expected<AppendResult, StorageError> PartitionLog::append(
    std::span<const std::byte> batches, std::span<const protocol::BatchSummary> summaries,
    AppendOrigin origin, Durability durability) {
    std::lock_guard lock(append_mutex_);
    // A closed log belongs to a topic being deleted (or to a broker stopping): for the client
    // that is an unknown partition, which it retries after refreshing metadata, not a disk error.
    if (closed_)
        return unexpected(StorageError{StorageErrc::not_found, dir_.string() + " is closed"});
    if (summaries.empty())
        return unexpected(StorageError{StorageErrc::invalid_argument, "no batch to append"});
    // Cheap consistency of bytes and summaries; the batches themselves were validated.
    size_t total = 0;
    int64_t offsets = 0, records = 0;
    for (const auto& s : summaries) {
        if (s.size_bytes < protocol::kBatchHeaderSize || total + s.size_bytes > batches.size())
            return unexpected(StorageError{StorageErrc::invalid_argument,
                                           "batch summaries do not match the batch bytes"});
        const protocol::BatchHeader header = protocol::read_batch_header(batches.subspan(total));
        if (header.size_bytes() != s.size_bytes || s.last_offset_delta < 0)
            return unexpected(StorageError{StorageErrc::invalid_argument,
                                           "batch summaries do not match the batch bytes"});
        // Only transaction markers write control batches (Kafka's LogValidator).
        if (s.control || header.is_control())
            return unexpected(
                StorageError{StorageErrc::invalid_record, "control batches cannot be produced"});
        total += s.size_bytes;
        offsets += static_cast<int64_t>(s.last_offset_delta) + 1;
        records += s.record_count;
    }
    if (total != batches.size())
        return unexpected(
            StorageError{StorageErrc::invalid_argument, "bytes after the last summarized batch"});
    // Idempotence checks, under the append lock so a retry racing its original cannot append
    // twice. Several batches of one append are checked against a staged copy, so a producer's
    // second batch sees its first.
    std::optional<ProducerState> staged;
    if (summaries.size() > 1)
        staged = producers_;
    for (const auto& s : summaries) {
        ProducerState& state = staged ? *staged : producers_;
        SequenceCheck check = state.check(s, origin == AppendOrigin::client);
        if (check.verdict == SequenceVerdict::duplicate) {
            std::lock_guard state_lock(state_mutex_);
            return AppendResult{check.duplicate_of.first_offset, check.duplicate_of.last_offset,
                                state_.log_start_offset, true};
        }
        if (check.verdict != SequenceVerdict::append)
            return unexpected(verdict_error(check));
        if (staged)
            staged->record(s, 0);  // offsets are not known yet; only sequences matter here
    }
    const int64_t now_ms = now();
    auto active = snapshot().segments->active();
    const int64_t base = active->next_offset();
    const int64_t last = base + offsets - 1;
    if (active->should_roll(static_cast<int64_t>(total), last, now_ms, config_)) {
        auto rolled = roll(now_ms);
        if (!rolled)
            return unexpected(rolled.error());
        active = snapshot().segments->active();
    }
    auto appended = active->append(base, batches, summaries, config_, now_ms);
    if (!appended)
        return unexpected(appended.error());
    // Producer state first: readers must never see a new transactional batch below the high
    // watermark without the transaction it opens.
    int64_t first_offset = base;
    for (const auto& s : summaries) {
        if (config_.log_append_time) {
            // The producer's last timestamp is the batch's as stored (Kafka's: after validation),
            // as recovery reads it back from the stamped header.
            protocol::BatchSummary stamped = s;
            stamped.max_timestamp = now_ms;
            producers_.record(stamped, first_offset);
        } else {
            producers_.record(s, first_offset);
        }
        first_offset += static_cast<int64_t>(s.last_offset_delta) + 1;
    }
    int64_t log_start;
    {
        std::lock_guard state_lock(state_mutex_);
        state_.high_watermark = last + 1;
        state_.active_size = active->size_bytes();
        state_.first_unstable = producers_.first_unstable_offset().value_or(-1);
        log_start = state_.log_start_offset;
    }
    const int64_t append_time = config_.log_append_time ? now_ms : -1;
    if (durability == Durability::group_commit && durable_mode_)
        return AppendResult{base,  last, log_start,
                            false, true, append_time};  // sync_appended's to make durable
    unflushed_messages_ += records;
    if (unflushed_messages_ >= config_.flush_interval_messages)
        (void)flush_locked();
    return AppendResult{base, last, log_start, false, false, append_time};
}

Expected<AppendResult, StorageError> PartitionLog::append_marker(const TxnMarker& marker,
                                                                 Durability durability) {
    std::lock_guard lock(append_mutex_);
    if (closed_)
        return unexpected(StorageError{StorageErrc::not_found, dir_.string() + " is closed"});
    if (marker.producer_id < 0 || marker.producer_epoch < 0)
        return unexpected(
            StorageError{StorageErrc::invalid_argument, "a marker needs a producer id and epoch"});
    SequenceCheck check = producers_.check_marker(marker.producer_id, marker.producer_epoch,
                                                  marker.coordinator_epoch);
    if (check.verdict != SequenceVerdict::append)
        return unexpected(verdict_error(check));
    const int64_t now_ms = now();
    const int64_t timestamp = marker.timestamp_ms >= 0 ? marker.timestamp_ms : now_ms;
    const auto bytes = make_marker_batch(marker.producer_id, marker.producer_epoch,
                                         marker.coordinator_epoch, marker.commit, timestamp);
    const protocol::BatchSummary summary =
        marker_summary(marker.producer_id, marker.producer_epoch, timestamp);
    auto active = snapshot().segments->active();
    const int64_t offset = active->next_offset();
    if (active->should_roll(static_cast<int64_t>(bytes.size()), offset, now_ms, config_)) {
        auto rolled = roll(now_ms);
        if (!rolled)
            return unexpected(rolled.error());
        active = snapshot().segments->active();
    }
    auto appended = active->append(
        offset, bytes, std::span<const protocol::BatchSummary>(&summary, 1), config_, now_ms);
    if (!appended)
        return unexpected(appended.error());
    const auto completed = producers_.complete_txn(marker.producer_id, marker.producer_epoch,
                                                   marker.coordinator_epoch);
    Expected<void, StorageError> indexed;
    if (completed && !marker.commit) {
        // Kafka's lastStableOffset(CompletedTxn): the oldest transaction still open (this one
        // is closed now), else the offset after the marker.
        const int64_t lso = producers_.first_unstable_offset().value_or(offset + 1);
        indexed = active->txn_index().append({marker.producer_id, *completed, offset, lso});
    }
    int64_t log_start;
    {
        std::lock_guard state_lock(state_mutex_);
        state_.high_watermark = offset + 1;
        state_.active_size = active->size_bytes();
        state_.first_unstable = producers_.first_unstable_offset().value_or(-1);
        log_start = state_.log_start_offset;
    }
    if (!indexed)
        return unexpected(indexed.error());
    if (durability == Durability::group_commit && durable_mode_)
        return AppendResult{offset, offset, log_start, false, true};  // sync_appended's to do
    unflushed_messages_ += 1;
    if (unflushed_messages_ >= config_.flush_interval_messages)
        (void)flush_locked();
    return AppendResult{offset, offset, log_start};
}

Expected<void, StorageError> PartitionLog::flush_locked() {
    auto snap = snapshot();
    int64_t leo = snap.high_watermark;
    // Rolls happen under the append lock, held here: flush_upto_ cannot move meanwhile.
    const int64_t sealed = flush_upto_.load();
    if (recovery_point_.load() >= leo && sealed_synced_.load() >= sealed) {
        mark_durable(leo);
        return {};  // nothing written since the last flush (Kafka's flush skips it too)
    }
    SyncTimer timer(SyncKind::log_flush);
    // Every segment that may hold bytes after the recovery point, and every sealed one whose
    // seal is not on disk yet.
    auto from = snap.segments->floor(flush_start()).value_or(0);
    for (size_t i = from; i < snap.segments->size(); ++i) {
        auto flushed = (*snap.segments)[i]->flush();
        if (!flushed)
            return flushed;
    }
    if (auto synced = sync_dir(); !synced)
        return synced;
    advance(sealed_synced_, sealed);
    advance_recovery_point(leo);
    mark_durable(leo);
    unflushed_messages_ = 0;
    last_flush_ms_ = now();
    return {};
}

Expected<void, StorageError> PartitionLog::flush() {
    std::lock_guard lock(append_mutex_);
    return flush_locked();
}

void PartitionLog::flush_if_due() {
    std::lock_guard lock(append_mutex_);
    bool by_messages =
        unflushed_messages_ > 0 && unflushed_messages_ >= config_.flush_interval_messages;
    bool by_time = config_.flush_interval_ms != INT64_MAX &&
                   now() - last_flush_ms_ >= config_.flush_interval_ms;
    if (by_messages || by_time)
        (void)flush_locked();
}

size_t PartitionLog::apply_retention() {
    std::lock_guard lock(append_mutex_);
    // A closed log is a removed one whose dir was renamed: its segments' paths may name the
    // files of a log created since under the same name (a topic re-created, a restore of
    // broker/control), which deleting them would destroy.
    if (closed_)
        return 0;
    return apply_retention_locked();
}

Expected<int64_t, StorageError> PartitionLog::delete_records_before(int64_t offset) {
    std::lock_guard lock(append_mutex_);
    if (closed_)
        return unexpected(
            StorageError{StorageErrc::not_found, "log " + dir_.string() + " is closed"});
    int64_t start;
    {
        std::lock_guard state_lock(state_mutex_);
        const int64_t high_watermark = state_.visible_end();
        const int64_t target = offset == -1 ? high_watermark : offset;
        if (target < 0 || target > high_watermark)
            return unexpected(StorageError{StorageErrc::offset_out_of_range,
                                           "offset " + std::to_string(offset) +
                                               " is beyond the high watermark " +
                                               std::to_string(high_watermark)});
        state_.log_start_offset = std::max(state_.log_start_offset, target);
        start = state_.log_start_offset;
    }
    apply_retention_locked();
    return start;
}

size_t PartitionLog::apply_retention_locked() {
    auto snap = snapshot();
    const auto& set = *snap.segments;
    std::vector<SegmentRetentionInfo> sealed;
    int64_t total = 0;
    // Never a segment holding offsets at or above the last stable offset: an open transaction's
    // data (and what follows it) stays until the transaction is complete.
    const int64_t lso = snap.lso();
    bool deletable = true;
    for (size_t i = 0; i < set.size(); ++i) {
        total += snap.limit(i);
        if (i + 1 == set.size())
            break;
        if (!deletable || set[i + 1]->base_offset() > lso) {
            deletable = false;
            continue;
        }
        SegmentRetentionInfo info;
        info.size_bytes = set[i]->size_bytes();
        info.next_base_offset = set[i + 1]->base_offset();
        if (auto m = set[i]->max_timestamp()) {
            info.largest_timestamp_ms = m->timestamp;
        } else {
            struct stat st {};
            if (::stat(set[i]->log_path().c_str(), &st) == 0)
                info.largest_timestamp_ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000;
        }
        sealed.push_back(info);
    }
    size_t count = segments_to_delete(sealed, total, config_, now(), snap.log_start_offset);
    if (count == 0)
        return 0;
    auto remaining = set.without_oldest(count);
    {
        std::lock_guard state_lock(state_mutex_);
        state_.segments = remaining;
        state_.log_start_offset = std::max(state_.log_start_offset, (*remaining)[0]->base_offset());
    }
    // Readers holding slices keep the open files alive after the unlink.
    for (size_t i = 0; i < count; ++i)
        set[i]->delete_files();
    // Deleted segments that came back after a power cut would sit below the checkpointed log
    // start offset; harmless but never removed until the next retention pass. A failure here
    // only leaves that, so it is not an error of the deletion.
    (void)sync_dir();
    return count;
}

Expected<void, StorageError> PartitionLog::close() {
    std::lock_guard lock(append_mutex_);
    if (closed_)
        return {};
    // Durable mode's zeros past the data go first: a clean close leaves the .log exact.
    auto trimmed = snapshot().segments->active()->trim();
    auto flushed = trimmed ? flush_locked() : trimmed;
    if (!flushed) {
        fail_durable_waiters(flushed.error());
        return flushed;
    }
    auto sealed = snapshot().segments->active()->seal();
    if (!sealed)
        return sealed;
    // As Kafka's takeSnapshot: not again for an offset that already has one (a partition idle
    // since the last start), which made closing 10,000 idle partitions wait for 20,000 fsyncs.
    if (const int64_t leo = snapshot().high_watermark; leo != producer_snapshot_offset_)
        write_producer_snapshot_at(leo);
    closed_ = true;
    return {};
}

void PartitionLog::abandon() {
    std::lock_guard lock(append_mutex_);
    if (closed_)
        return;
    closed_ = true;
    fail_durable_waiters(StorageError{StorageErrc::io_error, "the log was removed"});
}

Expected<void, StorageError> PartitionLog::freeze(const FrozenVisitor& fn) {
    std::lock_guard lock(append_mutex_);
    if (closed_)
        return unexpected(StorageError{StorageErrc::io_error, "the log is closed"});
    if (auto flushed = flush_locked(); !flushed)
        return flushed;
    auto snap = snapshot();
    return fn(*snap.segments, snap.high_watermark, snap.log_start_offset);
}

void PartitionLog::update_config(LogConfig config) {
    std::lock_guard lock(append_mutex_);
    config_ = std::move(config);
    const bool durable = config_.flush_interval_messages == 1;
    if (durable == durable_mode_)
        return;
    // Into or out of durable mode: flushed first, so that nothing appended under one mode's
    // rules waits or shows under the other's.
    if (auto flushed = flush_locked(); !flushed)
        fail_durable_waiters(flushed.error());
    durable_mode_ = durable;
    std::lock_guard state_lock(state_mutex_);
    state_.durable_end = durable ? durable_end_.load() : -1;
}

LogConfig PartitionLog::config() const {
    std::lock_guard lock(append_mutex_);
    return config_;
}

std::shared_ptr<const SegmentSet> PartitionLog::segments() const {
    return snapshot().segments;
}

Expected<void, StorageError> PartitionLog::replace_segments(
    std::span<const std::shared_ptr<LogSegment>> old,
    const std::function<Expected<std::shared_ptr<LogSegment>, StorageError>()>& install) {
    std::lock_guard lock(append_mutex_);
    if (closed_)
        return unexpected(StorageError{StorageErrc::not_found, dir_.string() + " is closed"});
    auto current = snapshot().segments;
    const auto& list = current->segments();
    auto first = old.empty() ? list.end() : std::find(list.begin(), list.end(), old.front());
    if (first == list.end() || static_cast<size_t>(list.end() - first) <= old.size() ||
        !std::equal(old.begin(), old.end(), first))
        return unexpected(StorageError{
            StorageErrc::not_found, "the segments to replace are no longer in " + dir_.string()});
    auto installed = install();
    if (!installed)
        return unexpected(installed.error());
    std::vector<std::shared_ptr<LogSegment>> next(list.begin(), first);
    next.push_back(std::move(*installed));
    next.insert(next.end(), first + static_cast<ptrdiff_t>(old.size()), list.end());
    publish(std::make_shared<const SegmentSet>(std::move(next)));
    return {};
}

ProducerState::Entries PartitionLog::producer_entries() const {
    std::lock_guard lock(append_mutex_);
    return producers_.entries();
}

void PartitionLog::write_producer_snapshot_at(int64_t offset) {
    // A missing snapshot only costs a longer replay at the next open, so failures are not fatal.
    if (write_producer_snapshot(dir_, offset, producers_.entries()))
        producer_snapshot_offset_ = offset;
    prune_producer_snapshots(dir_, offset, kSnapshotsKept);
}

void PartitionLog::load_producer_state() {
    auto snap = snapshot();
    const int64_t leo = snap.high_watermark;
    prune_producer_snapshots(dir_, leo, kSnapshotsKept);  // drops those above a truncated end
    int64_t replay_from = (*snap.segments)[0]->base_offset();
    auto offsets = list_producer_snapshots(dir_);
    for (auto it = offsets.rbegin(); it != offsets.rend(); ++it) {
        // After an unclean stop, from a snapshot at or below the recovery point: the .txnindex
        // entries above it may be lost with the page cache, and the replay writes them back.
        if (*it > recovery_point_.load())
            continue;
        auto entries = read_producer_snapshot(dir_ / segment_file_name(*it, kSnapshotSuffix));
        if (!entries)
            continue;  // corrupt: fall back to an older one, or a full replay
        producers_.restore(std::move(*entries));
        replay_from = *it;
        producer_snapshot_offset_ = *it;
        break;
    }
    if (replay_from >= leo)
        return;
    // Only batch headers are read: producer id, epoch, base sequence and last offset delta are
    // all in the 61-byte header, so compressed batches need no decompression.
    const auto& set = *snap.segments;
    for (size_t i = 0; i < set.size(); ++i) {
        if (i + 1 < set.size() && set[i + 1]->base_offset() <= replay_from)
            continue;
        auto log = set[i]->file();
        if (!log)
            break;  // unreadable: replay what was read, as for a torn batch
        BatchScanner scanner(**log, 0, snap.limit(i));
        for (;;) {
            auto step = scanner.next(false);
            if (!step || !step->batch)
                break;
            if (step->batch->header.last_offset() >= replay_from)
                replay_batch(*set[i], **log, step->batch->header, step->batch->position);
        }
    }
}

void PartitionLog::replay_batch(const LogSegment& segment, const LogFile& file,
                                const protocol::BatchHeader& header, int64_t position) {
    if (!header.is_control() || header.producer_id < 0) {
        producers_.record(header);
        return;
    }
    // A control batch: its record says COMMIT or ABORT (markers are 78 bytes; read a little
    // more in case another writer added bytes, never the whole of a large batch).
    std::vector<std::byte> bytes(std::min<uint64_t>(header.size_bytes(), 4096));
    if (!file.read_at(position, bytes))
        return;
    auto record = parse_control_record(bytes);
    if (!record || (record->type != static_cast<int16_t>(ControlType::abort) &&
                    record->type != static_cast<int16_t>(ControlType::commit)))
        return;
    const auto completed = producers_.complete_txn(header.producer_id, header.producer_epoch,
                                                   record->coordinator_epoch);
    if (!completed || record->type != static_cast<int16_t>(ControlType::abort))
        return;
    auto entries = segment.txn_index().entries();
    if (!entries.empty() && entries.back().last_offset >= header.base_offset)
        return;  // the index has it already
    const int64_t lso = producers_.first_unstable_offset().value_or(header.base_offset + 1);
    (void)segment.txn_index().append({header.producer_id, *completed, header.base_offset, lso});
}

}  // namespace skiff::storage
