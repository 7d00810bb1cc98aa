#include "broker/txn/transaction_coordinator.h"
#include "broker/topics/internal_log.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "broker/snapshot_log_sizing.h"
#include "broker/txn/transaction_records.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"

namespace skiff::broker::txn {
namespace {

using protocol::ErrorCode;

constexpr size_t kRecordsPerBatch = 500;
constexpr int16_t kMaxEpoch = 32767;

TxnLogValue to_value(const TxnMetadata& m) {
    TxnLogValue v;
    v.producer_id = m.producer_id;
    v.producer_epoch = m.producer_epoch;
    v.transaction_timeout_ms = m.timeout_ms;
    v.transaction_status = static_cast<int8_t>(m.state);
    if (m.state != TxnState::empty) {
        std::vector<TxnLogPartitions> topics;
        for (const auto& tp : m.partitions) {
            if (topics.empty() || topics.back().topic != tp.topic)
                topics.push_back({tp.topic, {}});
            topics.back().partition_ids.push_back(tp.partition);
        }
        v.transaction_partitions = std::move(topics);
    }
    v.transaction_last_update_timestamp_ms = m.last_update_timestamp_ms;
    v.transaction_start_timestamp_ms = m.start_timestamp_ms;
    // Tagged (version 1 only), written when not Kafka's default.
    if (m.previous_producer_id != -1)
        v.previous_producer_id = m.previous_producer_id;
    if (m.next_producer_id != -1)
        v.next_producer_id = m.next_producer_id;
    if (m.client_transaction_version != 0)
        v.client_transaction_version = m.client_transaction_version;
    return v;
}

// Whether a marker write is finished with (Kafka's TransactionMarkerRequestCompletionHandler):
// written; the partition is gone (Kafka skips partitions without a leader: deleted topics); the
// producer moved on (a newer epoch or coordinator epoch in the partition); or the partition
// cannot hold markers. Anything else (storage trouble) is retried.
bool marker_finished(ErrorCode e) {
    switch (e) {
        case ErrorCode::none:
        case ErrorCode::unknown_topic_or_partition:
        case ErrorCode::invalid_producer_epoch:
        case ErrorCode::transaction_coordinator_fenced:
        case ErrorCode::unsupported_for_message_format:
        case ErrorCode::unsupported_version:
            return true;
        default:
            return false;
    }
}

int16_t bumped(int16_t epoch) {
    return epoch < kMaxEpoch ? static_cast<int16_t>(epoch + 1) : epoch;
}

}  // namespace

TransactionCoordinator::TransactionCoordinator(storage::PartitionLog& log, storage::LogConfig base,
                                               TxnCoordinatorConfig config,
                                               TxnCoordinatorHooks hooks)
    : log_(&log), base_(std::move(base)), config_(config), hooks_(std::move(hooks)) {}

Expected<std::unique_ptr<TransactionCoordinator>, std::string> TransactionCoordinator::open(
    storage::PartitionLog& log, storage::LogConfig base, TxnCoordinatorConfig config,
    TxnCoordinatorHooks hooks) {
    std::unique_ptr<TransactionCoordinator> c(
        new TransactionCoordinator(log, std::move(base), config, std::move(hooks)));
    if (auto loaded = c->load(); !loaded)
        return unexpected(loaded.error());
    return c;
}

Expected<void, std::string> TransactionCoordinator::load() {
    segment_bytes_ = static_cast<int64_t>(base_.segment_bytes);
    auto log_config = base_;
    log_config.retention_bytes = 2 * segment_bytes_;
    log_config.retention_ms = -1;  // age must never delete the only record of an id
    log_->update_config(log_config);
    if (auto replayed = replay(); !replayed)
        return unexpected(replayed.error());
    // A crash between Prepare and Complete: finish the commit or abort now (markers again, which
    // partitions that already have them treat as a marker without an open transaction).
    std::vector<Completion> unfinished;
    {
        std::lock_guard lock(mutex_);
        for (auto& [id, entry] : entries_) {
            const auto& m = entry.metadata;
            if (!is_prepare(m.state))
                continue;
            entry.pending = true;
            unfinished.push_back({id,
                                  {m.producer_id, m.producer_epoch, kCoordinatorEpoch,
                                   m.state == TxnState::prepare_commit},
                                  {m.partitions.begin(), m.partitions.end()}});
        }
    }
    for (const auto& u : unfinished)
        complete(u);
    if (!unfinished.empty())
        spdlog::info("completed {} transaction(s) left prepared in {}", unfinished.size(),
                     kTransactionStateTopic);
    std::lock_guard lock(mutex_);
    if (!entries_.empty())
        if (auto s = snapshot_locked(); !s)
            return unexpected(s.error());
    return {};
}

Expected<void, std::string> TransactionCoordinator::reopen(storage::PartitionLog& log) {
    {
        std::lock_guard lock(mutex_);
        log_ = &log;
        entries_.clear();
        bytes_since_snapshot_ = 0;
    }
    return load();
}

int64_t TransactionCoordinator::now_ms() const {
    return hooks_.clock_ms ? hooks_.clock_ms() : storage::wall_clock_ms();
}

Expected<void, std::string> TransactionCoordinator::replay() {
    std::lock_guard lock(mutex_);
    const std::string topic = kTransactionStateTopic;
    const auto visit =
        [&](const protocol::BatchHeader&,
            const std::vector<protocol::Record>& records) -> Expected<void, std::string> {
        for (const auto& r : records) {
            if (!r.key)
                continue;
            auto type = txn_key_type(*r.key);
            if (!type || *type != 0)
                continue;  // not a transaction record (Kafka skips these too)
            auto id = decode_txn_key(*r.key);
            if (!id)
                return unexpected("malformed key in " + topic + ": " + id.error().message);
            if (!r.value) {
                entries_.erase(*id);
                continue;
            }
            auto value = decode_txn_value(*r.value);
            if (!value)
                return unexpected("malformed value in " + topic + ": " + value.error().message);
            auto state = state_from_id(value->transaction_status);
            if (!state)
                return unexpected("unknown transaction state " +
                                  std::to_string(value->transaction_status) + " in " + topic);
            TxnMetadata m;
            m.producer_id = value->producer_id;
            m.producer_epoch = value->producer_epoch;
            m.timeout_ms = value->transaction_timeout_ms;
            m.state = *state;
            if (value->transaction_partitions)
                for (const auto& t : *value->transaction_partitions)
                    for (int32_t p : t.partition_ids)
                        m.partitions.insert({t.topic, p});
            m.last_update_timestamp_ms = value->transaction_last_update_timestamp_ms;
            m.start_timestamp_ms = value->transaction_start_timestamp_ms;
            m.previous_producer_id = value->previous_producer_id.value_or(-1);
            m.next_producer_id = value->next_producer_id.value_or(-1);
            m.client_transaction_version = value->client_transaction_version.value_or(0);
            if (m.state == TxnState::dead)
                entries_.erase(*id);
            else
                entries_[*id] = Entry{std::move(m), false};
        }
        return {};
    };
    return replay_internal_log(*log_, topic, visit);
}

Expected<int64_t, std::string> TransactionCoordinator::append_records_locked(
    const std::vector<std::pair<std::string, const TxnMetadata*>>& records,
    storage::Durability durability) {
    if (records.empty())
        return -1;
    const int64_t now = now_ms();
    const int16_t value_version = log_value_version();
    std::vector<std::byte> batches;
    for (size_t first = 0; first < records.size(); first += kRecordsPerBatch) {
        std::vector<protocol::RecordSpec> specs;
        const size_t last = std::min(records.size(), first + kRecordsPerBatch);
        for (size_t i = first; i < last; ++i) {
            protocol::RecordSpec r;
            r.key = encode_txn_key(records[i].first);
            if (records[i].second)
                r.value = encode_txn_value(to_value(*records[i].second), value_version);
            specs.push_back(std::move(r));
        }
        protocol::BatchSpec spec;
        spec.base_timestamp = now;
        auto bytes = protocol::build_record_batch(spec, specs);
        batches.insert(batches.end(), bytes.begin(), bytes.end());
    }
    auto summaries = protocol::validate_batches(batches);
    if (!summaries)
        return unexpected("building a transaction log batch: " + summaries.error().message);
    auto appended = log_->append(batches, *summaries, storage::AppendOrigin::client, durability);
    if (!appended)
        return unexpected("appending to " + std::string(kTransactionStateTopic) + ": " +
                          appended.error().message);
    bytes_since_snapshot_ += static_cast<int64_t>(batches.size());
    return appended->sync_pending ? appended->last_offset + 1 : int64_t{-1};
}

ErrorCode TransactionCoordinator::write_locked(const std::string& id, Entry& entry,
                                               TxnMetadata next, Deferred* deferred) {
    auto appended =
        append_records_locked({{id, &next}}, deferred ? storage::Durability::group_commit
                                                      : storage::Durability::flush_settings);
    if (!appended) {
        // Kafka maps storage failures of its log to retriable coordinator errors.
        spdlog::error("transactional id '{}': {}", id, appended.error());
        return ErrorCode::coordinator_not_available;
    }
    entry.metadata = std::move(next);
    entry.written_end = *appended;
    if (*appended >= 0)
        wait_for_locked(*appended, *deferred);
    // A snapshot flushes on this thread even in durable mode: it is written once per half
    // segment of records, and retention must never pass it before it is on disk.
    maybe_snapshot_locked();
    return ErrorCode::none;
}

void TransactionCoordinator::add_unsynced_locked(const Entry& entry, Deferred* deferred) const {
    if (deferred && entry.written_end >= 0 && log_->durable_end() < entry.written_end)
        wait_for_locked(entry.written_end, *deferred);
}

void TransactionCoordinator::wait_for_locked(int64_t end, Deferred& deferred) const {
    // One wait per log: a sync below `end` covers an earlier write of the same request.
    for (auto& sync : deferred.syncs)
        if (sync.log == log_) {
            sync.end = std::max(sync.end, end);
            return;
        }
    deferred.syncs.push_back({log_, end});
}

void TransactionCoordinator::maybe_snapshot_locked() {
    if (bytes_since_snapshot_ >= segment_bytes_ / 2)
        (void)snapshot_locked();  // a failed snapshot is retried after the next transition
}

Expected<void, std::string> TransactionCoordinator::snapshot_locked() {
    std::vector<std::pair<std::string, const TxnMetadata*>> records;
    records.reserve(entries_.size());
    for (const auto& [id, entry] : entries_)
        records.emplace_back(id, &entry.metadata);
    const int64_t before = bytes_since_snapshot_;
    if (auto appended = append_records_locked(records); !appended)
        return unexpected(appended.error());
    const int64_t snapshot_bytes = bytes_since_snapshot_ - before;
    bytes_since_snapshot_ = 0;
    ++snapshots_written_;
    fit_segments_to_snapshot(*log_, base_, snapshot_bytes, segment_bytes_);
    return {};
}

int16_t TransactionCoordinator::log_value_version() const {
    // Kafka's TransactionVersion.transactionLogValueVersion: flexible values from level 1 on.
    const int16_t level = hooks_.transaction_version ? hooks_.transaction_version() : 0;
    return level >= 1 ? int16_t{1} : int16_t{0};
}

ErrorCode TransactionCoordinator::prepare_locked(const std::string& id, Entry& entry, bool commit,
                                                 int16_t epoch, Completion& out, Deferred* deferred,
                                                 bool v2_bump, int64_t next_producer_id) {
    TxnMetadata next = entry.metadata;
    next.state = commit ? TxnState::prepare_commit : TxnState::prepare_abort;
    if (v2_bump) {
        next.last_producer_epoch = next.producer_epoch;  // a retry with it is answered again
        // Recorded in the Prepare record: a completion after a restart must move to the next
        // producer id as this one would.
        next.client_transaction_version = std::max<int16_t>(next.client_transaction_version, 2);
    } else if (epoch != next.producer_epoch)
        next.last_producer_epoch = -1;  // a fence: no retry of the old epoch is honoured
    next.next_producer_id = next_producer_id;
    next.producer_epoch = epoch;
    next.last_update_timestamp_ms = now_ms();
    if (auto e = write_locked(id, entry, std::move(next), deferred); e != ErrorCode::none)
        return e;
    entry.pending = true;
    const auto& m = entry.metadata;
    out = Completion{id,
                     {m.producer_id, m.producer_epoch, kCoordinatorEpoch, commit},
                     {m.partitions.begin(), m.partitions.end()}};
    return ErrorCode::none;
}

std::vector<storage::TopicPartition> TransactionCoordinator::write_each_marker(
    const Completion& c, std::vector<MarkerWrite>* written) {
    std::vector<storage::TopicPartition> unfinished;
    std::vector<storage::PendingSync> unsynced;
    for (const auto& tp : c.partitions) {
        unsynced.clear();
        const ErrorCode e = hooks_.write_marker
                                ? hooks_.write_marker(tp, c.marker, written ? &unsynced : nullptr)
                                : ErrorCode::none;
        if (!marker_finished(e)) {
            spdlog::warn("transactional id '{}': {} marker for {}-{} failed ({}), retried later",
                         c.transactional_id, c.marker.commit ? "COMMIT" : "ABORT", tp.topic,
                         tp.partition, protocol::error_name(e));
            unfinished.push_back(tp);
        }
        for (const auto& sync : unsynced)
            written->push_back({tp, sync});
    }
    return unfinished;
}

std::vector<storage::TopicPartition> TransactionCoordinator::write_markers(
    const Completion& c, std::vector<MarkerWrite>& written) {
    return write_each_marker(c, &written);
}

void TransactionCoordinator::finish(const Completion& c,
                                    const std::vector<storage::TopicPartition>& unfinished,
                                    Deferred* deferred) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(c.transactional_id);
    if (it == entries_.end())
        return;
    Entry& entry = it->second;
    entry.pending = false;
    TxnMetadata& m = entry.metadata;
    if (m.producer_id != c.marker.producer_id || m.producer_epoch != c.marker.producer_epoch ||
        !is_prepare(m.state))
        return;
    if (!unfinished.empty()) {
        // Only these still need their marker (as DescribeTransactions shows during PrepareX).
        m.partitions = {unfinished.begin(), unfinished.end()};
        return;
    }
    TxnMetadata next = m;
    next.state = c.marker.commit ? TxnState::complete_commit : TxnState::complete_abort;
    next.partitions.clear();
    if (m.client_transaction_version >= 2) {
        // Kafka's prepareComplete: only the epoch the markers carry is honoured from now on,
        // and an exhausted epoch moves to the id reserved by the EndTxn.
        next.last_producer_epoch = m.producer_epoch;
        if (m.next_producer_id != -1) {
            next.previous_producer_id = m.producer_id;
            next.producer_id = m.next_producer_id;
            next.producer_epoch = 0;
        }
    }
    next.next_producer_id = -1;
    next.last_update_timestamp_ms = now_ms();
    (void)write_locked(c.transactional_id, entry, std::move(next), deferred);
}

