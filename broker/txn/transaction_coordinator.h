// The transaction coordinator (KIP-98 transactions V1, KIP-890 transactions V2) of a single broker:
// transactional id -> producer id, epoch, state, partitions and timeout, with Kafka's state machine
// (TransactionCoordinator.scala, TransactionMetadata.scala).
//
// Durability: every transition is appended to the internal log __transaction_state (one
// partition; records in Kafka's format, transaction_records.h) before it takes effect in memory
// or is answered. The log is bounded the way group/offset_store.h bounds __consumer_offsets:
// after half a segment of writes a snapshot (one record per live id, one append) is written, and
// the log keeps retention.bytes = 2 x segment.bytes with no time retention, so the kept log
// always starts before a whole snapshot and replaying it rebuilds the current state. A
// snapshot is also written at start.
//
// Completion: EndTxn writes PrepareCommit/PrepareAbort, then one marker per partition of the
// transaction (marker_writer.h), then CompleteCommit/CompleteAbort, and only then answers. The
// coordinator's mutex is not held while markers are written (they take partition and group
// locks); meanwhile the id is "pending": InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn and
// EndTxn get CONCURRENT_TRANSACTIONS, verify_partition NOT_ENOUGH_REPLICAS. An id found in a
// Prepare state at start (a crash between Prepare and Complete) is completed by open(); one whose
// markers failed with a retriable error is completed again by abort_timed_out().
//
// Durable mode (flush.messages=1): a request handler passes a Deferred. Its transitions are then
// appended with Durability::group_commit and the handler answers once they are synced
// (handlers/txn_settle.h), so no network thread waits for the disk and concurrent transactions
// share syncs. Memory holds a transition from its append on, a sync before the disk does:
// DescribeTransactions may show it early, and every request acting on it waits for that sync. The
// order of the writes on disk is kept where a power cut could otherwise leave a state that cannot
// be completed: Prepare before the markers, the markers before Complete, and an id's transition
// before any produce that relies on it (verify_partition hands that sync to the produce, which
// appends its data only after it). Without a Deferred (start-up, the maintenance thread, tests)
// every write is flushed on the calling thread as the log's flush settings say, and a completion
// runs to its end there.
//
// Coordinator epoch: 0 (Kafka uses the leader epoch of the __transaction_state partition, which
// never changes on one broker).
//
// Thread-safe: one mutex serializes appends and the map.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/txn/marker_writer.h"
#include "broker/txn/transaction_metadata.h"
#include "protocol/error_code.h"
#include "protocol/expected.h"
#include "storage/log_config.h"
#include "storage/partition_log.h"
#include "storage/topic_partition.h"

namespace skiff::broker::txn {

inline constexpr const char* kTransactionStateTopic = "__transaction_state";

struct TxnCoordinatorConfig {
    int64_t max_timeout_ms = 900000;                     // transaction.max.timeout.ms
    int64_t transactional_id_expiration_ms = 604800000;  // transactional.id.expiration.ms
};

// Everything the coordinator needs from outside, injectable for tests.
struct TxnCoordinatorHooks {
    std::function<int64_t()> next_producer_id;  // a fresh producer id, -1 on failure
    // marker_writer.h's write_marker: with a vector, the marker is left unsynced and its sync
    // added there.
    std::function<protocol::ErrorCode(const storage::TopicPartition&, const Marker&,
                                      std::vector<storage::PendingSync>*)>
        write_marker;
    std::function<int64_t()> clock_ms;  // empty: the wall clock
    // The finalized transaction.version (finalized_features.h); empty: 0. Decides the version
    // of the values written to __transaction_state.
    std::function<int16_t()> transaction_version;
};

// One id as DescribeTransactions / ListTransactions show it.
struct TxnView {
    std::string transactional_id;
    TxnMetadata metadata;
};

// EndTxn's answer: with transactions V2 (v5) the producer id and epoch the producer continues
// with (the epoch bumped, or a new id at epoch 0 when the old epoch was exhausted).
struct EndTxnResult {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
};

struct InitProducerIdResult {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
};

// A commit or abort whose Prepare record is written and whose markers are due.
struct Completion {
    std::string transactional_id;
    Marker marker;
    std::vector<storage::TopicPartition> partitions;
};

// What a transition leaves its request handler to finish before answering (durable mode).
struct Deferred {
    std::vector<storage::PendingSync> syncs;  // this id's records not yet on disk
    std::optional<Completion> completion;     // markers due once `syncs` are durable
};

// A transaction a partition holds open (its producer state): what start-up checks against the
// coordinator (abort_hanging).
struct OpenTransaction {
    storage::TopicPartition tp;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
};

// One marker appended unsynced (durable mode), and the partition it went to.
struct MarkerWrite {
    storage::TopicPartition tp;
    storage::PendingSync sync;
};

class TransactionCoordinator {
  public:
    static constexpr int32_t kCoordinatorEpoch = 0;

