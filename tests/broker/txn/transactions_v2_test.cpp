// Transactions V2 (KIP-890 part 2) in the transaction coordinator, on a real __transaction_state
// log: EndTxn bumps the epoch (markers carry it), retries of a completed EndTxn, the move to a
// new producer id when the epoch is exhausted, version-1 values with the tagged previous / next
// producer id and client transaction version recovered after a restart without shutdown, and
// the verify-only form of AddPartitionsToTxn (KIP-890 part 1).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "broker/txn/transaction_coordinator.h"
#include "broker/txn/transaction_records.h"
#include "protocol/error_code.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"

namespace skiff::broker::txn {
namespace {

namespace fs = std::filesystem;
using protocol::ErrorCode;
using TP = storage::TopicPartition;

struct TxnV2Test : ::testing::Test {
    fs::path dir = fs::temp_directory_path() /
                   ("skiff-txn-v2-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    storage::LogConfig log_config;
    std::unique_ptr<storage::PartitionLog> log;
    int64_t next_pid = 100;
    int16_t transaction_version = 2;
    std::vector<std::pair<TP, Marker>> markers;
    ErrorCode marker_result = ErrorCode::none;

    void SetUp() override { fs::remove_all(dir); }
    void TearDown() override { fs::remove_all(dir); }

    void open_log() {
        log.reset();
        auto opened = storage::PartitionLog::open(dir / "__transaction_state-0", log_config);
        ASSERT_TRUE(opened);
        log = std::move(*opened);
    }

    // Opens (or reopens, as after kill -9: nothing is closed) the coordinator.
    std::unique_ptr<TransactionCoordinator> open() {
        open_log();
        TxnCoordinatorHooks hooks;
        hooks.next_producer_id = [this] { return next_pid++; };
        hooks.write_marker = [this](const TP& tp, const Marker& m,
                                    std::vector<storage::PendingSync>*) {
            markers.emplace_back(tp, m);
            return marker_result;
        };
        hooks.clock_ms = [] { return int64_t{1'000'000}; };
        hooks.transaction_version = [this] { return transaction_version; };
        auto c = TransactionCoordinator::open(*log, log_config, {}, std::move(hooks));
        EXPECT_TRUE(c) << c.error();
        return std::move(*c);
    }

    // A state record written straight to the log, as an earlier run would have left it.
    void write_state(const std::string& id, const TxnLogValue& value, int16_t version) {
        open_log();
        protocol::RecordSpec r;
        r.key = encode_txn_key(id);
        r.value = encode_txn_value(value, version);
        auto bytes = protocol::build_record_batch({}, {r});
        auto summaries = protocol::validate_batches(bytes);
        ASSERT_TRUE(summaries);
        ASSERT_TRUE(log->append(bytes, *summaries));
    }

    TxnMetadata metadata(const TransactionCoordinator& c, const std::string& id) {
        auto v = c.describe(id);
        EXPECT_TRUE(v) << id;
        return v ? v->metadata : TxnMetadata{};
    }
};

TEST_F(TxnV2Test, EndTxnBumpsTheEpochAndTheMarkersCarryIt) {
    auto c = open();
    auto p = c->init_producer_id("tx", 60000, -1, -1);
    ASSERT_EQ(p.producer_epoch, 0);
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}, {"t", 1}}, 2), ErrorCode::none);
    auto committed = c->end_transaction("tx", p.producer_id, 0, true, 2);
    EXPECT_EQ(committed.error, ErrorCode::none);
    EXPECT_EQ(committed.producer_id, p.producer_id);
    EXPECT_EQ(committed.producer_epoch, 1);
    ASSERT_EQ(markers.size(), 2u);
    for (const auto& [tp, m] : markers) {
        EXPECT_TRUE(m.commit);
        EXPECT_EQ(m.producer_id, p.producer_id);
        EXPECT_EQ(m.producer_epoch, 1) << tp.topic << "-" << tp.partition;
    }
    EXPECT_EQ(metadata(*c, "tx").state, TxnState::complete_commit);
    EXPECT_EQ(metadata(*c, "tx").producer_epoch, 1);

    // The old epoch is fenced everywhere: a zombie's batch, its add, its next EndTxn.
    EXPECT_EQ(c->verify_partition("tx", p.producer_id, 0, {"t", 0}),
              ErrorCode::invalid_producer_epoch);
    EXPECT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}}, 2), ErrorCode::producer_fenced);

    // The next transaction runs at the bumped epoch; its abort bumps again.
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, 1, {{"t", 2}}, 2), ErrorCode::none);
    EXPECT_EQ(c->verify_partition("tx", p.producer_id, 1, {"t", 2}), ErrorCode::none);
    auto aborted = c->end_transaction("tx", p.producer_id, 1, false, 2);
    EXPECT_EQ(aborted.error, ErrorCode::none);
    EXPECT_EQ(aborted.producer_epoch, 2);
    EXPECT_FALSE(markers.back().second.commit);
    EXPECT_EQ(markers.back().second.producer_epoch, 2);
    EXPECT_EQ(metadata(*c, "tx").state, TxnState::complete_abort);
}