void TransactionCoordinator::abandon(const Completion& c) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(c.transactional_id);
    if (it != entries_.end() && it->second.metadata.producer_id == c.marker.producer_id &&
        it->second.metadata.producer_epoch == c.marker.producer_epoch)
        it->second.pending = false;
}

void TransactionCoordinator::complete(const Completion& c) {
    finish(c, write_each_marker(c, nullptr), nullptr);
}

void TransactionCoordinator::complete_or_defer(Completion c, Deferred* deferred) {
    if (deferred)
        deferred->completion = std::move(c);
    else
        complete(c);
}

InitProducerIdResult TransactionCoordinator::init_producer_id(const std::string& id,
                                                              int32_t timeout_ms,
                                                              int64_t expected_pid,
                                                              int16_t expected_epoch,
                                                              Deferred* deferred) {
    if (id.empty())
        return {ErrorCode::invalid_request};
    if ((expected_pid == -1) != (expected_epoch == -1))
        return {ErrorCode::invalid_request};
    if (timeout_ms <= 0 || timeout_ms > config_.max_timeout_ms)
        return {ErrorCode::invalid_transaction_timeout};
    const bool expectation = expected_pid != -1;
    Completion fence;
    {
        std::lock_guard lock(mutex_);
        auto it = entries_.find(id);
        Entry created;
        const bool is_new = it == entries_.end();
        if (is_new) {
            created.metadata.producer_id = hooks_.next_producer_id ? hooks_.next_producer_id() : -1;
            if (created.metadata.producer_id < 0)
                return {ErrorCode::coordinator_not_available};  // retriable: disk trouble
            created.metadata.timeout_ms = timeout_ms;
        }
        Entry& entry = is_new ? created : it->second;
        const TxnMetadata& m = entry.metadata;
        if (entry.pending)
            return {ErrorCode::concurrent_transactions};
        if (expectation && m.producer_epoch != -1 && expected_pid != m.producer_id &&
            !(expected_pid == m.previous_producer_id && expected_epoch >= kMaxBumpableEpoch))
            return {ErrorCode::producer_fenced};
        if (is_prepare(m.state))
            return {ErrorCode::concurrent_transactions};
        if (m.state == TxnState::ongoing) {
            // A new incarnation while the old one has a transaction open: fence the old one
            // (bumped epoch) and abort its transaction; the client retries and gets the epoch
            // after the abort completes.
            if (auto e =
                    prepare_locked(id, entry, false, bumped(m.producer_epoch), fence, deferred);
                e != ErrorCode::none)
                return {e};
        } else {
            if (!is_idle(m.state))
                return {ErrorCode::invalid_txn_state};
            TxnMetadata next = m;
            if (m.producer_epoch >= kMaxBumpableEpoch &&
                (!expectation || expected_epoch == m.producer_epoch)) {
                const int64_t pid = hooks_.next_producer_id ? hooks_.next_producer_id() : -1;
                if (pid < 0)
                    return {ErrorCode::coordinator_not_available};
                next.previous_producer_id = m.producer_id;
                next.producer_id = pid;
                next.producer_epoch = 0;
                next.last_producer_epoch = expectation ? m.producer_epoch : int16_t{-1};
            } else if (!expectation) {
                next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
                next.last_producer_epoch = -1;
            } else if (m.producer_epoch == -1 || expected_epoch == m.producer_epoch) {
                next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
                next.last_producer_epoch = m.producer_epoch;
            } else if (expected_epoch != m.last_producer_epoch) {
                return {ErrorCode::producer_fenced};
            }  // else: a retry of a call that succeeded; the epoch stays
            next.state = TxnState::empty;
            next.partitions.clear();
            next.start_timestamp_ms = -1;
            next.timeout_ms = timeout_ms;
            next.last_update_timestamp_ms = now_ms();
            const InitProducerIdResult answer{ErrorCode::none, next.producer_id,
                                              next.producer_epoch};
            // In the map before the write, so that a snapshot the write triggers includes it.
            Entry& stored = is_new ? entries_.emplace(id, std::move(created)).first->second : entry;
            if (auto e = write_locked(id, stored, std::move(next), deferred);
                e != ErrorCode::none) {
                if (is_new)
                    entries_.erase(id);
                return {e};
            }
            return answer;
        }
    }
    complete_or_defer(std::move(fence), deferred);
    return {ErrorCode::concurrent_transactions};
}