    // Replays `log` (already opened by the log manager), completes every transaction left in a
    // Prepare state, and writes a start-up snapshot.
    static Expected<std::unique_ptr<TransactionCoordinator>, std::string> open(
        storage::PartitionLog& log, storage::LogConfig base, TxnCoordinatorConfig config,
        TxnCoordinatorHooks hooks);

    // broker/control's reset and restore: forgets every transactional id and loads `log`
    // instead, as open() does (transactions found prepared in it are completed). A completion
    // racing with this (abort_timed_out on the maintenance thread) finds its id gone and writes
    // nothing to the new log.
    Expected<void, std::string> reopen(storage::PartitionLog& log);

    // InitProducerId with a non-null transactional id. expected_producer_id / epoch: -1 for
    // "no expectation" (v0-2, or a new producer). Errors as Kafka's coordinator returns them
    // (PRODUCER_FENCED included; the handler maps it for old versions).
    // `deferred`: see "Durable mode" above; the abort that fences an old incarnation is left in
    // deferred->completion.
    InitProducerIdResult init_producer_id(const std::string& transactional_id,
                                          int32_t transaction_timeout_ms,
                                          int64_t expected_producer_id,
                                          int16_t expected_producer_epoch,
                                          Deferred* deferred = nullptr);
    // AddPartitionsToTxn / AddOffsetsToTxn, and with transactions V2 Produce v12 and
    // TxnOffsetCommit v5 (implicitly): one error for the whole request. A transaction started
    // here records `client_transaction_version` (2: its EndTxn bumps the epoch). `deferred`
    // also gets the sync of an earlier write that added them, when that is not on disk yet.
    protocol::ErrorCode add_partitions(const std::string& transactional_id, int64_t producer_id,
                                       int16_t producer_epoch,
                                       const std::vector<storage::TopicPartition>& partitions,
                                       int16_t client_transaction_version = 0,
                                       Deferred* deferred = nullptr);
    // AddPartitionsToTxn v4+ with verify_only (Kafka's handleVerifyPartitionsInTransaction):
    // adds nothing. A whole-transaction error (INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
    // CONCURRENT_TRANSACTIONS while a commit or abort is prepared) is returned; otherwise NONE
    // and `out` holds, per partition, NONE (in the transaction) or TRANSACTION_ABORTABLE.
    protocol::ErrorCode verify_partitions(const std::string& transactional_id, int64_t producer_id,
                                          int16_t producer_epoch,
                                          const std::vector<storage::TopicPartition>& partitions,
                                          std::vector<protocol::ErrorCode>& out) const;
    // EndTxn: commit or abort, markers written before it returns. `client_transaction_version`
    // 2 (EndTxn v5 with the feature finalized at 2) bumps the epoch (Kafka's
    // TransactionMetadata.prepareAbortOrCommit): the markers carry the bumped epoch, and an
    // exhausted epoch moves the producer to a new id at epoch 0 once the markers are written.
    // A retry of an EndTxn that completed (the epoch before the bump) answers NONE again.
    // With `deferred` the markers are not written: they are left in deferred->completion.
    EndTxnResult end_transaction(const std::string& transactional_id, int64_t producer_id,
                                 int16_t producer_epoch, bool commit,
                                 int16_t client_transaction_version, Deferred* deferred = nullptr);
    // Transactions V1 (EndTxn v0-4): the error only.
    protocol::ErrorCode end_transaction(const std::string& transactional_id, int64_t producer_id,
                                        int16_t producer_epoch, bool commit) {
        return end_transaction(transactional_id, producer_id, producer_epoch, commit, 0).error;
    }

    // What produce asks before appending a transactional batch (Kafka's partition verification):
    // NONE if `tp` is in the ongoing transaction of `transactional_id` and (pid, epoch) are its
    // current ones; otherwise INVALID_PRODUCER_ID_MAPPING (unknown id or another pid),
    // INVALID_PRODUCER_EPOCH (another epoch: fenced or stale), NOT_ENOUGH_REPLICAS (a commit or
    // abort is being completed: retriable), INVALID_TXN_STATE (the partition was not added).
    // NONE with a non-empty `deferred->syncs`: the write that added `tp` is not on disk yet, and
    // the batch must not be appended before it is.
    protocol::ErrorCode verify_partition(std::string_view transactional_id, int64_t producer_id,
                                         int16_t producer_epoch, const storage::TopicPartition& tp,
                                         Deferred* deferred = nullptr) const;

    // The rest of a Deferred completion, each step once the previous one's syncs are durable:
    // write_markers (without the mutex; returns the partitions whose marker must be retried, and
    // adds the unsynced ones to `written`), then finish with those still unfinished (the
    // Complete record, its sync added to `deferred`). abandon: the Prepare record could not be
    // synced, so no marker may be written; the maintenance thread completes it later.
    std::vector<storage::TopicPartition> write_markers(const Completion& c,
                                                       std::vector<MarkerWrite>& written);
    void finish(const Completion& c, const std::vector<storage::TopicPartition>& unfinished,
                Deferred* deferred);
    void abandon(const Completion& c);