TEST_F(TxnV2Test, RetriedEndTxnIsAnsweredAgainAndOthersAreFenced) {
    auto c = open();
    auto p = c->init_producer_id("tx", 60000, -1, -1);
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}}, 2), ErrorCode::none);
    ASSERT_EQ(c->end_transaction("tx", p.producer_id, 0, true, 2).error, ErrorCode::none);
    const size_t written = markers.size();
    // The answer was lost: the same request again gets the same answer, nothing is rewritten.
    auto retried = c->end_transaction("tx", p.producer_id, 0, true, 2);
    EXPECT_EQ(retried.error, ErrorCode::none);
    EXPECT_EQ(retried.producer_id, p.producer_id);
    EXPECT_EQ(retried.producer_epoch, 1);
    EXPECT_EQ(markers.size(), written);
    // The opposite outcome for the same transaction is a state error.
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, 0, false, 2).error,
              ErrorCode::invalid_txn_state);
    // With V2 the current epoch means the *next* EndTxn, and there is no transaction: fenced
    // (Kafka's answer), as is any other epoch.
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, 1, true, 2).error,
              ErrorCode::producer_fenced);
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, 5, true, 2).error,
              ErrorCode::producer_fenced);
    // Another producer id, an unknown transactional id, an empty one.
    EXPECT_EQ(c->end_transaction("tx", p.producer_id + 7, 1, true, 2).error,
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->end_transaction("nope", p.producer_id, 1, true, 2).error,
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->end_transaction("", p.producer_id, 1, true, 2).error, ErrorCode::invalid_request);
}

TEST_F(TxnV2Test, TransactionsV1KeepTheEpoch) {
    auto c = open();
    auto p = c->init_producer_id("tx", 60000, -1, -1);
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}}), ErrorCode::none);
    auto r = c->end_transaction("tx", p.producer_id, 0, true, 0);
    EXPECT_EQ(r.error, ErrorCode::none);
    EXPECT_EQ(r.producer_epoch, 0);
    EXPECT_EQ(markers.back().second.producer_epoch, 0);
    // V1's retry rule: the same epoch again answers NONE.
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, 0, true), ErrorCode::none);
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}}), ErrorCode::none);
    EXPECT_EQ(c->verify_partition("tx", p.producer_id, 0, {"t", 0}), ErrorCode::none);
}

// A transaction whose partitions came through AddPartitionsToTxn v0-3 and whose EndTxn is v5:
// bumped, and the Prepare record says so (a restart completes it the same way).
TEST_F(TxnV2Test, EndTxnV5OfATransactionAddedByV3BumpsAndRecordsIt) {
    {
        auto c = open();
        auto p = c->init_producer_id("tx", 60000, -1, -1);
        ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}}), ErrorCode::none);
        marker_result = ErrorCode::kafka_storage_error;  // left PrepareCommit
        auto r = c->end_transaction("tx", p.producer_id, 0, true, 2);
        EXPECT_EQ(r.error, ErrorCode::none);
        EXPECT_EQ(r.producer_epoch, 1);
        EXPECT_EQ(metadata(*c, "tx").client_transaction_version, 2);
    }
    marker_result = ErrorCode::none;
    auto c = open();
    auto m = metadata(*c, "tx");
    EXPECT_EQ(m.state, TxnState::complete_commit);
    EXPECT_EQ(m.producer_epoch, 1);
    EXPECT_EQ(m.client_transaction_version, 2);
    EXPECT_EQ(markers.back().second.producer_epoch, 1);
}