ErrorCode TransactionCoordinator::add_partitions(
    const std::string& id, int64_t producer_id, int16_t producer_epoch,
    const std::vector<storage::TopicPartition>& partitions, int16_t client_transaction_version,
    Deferred* deferred) {
    if (id.empty())
        return ErrorCode::invalid_request;
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end())
        return ErrorCode::invalid_producer_id_mapping;
    Entry& entry = it->second;
    const TxnMetadata& m = entry.metadata;
    if (entry.pending)
        return ErrorCode::concurrent_transactions;
    if (producer_id != m.producer_id)
        return ErrorCode::invalid_producer_id_mapping;
    if (producer_epoch != m.producer_epoch)
        return ErrorCode::producer_fenced;
    if (is_prepare(m.state))
        return ErrorCode::concurrent_transactions;
    if (m.state != TxnState::ongoing && !is_idle(m.state))
        return ErrorCode::invalid_txn_state;
    if (m.state == TxnState::ongoing &&
        std::all_of(partitions.begin(), partitions.end(),
                    [&](const auto& tp) { return m.partitions.count(tp) > 0; })) {
        add_unsynced_locked(entry, deferred);  // a retry answered before its add is on disk
        return ErrorCode::none;
    }
    TxnMetadata next = m;
    const int64_t now = now_ms();
    if (is_idle(m.state))
        next.start_timestamp_ms = now;
    next.state = TxnState::ongoing;
    next.partitions.insert(partitions.begin(), partitions.end());
    next.last_update_timestamp_ms = now;
    next.client_transaction_version = client_transaction_version;
    return write_locked(id, entry, std::move(next), deferred);
}