    // Start-up, after the coordinator and every partition are loaded: ends the transactions that
    // partitions hold open but that no transaction of this coordinator will ever end. A power
    // cut can leave them: the coordinator's record that put a partition in the transaction was
    // lost with the page cache while the partition's batches had reached the disk (the default
    // mode syncs the two logs independently; a topic with flush.messages=1 on a broker without
    // it syncs only the data). Nothing would write their marker, so the partition's last stable
    // offset would stay there for good and read_committed consumers would stall. Kafka leaves
    // these to an operator (KIP-664's abort); on one broker the coordinator knows for certain.
    //   - The producer's current epoch (its id is Ongoing, Empty or Complete* at that epoch):
    //     the partitions the coordinator lost are aborted with those it had, as one transaction,
    //     at a bumped epoch. The producer is fenced, as after a timeout: no partition of the
    //     transaction commits without the others, and an EndTxn it sends after the restart is
    //     refused instead of answered as the retry of a commit that completed.
    //   - Otherwise (an unknown producer id, an older epoch): an ABORT marker at the partition's
    //     epoch closes that partition's transaction; no producer that could still send holds it.
    // A transaction whose partition the coordinator holds is left to it. Returns how many
    // transactions were aborted.
    size_t abort_hanging(const std::vector<OpenTransaction>& open);

    // Periodic: aborts every transaction Ongoing for longer than its timeout (the epoch is bumped
    // first, so the old producer is fenced), and completes Prepare states whose markers failed.
    // Returns how many transactions were aborted.
    size_t abort_timed_out();
    // Periodic: removes ids idle (Empty, CompleteCommit, CompleteAbort) since longer than
    // transactional.id.expiration.ms, writing a tombstone for each. Returns how many.
    size_t expire_transactional_ids();

    std::optional<TxnView> describe(const std::string& transactional_id) const;
    std::vector<TxnView> list() const;
    int64_t now_ms() const;
    int64_t snapshots_written() const;

  private:
    TransactionCoordinator(storage::PartitionLog& log, storage::LogConfig base,
                           TxnCoordinatorConfig config, TxnCoordinatorHooks hooks);

    struct Entry {
        TxnMetadata metadata;
        bool pending = false;  // markers being written, outside the mutex
        // Durable mode: the offset after this id's last record while that is not synced, or -1.
        int64_t written_end = -1;
    };

    Expected<void, std::string> replay();
    // open()'s work after construction: the log's config, the replay, completing what was left
    // prepared, the start-up snapshot.
    Expected<void, std::string> load();
    // Appends `next` as the record of `id` and makes it `entry`'s metadata. With `deferred` the
    // append is left to a group-commit sync, added to deferred->syncs.
    protocol::ErrorCode write_locked(const std::string& id, Entry& entry, TxnMetadata next,
                                     Deferred* deferred);
    // Appends the records (nullptr: tombstone): the offset after them if they were left unsynced
    // (group_commit in durable mode), else -1.
    Expected<int64_t, std::string> append_records_locked(
        const std::vector<std::pair<std::string, const TxnMetadata*>>& records,
        storage::Durability durability = storage::Durability::flush_settings);
    // The sync `entry`'s last record still waits for, if any.
    void add_unsynced_locked(const Entry& entry, Deferred* deferred) const;
    // Adds a wait for this log's appends below `end` to `deferred`.
    void wait_for_locked(int64_t end, Deferred& deferred) const;
    void maybe_snapshot_locked();
    Expected<void, std::string> snapshot_locked();
    // Writes PrepareCommit/PrepareAbort for `entry` (Ongoing) at `epoch` and marks it pending.
    // `v2_bump`: the epoch bump of transactions V2 (not a fence: the old epoch is remembered);
    // `next_producer_id` the id to move to on completion (-1: none).
    protocol::ErrorCode prepare_locked(const std::string& id, Entry& entry, bool commit,
                                       int16_t epoch, Completion& out, Deferred* deferred,
                                       bool v2_bump = false, int64_t next_producer_id = -1);
    int16_t log_value_version() const;
    // Writes the markers (without the mutex), then CompleteCommit/CompleteAbort, all flushed on
    // this thread.
    void complete(const Completion& c);
    // The markers of `c`: the partitions whose marker must be retried. `written` non-null: the
    // markers are appended unsynced, each added there.
    std::vector<storage::TopicPartition> write_each_marker(const Completion& c,
                                                           std::vector<MarkerWrite>* written);
    // A completion for `deferred` (a handler finishes it), or at once on this thread.
    void complete_or_defer(Completion c, Deferred* deferred);

    storage::PartitionLog* log_;  // a pointer, not a reference: reopen() changes it
    storage::LogConfig base_;
    TxnCoordinatorConfig config_;
    TxnCoordinatorHooks hooks_;
    mutable std::mutex mutex_;
    std::map<std::string, Entry, std::less<>> entries_;
    int64_t bytes_since_snapshot_ = 0;
    int64_t segment_bytes_ = 0;
    int64_t snapshots_written_ = 0;
};

}  // namespace skiff::broker::txn