TEST_F(TxnV2Test, ExhaustedEpochMovesToANewProducerIdAfterTheMarkers) {
    TxnLogValue v;
    v.producer_id = 42;
    v.producer_epoch = kMaxBumpableEpoch;  // 32766: the last epoch a client may use
    v.transaction_timeout_ms = 60000;
    v.transaction_status = static_cast<int8_t>(TxnState::complete_commit);
    v.transaction_partitions = std::vector<TxnLogPartitions>{};
    v.client_transaction_version = 2;
    write_state("tx", v, 1);
    next_pid = 500;
    auto c = open();
    ASSERT_EQ(metadata(*c, "tx").producer_epoch, kMaxBumpableEpoch);
    ASSERT_EQ(c->add_partitions("tx", 42, kMaxBumpableEpoch, {{"t", 0}}, 2), ErrorCode::none);
    auto r = c->end_transaction("tx", 42, kMaxBumpableEpoch, true, 2);
    EXPECT_EQ(r.error, ErrorCode::none);
    EXPECT_EQ(r.producer_id, 500);
    EXPECT_EQ(r.producer_epoch, 0);
    // The markers close the old id's transaction at the last epoch.
    ASSERT_FALSE(markers.empty());
    EXPECT_EQ(markers.back().second.producer_id, 42);
    EXPECT_EQ(markers.back().second.producer_epoch, 32767);
    auto m = metadata(*c, "tx");
    EXPECT_EQ(m.producer_id, 500);
    EXPECT_EQ(m.producer_epoch, 0);
    EXPECT_EQ(m.previous_producer_id, 42);
    EXPECT_EQ(m.next_producer_id, -1);
    // A retry with the old id and epoch gets the new id again.
    auto retried = c->end_transaction("tx", 42, kMaxBumpableEpoch, true, 2);
    EXPECT_EQ(retried.error, ErrorCode::none);
    EXPECT_EQ(retried.producer_id, 500);
    EXPECT_EQ(retried.producer_epoch, 0);
    // The old id can no longer add or write.
    EXPECT_EQ(c->add_partitions("tx", 42, kMaxBumpableEpoch, {{"t", 0}}, 2),
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->verify_partition("tx", 42, 32767, {"t", 0}),
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->add_partitions("tx", 500, 0, {{"t", 0}}, 2), ErrorCode::none);
}

TEST_F(TxnV2Test, PreparedOverflowIsRecoveredAfterKill) {
    TxnLogValue v;
    v.producer_id = 42;
    v.producer_epoch = kMaxBumpableEpoch;
    v.transaction_timeout_ms = 60000;
    v.transaction_status = static_cast<int8_t>(TxnState::empty);
    v.client_transaction_version = 2;
    write_state("tx", v, 1);
    next_pid = 700;
    {
        auto c = open();
        ASSERT_EQ(c->add_partitions("tx", 42, kMaxBumpableEpoch, {{"t", 0}}, 2), ErrorCode::none);
        marker_result = ErrorCode::kafka_storage_error;  // retried later: stays PrepareCommit
        auto r = c->end_transaction("tx", 42, kMaxBumpableEpoch, true, 2);
        EXPECT_EQ(r.error, ErrorCode::none);
        EXPECT_EQ(r.producer_id, 700);
        auto m = metadata(*c, "tx");
        ASSERT_EQ(m.state, TxnState::prepare_commit);
        EXPECT_EQ(m.next_producer_id, 700);
        EXPECT_EQ(m.producer_epoch, 32767);
    }
    // Restart without shutdown: the version-1 value kept the next id and the client's
    // transaction version, so completing the commit at start moves to it.
    marker_result = ErrorCode::none;
    markers.clear();
    auto c = open();
    ASSERT_FALSE(markers.empty());
    EXPECT_EQ(markers.back().second.producer_id, 42);
    EXPECT_EQ(markers.back().second.producer_epoch, 32767);
    auto m = metadata(*c, "tx");
    EXPECT_EQ(m.state, TxnState::complete_commit);
    EXPECT_EQ(m.producer_id, 700);
    EXPECT_EQ(m.producer_epoch, 0);
    EXPECT_EQ(m.previous_producer_id, 42);
    EXPECT_EQ(m.client_transaction_version, 2);
    // And once more after another restart (the completion itself was written as version 1).
    c.reset();
    c = open();
    EXPECT_EQ(metadata(*c, "tx").previous_producer_id, 42);
    EXPECT_EQ(metadata(*c, "tx").producer_id, 700);
}