EndTxnResult TransactionCoordinator::end_transaction(const std::string& id, int64_t producer_id,
                                                     int16_t producer_epoch, bool commit,
                                                     int16_t client_transaction_version,
                                                     Deferred* deferred) {
    if (id.empty())
        return {ErrorCode::invalid_request};
    Completion c;
    EndTxnResult answer;
    {
        std::lock_guard lock(mutex_);
        auto it = entries_.find(id);
        if (it == entries_.end())
            return {ErrorCode::invalid_producer_id_mapping};
        Entry& entry = it->second;
        const TxnMetadata& m = entry.metadata;
        // Transactions V2 (Kafka's TransactionCoordinator.endTransaction): the epoch moves on
        // every transaction, so "same epoch" means the next EndTxn, and a retry is recognised by
        // the epoch before the bump (or the old id and its last epoch after an overflow).
        const bool v2 = m.client_transaction_version >= 2;
        const bool retry_on_bump = v2 && m.producer_epoch == producer_epoch + 1;
        const bool retry_on_overflow = v2 && m.previous_producer_id == producer_id &&
                                       producer_id != m.producer_id &&
                                       producer_epoch == kMaxBumpableEpoch && m.producer_epoch == 0;
        bool valid_epoch = producer_epoch == m.producer_epoch;
        if (v2) {
            if (is_prepare(m.state))
                valid_epoch = retry_on_bump;
            else if (m.state == TxnState::complete_commit || m.state == TxnState::complete_abort)
                valid_epoch = retry_on_bump || retry_on_overflow;
        }
        if (producer_id != m.producer_id && !retry_on_overflow)
            return {ErrorCode::invalid_producer_id_mapping};
        if (!valid_epoch)
            return {ErrorCode::producer_fenced};
        if (entry.pending)
            return {ErrorCode::concurrent_transactions};
        const EndTxnResult current{ErrorCode::none, m.producer_id, m.producer_epoch};
        switch (m.state) {
            case TxnState::ongoing: {
                const bool bump = client_transaction_version >= 2;
                int64_t next_pid = -1;
                if (bump && m.producer_epoch >= kMaxBumpableEpoch) {
                    next_pid = hooks_.next_producer_id ? hooks_.next_producer_id() : -1;
                    if (next_pid < 0)
                        return {ErrorCode::coordinator_not_available};
                }
                const int16_t epoch = bump ? bumped(m.producer_epoch) : m.producer_epoch;
                if (auto e = prepare_locked(id, entry, commit, epoch, c, deferred, bump, next_pid);
                    e != ErrorCode::none)
                    return {e};
                answer = next_pid != -1 ? EndTxnResult{ErrorCode::none, next_pid, 0}
                                        : EndTxnResult{ErrorCode::none, producer_id, epoch};
                break;
            }
            case TxnState::prepare_commit:
                return {commit ? ErrorCode::concurrent_transactions : ErrorCode::invalid_txn_state};
            case TxnState::prepare_abort:
                return {commit ? ErrorCode::invalid_txn_state : ErrorCode::concurrent_transactions};
            case TxnState::complete_commit:
            case TxnState::complete_abort:
                if (commit != (m.state == TxnState::complete_commit))
                    return {ErrorCode::invalid_txn_state};
                add_unsynced_locked(entry, deferred);  // a retry: answered once it is on disk
                return current;
            default:
                return {ErrorCode::invalid_txn_state};
        }
    }
    complete_or_defer(std::move(c), deferred);
    return answer;
}

