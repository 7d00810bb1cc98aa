#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>

#include "broker/broker.h"
#include "broker/error_mapping.h"
#include "broker/handlers/client_quota_throttle.h"
#include "broker/handlers/group_commit_wait.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/leader_hints.h"
#include "broker/log_throttle.h"
#include "broker/schema_registry/service/record_schema_check.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"
#include "config/value_syntax.h"
#include "protocol/compression/batch_recompress.h"
#include "protocol/compression/compression.h"
#include "protocol/legacy/up_convert.h"
#include "protocol/record_batch.h"
#include "protocol/record_iterator.h"

namespace skiff::broker {
namespace {

// 128 bits for timestamp arithmetic: a client's timestamp may be any int64, and now - ts must not
// overflow.
__extension__ using Wide = __int128;

using protocol::ErrorCode;

struct AppendOutcome {
    ErrorCode error = ErrorCode::none;
    std::string message;
    int64_t base_offset = -1;
    int64_t log_start_offset = -1;
    // LogAppendTime topics: the time the batch was stamped with; -1 for CreateTime.
    int64_t log_append_time = -1;
    // INVALID_RECORD: each refused record's index within its batch and why (the response's
    // record_errors, Produce v8+), as Kafka lists every invalid record of the batch.
    std::vector<protocol::BatchIndexAndErrorMessage> record_errors;
    // Durable mode: appended, to be acknowledged once on disk (PendingSync::end).
    storage::PartitionLog* pending_log = nullptr;
    int64_t durable_end = -1;
    // Durable mode: not appended yet, because the transaction coordinator's write it relies on
    // (the add of this partition to the transaction) is not on disk; appended once it is.
    std::vector<PendingSync> txn_syncs;
};

AppendOutcome fail(ErrorCode e, std::string message) {
    AppendOutcome outcome;
    outcome.error = e;
    outcome.message = std::move(message);
    return outcome;
}

// Whether the topic's cleanup.policy (its override, else log.cleanup.policy) includes compact.
bool is_compacted(Broker& broker, const std::string& topic) {
    const auto policy = broker.topics().cleanup_policy(topic);
    const auto parsed =
        config::parse_cleanup_policy(policy ? *policy : broker.config().log_cleanup_policy);
    return parsed && parsed->compact;
}

// One refused record: its error (INVALID_RECORD or INVALID_TIMESTAMP) and why.
struct RecordRefusal {
    ErrorCode code = ErrorCode::invalid_record;
    std::string why;
};
using RecordCheck = std::function<std::optional<RecordRefusal>(const protocol::BatchHeader&,
                                                               const protocol::Record&)>;

// The partition's answer to refused records, as Kafka's LogValidator.processRecordErrors
// words it: INVALID_TIMESTAMP when any record has a bad timestamp, else INVALID_RECORD naming
// the first three; every refused record listed with its index in record_errors (Produce v8+),
// which clients built on librdkafka 2.4+ turn into a per-message error (the other records of
// the batch fail with its _INVALID_DIFFERENT_RECORD).
AppendOutcome refused_records(std::vector<protocol::BatchIndexAndErrorMessage> errors,
                              bool any_timestamp) {
    if (any_timestamp) {
        AppendOutcome out = fail(ErrorCode::invalid_timestamp,
                                 "One or more records have been rejected due to invalid timestamp");
        out.record_errors = std::move(errors);
        return out;
    }
    std::string message = "One or more records have been rejected due to " +
                          std::to_string(errors.size()) +
                          " record errors in total, and only showing the first three errors at "
                          "most: [";
    for (size_t i = 0; i < errors.size() && i < 3; ++i) {
        if (i > 0)
            message += ", ";
        message += "RecordError(batchIndex=" + std::to_string(errors[i].batch_index) +
                   ", message='" + errors[i].batch_index_error_message.value_or("null") + "')";
    }
    message += "]";
    AppendOutcome out = fail(ErrorCode::invalid_record, std::move(message));
    out.record_errors = std::move(errors);
    return out;
}

// Walks the records of each batch, decompressing compressed ones into a scratch buffer bounded
// by `max_plain`, and asks `check` about each: the refused records, every one of them with its
// index in its batch as Kafka's LogValidator reports them, nullopt when none is. The
// per-record pass of the produce path, made only for topics that need it (compacted ones,
// timestamp bounds a batch header cannot settle, schema validation).
std::optional<AppendOutcome> check_records(std::span<const std::byte> records,
                                           const std::vector<protocol::BatchSummary>& summaries,
                                           size_t max_plain, const RecordCheck& check) {
    thread_local std::vector<std::byte> plain;
    // One unusually large batch must not pin its decompressed size to this thread for good.
    struct Trim {
        ~Trim() {
            if (plain.capacity() > (size_t{16} << 20))
                std::vector<std::byte>().swap(plain);
        }
    } trim;
    std::vector<protocol::BatchIndexAndErrorMessage> errors;
    bool any_timestamp = false;
    size_t pos = 0;
    for (const auto& s : summaries) {
        const auto batch = records.subspan(pos, s.size_bytes);
        pos += s.size_bytes;
        const protocol::BatchHeader h = protocol::read_batch_header(batch);
        auto body = batch.subspan(protocol::kBatchHeaderSize);
        if (h.compression() != protocol::Compression::none) {
            auto d = protocol::compression::decompress(h.compression(), body, plain, max_plain);
            if (!d)
                return fail(d.error().code == protocol::compression::CodecErrc::too_large
                                ? ErrorCode::record_list_too_large
                                : ErrorCode::corrupt_message,
                            d.error().message);
            body = plain;
        }
        auto it = protocol::RecordIterator::over_records(body, h);
        for (int32_t index = 0;; ++index) {
            auto r = it.next();
            if (!r)
                return fail(ErrorCode::corrupt_message,
                            "records do not parse: " + r.error().message);
            if (!*r)
                break;
            if (auto refused = check(h, **r)) {
                any_timestamp |= refused->code == ErrorCode::invalid_timestamp;
                errors.push_back({index, std::move(refused->why)});
            }
        }
        // Kafka stops at the first batch with refused records (v3+ sends one batch anyway).
        if (!errors.empty())
            break;
    }
    if (errors.empty())
        return std::nullopt;
    return refused_records(std::move(errors), any_timestamp);
}

// Kafka's LogValidator.validateTimestamp for one record of a CreateTime topic.
std::optional<RecordRefusal> check_timestamp(const TimestampPolicy& policy, int64_t now,
                                             const protocol::BatchHeader& h,
                                             const protocol::Record& r) {
    const int64_t ts = protocol::record_timestamp(h, r);
    if (ts == -1)  // no timestamp (RecordBatch.NO_TIMESTAMP): nothing to check
        return std::nullopt;
    const Wide diff = static_cast<Wide>(now) - ts;
    if (diff <= policy.before_max_ms && -diff <= policy.after_max_ms)
        return std::nullopt;
    auto bound = [](Wide v) {
        return std::to_string(static_cast<int64_t>(std::clamp<Wide>(v, INT64_MIN, INT64_MAX)));
    };
    return RecordRefusal{ErrorCode::invalid_timestamp,
                         "Timestamp " + std::to_string(ts) + " of message with offset " +
                             std::to_string(protocol::record_offset(h, r)) +
                             " is out of range. The timestamp should be within [" +
                             bound(static_cast<Wide>(now) - policy.before_max_ms) + ", " +
                             bound(static_cast<Wide>(now) + policy.after_max_ms) + "]"};
}

// The batch-level part of the timestamp rules, from headers alone: a batch a producer marked
// LogAppendTime is refused record by record (only the broker stamps that), and whether every
// record is surely within the bounds (no per-record pass needed): with no bound on the past,
// the header's MaxTimestamp settles it.
struct TimestampScreen {
    std::optional<AppendOutcome> refused;
    bool needs_record_pass = false;
};
TimestampScreen screen_timestamps(std::span<const std::byte> records,
                                  const std::vector<protocol::BatchSummary>& summaries,
                                  const TimestampPolicy& policy, int64_t now) {
    TimestampScreen screen;
    size_t pos = 0;
    for (const auto& s : summaries) {
        const protocol::BatchHeader h = protocol::read_batch_header(records.subspan(pos));
        pos += s.size_bytes;
        if (h.log_append_time()) {
            std::vector<protocol::BatchIndexAndErrorMessage> errors;
            errors.reserve(static_cast<size_t>(std::max(h.records_count, 0)));
            for (int32_t i = 0; i < h.records_count; ++i)
                errors.push_back({i, "Invalid timestamp type in message of batch with offset " +
                                         std::to_string(h.base_offset) +
                                         ". Producer should not set timestamp type to "
                                         "LogAppendTime."});
            screen.refused = refused_records(std::move(errors), true);
            return screen;
        }
        if (policy.log_append_time)
            continue;
        if (policy.before_max_ms != INT64_MAX ||
            static_cast<Wide>(h.max_timestamp) - now > policy.after_max_ms)
            screen.needs_record_pass = true;
    }
    return screen;
}

// Validates every batch before anything is written: a refused batch stores nothing.
AppendOutcome append_partition(RequestContext& ctx, const std::string& topic, int32_t partition,
                               std::optional<std::span<const std::byte>> records,
                               const std::optional<std::string>& transactional_id) {
    Broker& broker = ctx.broker;
    // Written only by the group and transaction coordinators and the share-partitions.
    if (topic == group::kOffsetsTopic || topic == txn::kTransactionStateTopic ||
        topic == share::kShareGroupStateTopic)
        return fail(ErrorCode::invalid_topic_exception,
                    "cannot produce to the internal topic " + topic);
    // Written by the schema registry only, while it runs: it does not read what others write.
    if (topic == schema_registry_service::kSchemasTopic && broker.schema_registry())
        return fail(ErrorCode::invalid_topic_exception,
                    "cannot produce to " + topic + ": the schema registry writes it");
    auto count = broker.topics().partition_count(topic);
    if (!count || partition < 0 || partition >= *count)
        return fail(ErrorCode::unknown_topic_or_partition, "unknown topic or partition");
    if (!records || records->empty())
        return fail(ErrorCode::corrupt_message, "no records in produce request");
    // Produce v0-v2 may carry a v0/v1 message set: converted to one record batch v2, which
    // then takes the normal path (docs/legacy-formats.md).
    if (ctx.header.api_version <= 2 && protocol::legacy::is_message_set(*records)) {
        thread_local std::vector<std::byte> converted;
        thread_local std::vector<std::byte> scratch;
        // Decompression-bomb guard per wrapper, as for v2 batches below.
        const size_t max_plain = static_cast<size_t>(
            std::clamp<int64_t>(static_cast<int64_t>(broker.config().message_max_bytes) * 64,
                                int64_t{64} << 20, int64_t{1} << 30));
        auto up = protocol::legacy::up_convert(*records, max_plain, converted, scratch);
        if (!up) {
            LogThrottle::global().log(spdlog::level::warn, "produce:invalid-message-set",
                                      "refused produce to {}-{} from {}: {}", topic, partition,
                                      ctx.peer, up.error().message);
            return fail(ErrorCode::corrupt_message, up.error().message);
        }
        records = std::span<const std::byte>(converted);
    }

    // Reused by every produce on this I/O thread (nothing here suspends between fill and use).
    thread_local std::vector<protocol::BatchSummary> summaries;
    if (auto valid = protocol::validate_batches(*records, summaries); !valid) {
        LogThrottle::global().log(spdlog::level::warn, "produce:invalid-batch",
                                  "refused produce to {}-{} from {}: {}", topic, partition,
                                  ctx.peer, valid.error().message);
        return fail(to_error_code(valid.error().code), valid.error().message);
    }
    // Produce v3+ carries exactly one batch per partition.
    if (ctx.header.api_version >= 3 && summaries.size() != 1)
        return fail(ErrorCode::invalid_record,
                    "produce v3+ must carry exactly one record batch per partition");
    // The topic's max.message.bytes overrides the broker's message.max.bytes.
    const int64_t max_bytes =
        broker.topics().max_message_bytes(topic).value_or(broker.config().message_max_bytes);

    auto check_summaries = [&]() -> std::optional<AppendOutcome> {
        for (const auto& s : summaries) {
            if (static_cast<int64_t>(s.size_bytes) > max_bytes)
                return fail(ErrorCode::message_too_large,
                            "record batch of " + std::to_string(s.size_bytes) +
                                " bytes exceeds max.message.bytes " + std::to_string(max_bytes));
            // Markers are written by the transaction coordinator only (Kafka: INVALID_RECORD).
            if (s.control)
                return fail(ErrorCode::invalid_record, "clients cannot produce control batches");
            if (s.transactional && !transactional_id)
                return fail(ErrorCode::transactional_id_authorization_failed,
                            "transactional records need a transactional id");
            // Only ids InitProducerId handed out: an invented one could be the id a later producer
            // gets, whose batches would then be checked against this client's sequences.
            if (s.producer_id >= 0 && !broker.producer_ids().issued(s.producer_id))
                return fail(ErrorCode::unknown_producer_id, "producer id " +
                                                                std::to_string(s.producer_id) +
                                                                " was not issued by this broker");
        }
        return std::nullopt;
    };
    if (auto refused = check_summaries(); refused)
        return *refused;
    // Decompression-bomb guard: a batch may decompress to at most 64 times the largest batch the
    // topic accepts (at least 64 MiB, at most 1 GiB). Real batches are far below: a producer's
    // batch.size bounds the records before compression (1 MB in librdkafka, 16 KiB in the Java
    // client) and compression rarely gains more than 10x on real data.
    const size_t max_plain = static_cast<size_t>(
        std::clamp<int64_t>(max_bytes * 64, int64_t{64} << 20, int64_t{1} << 30));
    // Kafka's LogValidator, per record: on a compacted topic every record needs a key (the
    // cleaner keeps the last record per key), and on a CreateTime topic every timestamp must lie
    // within message.timestamp.before/after.max.ms of the broker's clock. A record failing the
    // key check is not checked further, as in Kafka.
    const bool compacted = is_compacted(broker, topic);
    const TimestampPolicy policy = broker.topics().timestamp_policy(topic, broker.config());
    const int64_t now = storage::wall_clock_ms();
    TimestampScreen screen = screen_timestamps(*records, summaries, policy, now);
    if (screen.refused) {
        LogThrottle::global().log(spdlog::level::warn, "produce:log-append-time-from-producer",
                                  "refused produce to {}-{} from {}: {}", topic, partition,
                                  ctx.peer, screen.refused->message);
        return *screen.refused;
    }
    if (compacted || screen.needs_record_pass) {
        const std::string keyless =
            "Compacted topic cannot accept message without key in topic partition " + topic + "-" +
            std::to_string(partition) + ".";
        auto refused =
            check_records(*records, summaries, max_plain,
                          [&](const protocol::BatchHeader& h,
                              const protocol::Record& r) -> std::optional<RecordRefusal> {
                              if (compacted && !r.key)
                                  return RecordRefusal{ErrorCode::invalid_record, keyless};
                              if (screen.needs_record_pass)
                                  return check_timestamp(policy, now, h, r);
                              return std::nullopt;
                          });
        if (refused) {
            LogThrottle::global().log(spdlog::level::warn,
                                      refused->error == ErrorCode::invalid_timestamp
                                          ? "produce:invalid-timestamp"
                                          : "produce:compacted-without-key",
                                      "refused produce to {}-{} from {}: {}", topic, partition,
                                      ctx.peer, refused->message);
            return *refused;
        }
    }
    // Broker-side schema validation (confluent.{key,value}.schema.validation): each record must
    // carry the wire-format header of a schema registered under its subject.
    if (auto validation = broker.topics().schema_validation(topic)) {
        const schema_registry_service::RecordSchemaCheck check(*validation, topic,
                                                               broker.schema_registry());
        auto refused =
            check_records(*records, summaries, max_plain,
                          [&](const protocol::BatchHeader&,
                              const protocol::Record& r) -> std::optional<RecordRefusal> {
                              if (auto why = check.refuse(r))
                                  return RecordRefusal{ErrorCode::invalid_record, std::move(*why)};
                              return std::nullopt;
                          });
        if (refused) {
            LogThrottle::global().log(spdlog::level::warn, "produce:schema-validation",
                                      "refused produce to {}-{} from {}: {}", topic, partition,
                                      ctx.peer, refused->message);
            return *refused;
        }
    }
    // A transactional batch is stored only for the producer id and epoch that its transactional
    // id holds now, and only to a partition added to the ongoing transaction (Kafka's partition
    // verification): a client cannot write into another producer's transaction, and a fenced
    // producer's late batch is refused.
    // Transactions V2 (Produce v12+ with transaction.version 2, KIP-890): the produce itself
    // adds the partition to the transaction, as Kafka's AddPartitionsToTxnManager does for it.
    // Not added (v1, or a v2 add that failed): INVALID_TXN_STATE up to v10, TRANSACTION_ABORTABLE
    // from v11, which clients abort on instead of failing fatally.
    const bool implicit_add =
        txn::client_transaction_version(broker.features().transaction_version(),
                                        ctx.header.api_version >= 12) >= 2;
    // Durable mode: the coordinator's writes the verdicts rely on, while not on disk. No batch
    // goes to the log before them, or a power cut could leave transactional data that the
    // coordinator does not know of: an open transaction nobody would ever end.
    txn::Deferred deferred;
    for (const auto& s : summaries) {
        if (!s.transactional)
            continue;
        // Verified first: in the steady state the partition is in the transaction already and
        // nothing is written or allocated.
        ErrorCode verdict = broker.transactions().verify_partition(
            *transactional_id, s.producer_id, s.producer_epoch, {topic, partition}, &deferred);
        if (verdict == ErrorCode::invalid_txn_state && implicit_add) {
            verdict = broker.transactions().add_partitions(*transactional_id, s.producer_id,
                                                           s.producer_epoch, {{topic, partition}},
                                                           2, &deferred);
            // As Kafka maps the coordinator's answers for produce: a fenced producer sees
            // INVALID_PRODUCER_EPOCH, a commit or abort in progress the retriable
            // NOT_ENOUGH_REPLICAS.
            if (verdict == ErrorCode::producer_fenced)
                verdict = ErrorCode::invalid_producer_epoch;
            else if (verdict == ErrorCode::concurrent_transactions)
                verdict = ErrorCode::not_enough_replicas;
        }
        if (verdict == ErrorCode::invalid_txn_state && ctx.header.api_version >= 11)
            verdict = ErrorCode::transaction_abortable;
        if (verdict != ErrorCode::none)
            return fail(verdict, "partition " + topic + "-" + std::to_string(partition) +
                                     " is not in an ongoing transaction of this producer");
    }
    if (!deferred.syncs.empty()) {
        AppendOutcome later = fail(ErrorCode::none, {});
        later.txn_syncs = std::move(deferred.syncs);
        return later;
    }

    // compression.type other than producer: batches in another codec are rebuilt in the topic's
    // codec, so the size limit and the producer-state checks (storage's too) see the batch that
    // is stored.
    std::span<const std::byte> stored = *records;
    std::optional<protocol::Compression> target;
    const auto topic_codec = broker.topics().compression_type(topic);
    protocol::compression::parse_compression_type(
        topic_codec ? *topic_codec : broker.config().compression_type, target);
    if (target && std::any_of(summaries.begin(), summaries.end(), [&](const auto& s) {
            return s.compression != *target && !s.control;
        })) {
        // Reused by every produce on this I/O thread, like `summaries`.
        thread_local std::vector<std::byte> plain;
        thread_local std::vector<std::byte> rebuilt;
        auto r =
            protocol::compression::recompress_batches(*records, *target, max_plain, plain, rebuilt);
        if (!r) {
            LogThrottle::global().log(spdlog::level::warn, "produce:bad-compressed-batch",
                                      "refused produce to {}-{} from {}: {}", topic, partition,
                                      ctx.peer, r.error().message);
            switch (r.error().code) {
                case protocol::compression::RebuildErrc::corrupt:
                    return fail(ErrorCode::corrupt_message, r.error().message);
                case protocol::compression::RebuildErrc::too_large:
                    return fail(ErrorCode::record_list_too_large, r.error().message);
                case protocol::compression::RebuildErrc::failed:
                    break;
            }
            return fail(ErrorCode::unknown_server_error, r.error().message);
        }
        stored = rebuilt;
        if (auto valid = protocol::validate_batches(stored, summaries); !valid)  // cannot fail
            return fail(ErrorCode::unknown_server_error,
                        "rebuilt batch is invalid: " + valid.error().message);
        // One unusually large batch must not pin its decompressed size to this thread for good.
        if (plain.capacity() > (size_t{16} << 20))
            std::vector<std::byte>().swap(plain);
        // Checked as sent above and once more as rebuilt: like Kafka, a batch over the limit
        // before or after recompression is refused.
        if (auto refused = check_summaries(); refused)
            return *refused;
    }
    auto* log = broker.logs().get({topic, partition});
    if (!log)
        return fail(ErrorCode::unknown_topic_or_partition, "unknown topic or partition");
    auto appended = log->append(stored, summaries, storage::AppendOrigin::client,
                                storage::Durability::group_commit);
    if (!appended) {
        if (appended.error().code == storage::StorageErrc::out_of_order_sequence ||
            appended.error().code == storage::StorageErrc::invalid_producer_epoch ||
            appended.error().code == storage::StorageErrc::invalid_txn_state ||
            appended.error().code == storage::StorageErrc::invalid_record ||
            appended.error().code == storage::StorageErrc::not_found)  // deleted meanwhile
            LogThrottle::global().log(spdlog::level::warn, "produce:refused",
                                      "refused produce to {}-{} from {}: {}", topic, partition,
                                      ctx.peer, appended.error().message);
        else  // a full disk or an I/O error fails every produce until it is fixed: one line
            LogThrottle::global().log(
                spdlog::level::err,
                "produce:append-failed:" + std::to_string(static_cast<int>(appended.error().code)),
                "append to {}-{} failed: {}", topic, partition, appended.error().message);
        return fail(to_error_code(appended.error().code), appended.error().message);
    }
    // A retried idempotent batch already stored: acknowledged with its original offsets.
    if (!appended->duplicate) {
        // In durable mode fetches see the batch once it is synced: they are woken then.
        if (!appended->sync_pending)
            broker.waiters().notify(PartitionWaiters::key(topic, partition));
        uint64_t appended_records = 0;
        for (const auto& s : summaries)
            appended_records += static_cast<uint64_t>(s.record_count);
        auto& traffic = log->traffic();
        storage::PartitionTraffic::add(traffic.records_produced, appended_records);
        storage::PartitionTraffic::add(traffic.bytes_produced, stored.size());
    }
    AppendOutcome ok = fail(ErrorCode::none, {});
    ok.log_append_time = appended->log_append_time;
    ok.base_offset = appended->base_offset;
    ok.log_start_offset = appended->log_start_offset;
    if (appended->sync_pending) {
        ok.pending_log = log;
        ok.durable_end = appended->last_offset + 1;
    }
    return ok;
}

// Durable mode: the response waits until every partition's append is on disk; a partition whose
// sync failed is answered KAFKA_STORAGE_ERROR, as Kafka answers a failed flush. acks=0 gets no
// response, but its batches still become visible only once synced (partition_log.h).
asio::awaitable<void> acknowledge_when_durable(
    RequestContext& ctx, std::vector<PendingSync>& pending,
    std::vector<protocol::PartitionProduceResponse*>& answers, std::vector<std::string>& keys) {
    auto errors = co_await wait_until_durable(ctx.broker.logs().group_commit(), pending);
    for (size_t i = 0; i < pending.size(); ++i) {
        if (errors[i]) {
            LogThrottle::global().log(spdlog::level::err, "produce:sync-failed",
                                      "sync of {} failed: {}", keys[i], errors[i]->message);
            answers[i]->error_code = ErrorCode::kafka_storage_error;
            answers[i]->error_message = errors[i]->message;
            answers[i]->base_offset = -1;
        } else {
            ctx.broker.waiters().notify(keys[i]);
        }
    }
}

// A partition whose append waits for the transaction coordinator's sync (AppendOutcome::txn_syncs).
struct WaitingAppend {
    size_t topic_at;
    size_t partition_at;
    std::string topic;
    const protocol::PartitionProduceData* data;
    AppendOutcome outcome;  // the syncs it waits for, then the append's outcome
};

// Appends the partitions that waited for the coordinator's sync, once it is done. Another write
// of the transaction may have come meanwhile (a pipelined produce adding another partition): a
// partition waits again then, a few times at most before it is answered NOT_ENOUGH_REPLICAS,
// which clients retry.
asio::awaitable<void> append_after_txn_sync(RequestContext& ctx,
                                            const std::optional<std::string>& transactional_id,
                                            std::vector<WaitingAppend>& waiting) {
    auto& committer = ctx.broker.logs().group_commit();
    for (int round = 0; round < 3; ++round) {
        std::vector<PendingSync> syncs;
        for (const auto& w : waiting)
            syncs.insert(syncs.end(), w.outcome.txn_syncs.begin(), w.outcome.txn_syncs.end());
        if (syncs.empty())
            co_return;
        auto failed = co_await wait_until_all_durable(committer, syncs);
        for (auto& w : waiting)
            if (!w.outcome.txn_syncs.empty())
                w.outcome = failed
                                ? fail(ErrorCode::not_enough_replicas,
                                       "the transaction state was not synced: " + failed->message)
                                : append_partition(ctx, w.topic, w.data->index, w.data->records,
                                                   transactional_id);
    }
    for (auto& w : waiting)
        if (!w.outcome.txn_syncs.empty())
            w.outcome = fail(ErrorCode::not_enough_replicas,
                             "the transaction state is still being written");
}

}  // namespace

void add_leader_hints(const RequestContext& ctx, protocol::ProduceResponse& resp) {
    if (ctx.header.api_version < 10)
        return;
    bool named = false;
    for (auto& t : resp.responses)
        for (auto& r : t.partition_responses)
            if (names_current_leader(r.error_code)) {
                r.current_leader = protocol::ProduceLeaderIdAndEpoch{ctx.broker.node_id(), 0};
                named = true;
            }
    if (named && resp.node_endpoints.empty()) {
        const auto& advertised = ctx.broker.advertised(ctx.listener);
        resp.node_endpoints.push_back(
            {ctx.broker.node_id(), advertised.host, advertised.port, std::nullopt});
    }
}

asio::awaitable<protocol::ProduceResponse> handle_produce(RequestContext& ctx,
                                                          const protocol::ProduceRequest& req) {
    // acks=0: the client expects no response at all, not even for errors.
    ctx.suppress_response = req.acks == 0;
    const bool acks_valid = req.acks == 0 || req.acks == 1 || req.acks == -1;
    const bool by_id = ctx.header.api_version >= 13;
    protocol::ProduceResponse resp;
    resp.responses.reserve(req.topic_data.size());
    std::string resolved;
    std::vector<PendingSync> pending;  // durable mode's appends, answered once on disk
    std::vector<std::pair<size_t, size_t>> pending_at;
    std::vector<std::string> pending_keys;
    std::vector<WaitingAppend> waiting;  // durable mode: after the transaction coordinator's sync
    // Fills a partition's answer (`r`, at `at` in the response), and notes a durable-mode append
    // to be acknowledged once on disk.
    const auto answer = [&](AppendOutcome& outcome, const std::string& topic,
                            protocol::PartitionProduceResponse& r, std::pair<size_t, size_t> at) {
        r.error_code = outcome.error;
        r.base_offset = outcome.base_offset;
        r.log_append_time_ms = outcome.log_append_time;  // -1 for CreateTime topics
        r.log_start_offset = outcome.log_start_offset;
        r.record_errors = std::move(outcome.record_errors);
        if (outcome.error != ErrorCode::none)
            r.error_message = std::move(outcome.message);
        if (outcome.pending_log) {
            pending.push_back({outcome.pending_log, outcome.durable_end});
            pending_at.push_back(at);
            pending_keys.push_back(PartitionWaiters::key(topic, r.index));
        }
    };
    // Authorization (with an authorizer: docs/acls.md): a transactional producer needs WRITE on
    // its transactional id, else every partition is TRANSACTIONAL_ID_AUTHORIZATION_FAILED; each
    // topic needs WRITE, else TOPIC_AUTHORIZATION_FAILED (KafkaApis.handleProduceRequest).
    const bool txn_id_allowed =
        !req.transactional_id || req.transactional_id->empty() ||
        authorized(ctx, AclOperation::write, ResourceType::transactional_id, *req.transactional_id);
    for (const auto& topic : req.topic_data) {
        protocol::TopicProduceResponse t;
        t.name = topic.name;
        t.topic_id = topic.topic_id;
        // v13 names the topic by id (KIP-516). The zero id, like an id no topic holds (deleted,
        // or recreated under a new id), is UNKNOWN_TOPIC_ID for each of its partitions.
        const std::string* name = &topic.name;
        bool unknown_id = false;
        if (by_id) {
            auto found = topic_name_of(ctx.broker.topics(), topic.topic_id);
            unknown_id = !found;
            resolved = std::move(found).value_or(std::string());
            name = &resolved;
        }
        const bool topic_allowed =
            unknown_id || authorized(ctx, AclOperation::write, ResourceType::topic, *name);
        t.partition_responses.reserve(topic.partition_data.size());
        for (const auto& p : topic.partition_data) {
            AppendOutcome outcome =
                !acks_valid ? fail(ErrorCode::invalid_required_acks, "acks must be 0, 1 or -1")
                : !txn_id_allowed ? fail(ErrorCode::transactional_id_authorization_failed,
                                         "Transactional Id authorization failed.")
                : unknown_id      ? fail(ErrorCode::unknown_topic_id, "no topic has this topic id")
                : !topic_allowed
                    ? fail(ErrorCode::topic_authorization_failed, "Topic authorization failed.")
                    : append_partition(ctx, *name, p.index, p.records, req.transactional_id);
            const std::pair at{resp.responses.size(), t.partition_responses.size()};
            protocol::PartitionProduceResponse& r = t.partition_responses.emplace_back();
            r.index = p.index;
            if (!outcome.txn_syncs.empty())  // answered below
                waiting.push_back({at.first, at.second, *name, &p, std::move(outcome)});
            else
                answer(outcome, *name, r, at);
        }
        resp.responses.push_back(std::move(t));
    }
    if (!waiting.empty()) {
        co_await append_after_txn_sync(ctx, req.transactional_id, waiting);
        for (auto& w : waiting)
            answer(w.outcome, w.topic,
                   resp.responses[w.topic_at].partition_responses[w.partition_at],
                   {w.topic_at, w.partition_at});
    }
    if (!pending.empty()) {
        std::vector<protocol::PartitionProduceResponse*> answers;
        answers.reserve(pending_at.size());
        for (auto [topic_at, partition_at] : pending_at)
            answers.push_back(&resp.responses[topic_at].partition_responses[partition_at]);
        co_await acknowledge_when_durable(ctx, pending, answers, pending_keys);
    }
    if (ctx.suppress_response)
        for (const auto& t : resp.responses)
            for (const auto& r : t.partition_responses)
                ctx.close_connection |= r.error_code != ErrorCode::none;
    add_leader_hints(ctx, resp);
    // Client quotas: the request's size against producer_byte_rate (after the append, as Kafka
    // records it: the records are stored, the client is told to wait before sending more).
    resp.throttle_time_ms =
        record_quota(ctx, quotas::QuotaKind::produce, static_cast<int64_t>(ctx.request_bytes));
    co_return resp;
}

}  // namespace skiff::broker