TEST_F(TxnV2Test, LevelZeroWritesVersionZeroValuesWhichForgetTheTaggedFields) {
    transaction_version = 0;
    {
        auto c = open();
        auto p = c->init_producer_id("tx", 60000, -1, -1);
        ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}}, 2), ErrorCode::none);
        EXPECT_EQ(metadata(*c, "tx").client_transaction_version, 2);
    }
    auto c = open();
    EXPECT_EQ(metadata(*c, "tx").state, TxnState::ongoing);
    EXPECT_EQ(metadata(*c, "tx").client_transaction_version, 0);  // not in a version-0 value
}

TEST_F(TxnV2Test, LogValueVersionOneRoundTripsTaggedFields) {
    TxnLogValue v;
    v.producer_id = 9;
    v.previous_producer_id = 8;
    v.next_producer_id = 10;
    v.producer_epoch = 3;
    v.transaction_timeout_ms = 1000;
    v.transaction_status = 1;
    v.transaction_partitions = std::vector<TxnLogPartitions>{{"t", {0, 2}}};
    v.client_transaction_version = 2;
    const auto bytes = encode_txn_value(v, 1);
    auto back = decode_txn_value(std::as_bytes(std::span(bytes.data(), bytes.size())));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->previous_producer_id, 8);
    EXPECT_EQ(back->next_producer_id, 10);
    EXPECT_EQ(back->client_transaction_version, 2);
    EXPECT_EQ(back->producer_epoch, 3);
    ASSERT_TRUE(back->transaction_partitions);
    EXPECT_EQ((*back->transaction_partitions)[0].partition_ids, (std::vector<int32_t>{0, 2}));
    // Version 0 has no room for them.
    const auto v0 = encode_txn_value(v, 0);
    auto back0 = decode_txn_value(std::as_bytes(std::span(v0.data(), v0.size())));
    ASSERT_TRUE(back0);
    EXPECT_FALSE(back0->previous_producer_id);
    EXPECT_FALSE(back0->client_transaction_version);
    // A truncated version-1 value is refused, not half read.
    auto cut = decode_txn_value(std::as_bytes(std::span(bytes.data(), bytes.size() - 3)));
    EXPECT_FALSE(cut);
}

TEST_F(TxnV2Test, VerifyOnlyAnswersPerPartitionAndAddsNothing) {
    auto c = open();
    auto p = c->init_producer_id("tx", 60000, -1, -1);
    std::vector<ErrorCode> out;
    // No transaction yet: every partition is TRANSACTION_ABORTABLE.
    ASSERT_EQ(c->verify_partitions("tx", p.producer_id, 0, {{"t", 0}}, out), ErrorCode::none);
    EXPECT_EQ(out, std::vector<ErrorCode>{ErrorCode::transaction_abortable});
    EXPECT_EQ(metadata(*c, "tx").state, TxnState::empty);
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}}), ErrorCode::none);
    ASSERT_EQ(c->verify_partitions("tx", p.producer_id, 0, {{"t", 0}, {"t", 1}}, out),
              ErrorCode::none);
    EXPECT_EQ(out, (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::transaction_abortable}));
    EXPECT_EQ(metadata(*c, "tx").partitions.size(), 1u);  // t-1 was not added
    EXPECT_EQ(c->verify_partitions("tx", p.producer_id + 1, 0, {{"t", 0}}, out),
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->verify_partitions("tx", p.producer_id, 3, {{"t", 0}}, out),
              ErrorCode::producer_fenced);
    EXPECT_EQ(c->verify_partitions("nope", p.producer_id, 0, {{"t", 0}}, out),
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->verify_partitions("", p.producer_id, 0, {{"t", 0}}, out),
              ErrorCode::invalid_request);
}

}  // namespace
}  // namespace skiff::broker::txn