ErrorCode TransactionCoordinator::verify_partitions(
    const std::string& id, int64_t producer_id, int16_t producer_epoch,
    const std::vector<storage::TopicPartition>& partitions, std::vector<ErrorCode>& out) const {
    out.clear();
    if (id.empty())
        return ErrorCode::invalid_request;
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end())
        return ErrorCode::invalid_producer_id_mapping;
    const TxnMetadata& m = it->second.metadata;
    if (producer_id != m.producer_id)
        return ErrorCode::invalid_producer_id_mapping;
    if (producer_epoch != m.producer_epoch)
        return ErrorCode::producer_fenced;
    if (is_prepare(m.state))
        return ErrorCode::concurrent_transactions;
    out.reserve(partitions.size());
    for (const auto& tp : partitions)
        out.push_back(m.partitions.count(tp) > 0 ? ErrorCode::none
                                                 : ErrorCode::transaction_abortable);
    return ErrorCode::none;
}

ErrorCode TransactionCoordinator::verify_partition(std::string_view id, int64_t producer_id,
                                                   int16_t producer_epoch,
                                                   const storage::TopicPartition& tp,
                                                   Deferred* deferred) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end())
        return ErrorCode::invalid_producer_id_mapping;
    const Entry& entry = it->second;
    const TxnMetadata& m = entry.metadata;
    if (producer_id != m.producer_id)
        return ErrorCode::invalid_producer_id_mapping;
    if (producer_epoch != m.producer_epoch)
        return ErrorCode::invalid_producer_epoch;
    if (entry.pending || is_prepare(m.state))
        return ErrorCode::not_enough_replicas;
    if (m.state == TxnState::ongoing && m.partitions.count(tp) > 0) {
        add_unsynced_locked(entry, deferred);
        return ErrorCode::none;
    }
    return ErrorCode::invalid_txn_state;
}

size_t TransactionCoordinator::abort_timed_out() {
    std::vector<Completion> jobs;
    size_t aborted = 0;
    {
        std::lock_guard lock(mutex_);
        const int64_t now = now_ms();
        for (auto& [id, entry] : entries_) {
            if (entry.pending)
                continue;
            const TxnMetadata& m = entry.metadata;
            if (m.state == TxnState::ongoing && m.start_timestamp_ms + m.timeout_ms < now) {
                Completion c;
                if (prepare_locked(id, entry, false, bumped(m.producer_epoch), c, nullptr) !=
                    ErrorCode::none)
                    continue;
                spdlog::info(
                    "aborting the transaction of '{}' (producer id {}): open for longer than its "
                    "timeout of {} ms",
                    id, c.marker.producer_id, entry.metadata.timeout_ms);
                jobs.push_back(std::move(c));
                ++aborted;
            } else if (is_prepare(m.state)) {
                // Markers that failed earlier: try again.
                entry.pending = true;
                jobs.push_back({id,
                                {m.producer_id, m.producer_epoch, kCoordinatorEpoch,
                                 m.state == TxnState::prepare_commit},
                                {m.partitions.begin(), m.partitions.end()}});
            }
        }
    }
    for (const auto& c : jobs)
        complete(c);
    return aborted;
}

size_t TransactionCoordinator::abort_hanging(const std::vector<OpenTransaction>& open) {
    std::vector<Completion> whole;      // current transactions that lost a partition
    std::vector<OpenTransaction> lone;  // transactions no id of this coordinator runs
    {
        std::lock_guard lock(mutex_);
        std::map<int64_t, std::pair<const std::string*, Entry*>> by_producer;
        for (auto& [id, entry] : entries_)
            by_producer[entry.metadata.producer_id] = {&id, &entry};
        std::set<std::string> to_abort;
        for (const auto& o : open) {
            auto it = by_producer.find(o.producer_id);
            if (it == by_producer.end()) {
                lone.push_back(o);
                continue;
            }
            const auto& [id, entry] = it->second;
            TxnMetadata& m = entry->metadata;
            const bool running = m.state == TxnState::ongoing || is_prepare(m.state);
            if (running && m.partitions.contains(o.tp))
                continue;  // its own EndTxn, timeout or retry ends it
            if ((m.state == TxnState::ongoing || is_idle(m.state)) && !entry->pending &&
                m.producer_epoch == o.producer_epoch) {
                // Written to the Prepare record below, with the partitions the coordinator had.
                m.partitions.insert(o.tp);
                to_abort.insert(*id);
                continue;
            }
            lone.push_back(o);
        }
        for (const std::string& id : to_abort) {
            Entry& entry = entries_.at(id);
            Completion c;
            if (auto e = prepare_locked(id, entry, false, bumped(entry.metadata.producer_epoch), c,
                                        nullptr);
                e != ErrorCode::none) {
                spdlog::error("transactional id '{}': cannot abort its transaction ({})", id,
                              protocol::error_name(e));
                continue;
            }
            spdlog::warn(
                "aborting the transaction of '{}' (producer id {}): a partition holds it open "
                "that {} had lost (a crash before its records reached the disk)",
                id, c.marker.producer_id, kTransactionStateTopic);
            whole.push_back(std::move(c));
        }
    }
    size_t aborted = 0;
    for (const auto& o : lone) {
        spdlog::warn(
            "aborting the transaction that producer id {} (epoch {}) left open in {}-{}: {} has "
            "no record of it (a crash before its records reached the disk)",
            o.producer_id, o.producer_epoch, o.tp.topic, o.tp.partition, kTransactionStateTopic);
        const Marker m{o.producer_id, o.producer_epoch, kCoordinatorEpoch, false};
        const ErrorCode e =
            hooks_.write_marker ? hooks_.write_marker(o.tp, m, nullptr) : ErrorCode::none;
        if (e == ErrorCode::none)
            ++aborted;
        else
            spdlog::error("the ABORT marker for {}-{} failed ({})", o.tp.topic, o.tp.partition,
                          protocol::error_name(e));
    }
    for (const auto& c : whole)
        complete(c);
    return aborted + whole.size();
}

size_t TransactionCoordinator::expire_transactional_ids() {
    std::lock_guard lock(mutex_);
    const int64_t cutoff = now_ms() - config_.transactional_id_expiration_ms;
    std::vector<std::string> expired;
    for (const auto& [id, entry] : entries_)
        if (!entry.pending && is_idle(entry.metadata.state) &&
            entry.metadata.last_update_timestamp_ms <= cutoff)
            expired.push_back(id);
    if (expired.empty())
        return 0;
    std::vector<std::pair<std::string, const TxnMetadata*>> tombstones;
    tombstones.reserve(expired.size());
    for (const auto& id : expired)
        tombstones.emplace_back(id, nullptr);
    if (auto appended = append_records_locked(tombstones); !appended) {
        spdlog::error("expiring transactional ids: {}", appended.error());
        return 0;
    }
    for (const auto& id : expired)
        entries_.erase(id);
    maybe_snapshot_locked();
    return expired.size();
}

std::optional<TxnView> TransactionCoordinator::describe(const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end())
        return std::nullopt;
    return TxnView{id, it->second.metadata};
}

std::vector<TxnView> TransactionCoordinator::list() const {
    std::lock_guard lock(mutex_);
    std::vector<TxnView> out;
    out.reserve(entries_.size());
    for (const auto& [id, entry] : entries_)
        out.push_back({id, entry.metadata});
    return out;
}

int64_t TransactionCoordinator::snapshots_written() const {
    std::lock_guard lock(mutex_);
    return snapshots_written_;
}

}  // namespace skiff::broker::txn
