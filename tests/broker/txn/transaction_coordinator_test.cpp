// The transaction coordinator on a real __transaction_state partition log, with an injected
// clock, producer-id allocator and marker writer: Kafka's state machine and errors, fencing,
// restart (reopening from the same log, no clean shutdown) including the completion of a
// transaction left prepared, timeouts, id expiration and the bounded log.
#include "broker/txn/transaction_coordinator.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <tuple>

#include "broker/txn/transaction_records.h"
#include "protocol/error_code.h"

namespace skiff::protocol {
inline void PrintTo(ErrorCode e, std::ostream* os) {
    *os << error_name(e) << " (" << static_cast<int>(e) << ")";
}
}  // namespace skiff::protocol

namespace skiff::broker::txn {
namespace {

namespace fs = std::filesystem;
using protocol::ErrorCode;
using TP = storage::TopicPartition;

struct WrittenMarker {
    TP tp;
    Marker marker;
};

struct TxnCoordinatorTest : ::testing::Test {
    fs::path dir = fs::temp_directory_path() /
                   ("skiff-txn-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    storage::LogConfig log_config;
    TxnCoordinatorConfig config;
    std::unique_ptr<storage::PartitionLog> log;
    int64_t now = 1'000'000;
    int64_t next_pid = 100;
    std::vector<WrittenMarker> markers;
    ErrorCode marker_result = ErrorCode::none;

    void SetUp() override { fs::remove_all(dir); }
    void TearDown() override { fs::remove_all(dir); }

    // Opens (or reopens, like a restart after kill -9: nothing is closed) the coordinator.
    std::unique_ptr<TransactionCoordinator> open() {
        log.reset();
        auto opened = storage::PartitionLog::open(dir / "__transaction_state-0", log_config);
        EXPECT_TRUE(opened);
        log = std::move(*opened);
        TxnCoordinatorHooks hooks;
        hooks.next_producer_id = [this] { return next_pid++; };
        hooks.write_marker = [this](const TP& tp, const Marker& m,
                                    std::vector<storage::PendingSync>* unsynced) {
            markers.push_back({tp, m});
            if (unsynced && marker_result == ErrorCode::none)  // as a durable-mode partition
                unsynced->push_back({nullptr, static_cast<int64_t>(markers.size())});
            return marker_result;
        };
        hooks.clock_ms = [this] { return now; };
        auto c = TransactionCoordinator::open(*log, log_config, config, std::move(hooks));
        EXPECT_TRUE(c) << c.error();
        return std::move(*c);
    }

    TxnState state_of(const TransactionCoordinator& c, const std::string& id) {
        auto v = c.describe(id);
        EXPECT_TRUE(v) << id;
        return v ? v->metadata.state : TxnState::dead;
    }
};

TEST_F(TxnCoordinatorTest, InitProducerIdAllocatesThenBumpsTheEpoch) {
    auto c = open();
    auto first = c->init_producer_id("tx", 60000, -1, -1);
    EXPECT_EQ(first.error, ErrorCode::none);
    EXPECT_EQ(first.producer_id, 100);
    EXPECT_EQ(first.producer_epoch, 0);
    auto second = c->init_producer_id("tx", 60000, -1, -1);
    EXPECT_EQ(second.error, ErrorCode::none);
    EXPECT_EQ(second.producer_id, 100);
    EXPECT_EQ(second.producer_epoch, 1);
    EXPECT_EQ(state_of(*c, "tx"), TxnState::empty);
    // Another id gets another producer id.
    EXPECT_EQ(c->init_producer_id("other", 60000, -1, -1).producer_id, 101);
}

TEST_F(TxnCoordinatorTest, InitProducerIdValidation) {
    config.max_timeout_ms = 900000;
    auto c = open();
    EXPECT_EQ(c->init_producer_id("", 60000, -1, -1).error, ErrorCode::invalid_request);
    EXPECT_EQ(c->init_producer_id("tx", 60000, 5, -1).error, ErrorCode::invalid_request);
    EXPECT_EQ(c->init_producer_id("tx", 60000, -1, 0).error, ErrorCode::invalid_request);
    EXPECT_EQ(c->init_producer_id("tx", 0, -1, -1).error, ErrorCode::invalid_transaction_timeout);
    EXPECT_EQ(c->init_producer_id("tx", 900001, -1, -1).error,
              ErrorCode::invalid_transaction_timeout);
    auto r = c->init_producer_id("tx", 2147483647, -1, -1);
    EXPECT_EQ(r.error, ErrorCode::invalid_transaction_timeout);
    EXPECT_EQ(r.producer_id, -1);
    EXPECT_FALSE(c->describe("tx"));  // nothing created by refused requests
    EXPECT_EQ(c->init_producer_id("tx", 900000, -1, -1).error, ErrorCode::none);
}

TEST_F(TxnCoordinatorTest, ExpectedProducerIdAndEpochKip360) {
    auto c = open();
    auto p = c->init_producer_id("tx", 60000, -1, -1);
    auto bumped = c->init_producer_id("tx", 60000, p.producer_id, p.producer_epoch);
    EXPECT_EQ(bumped.error, ErrorCode::none);
    EXPECT_EQ(bumped.producer_epoch, 1);
    // The same request again (its answer was lost): the same epoch, not another bump.
    auto retried = c->init_producer_id("tx", 60000, p.producer_id, p.producer_epoch);
    EXPECT_EQ(retried.error, ErrorCode::none);
    EXPECT_EQ(retried.producer_epoch, 1);
    EXPECT_EQ(c->init_producer_id("tx", 60000, p.producer_id, 7).error, ErrorCode::producer_fenced);
    EXPECT_EQ(c->init_producer_id("tx", 60000, 999, 1).error, ErrorCode::producer_fenced);
}

TEST_F(TxnCoordinatorTest, CommitWritesMarkersToEveryPartitionThenCompletes) {
    auto c = open();
    auto p = c->init_producer_id("tx", 60000, -1, -1);
    EXPECT_EQ(c->verify_partition("tx", p.producer_id, p.producer_epoch, {"t", 0}),
              ErrorCode::invalid_txn_state);  // not added yet
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, p.producer_epoch, {{"t", 0}, {"t", 1}}),
              ErrorCode::none);
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, p.producer_epoch, {{"__consumer_offsets", 0}}),
              ErrorCode::none);
    auto v = c->describe("tx");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->metadata.state, TxnState::ongoing);
    EXPECT_EQ(v->metadata.start_timestamp_ms, now);
    EXPECT_EQ(v->metadata.partitions.size(), 3u);
    EXPECT_EQ(c->verify_partition("tx", p.producer_id, p.producer_epoch, {"t", 1}),
              ErrorCode::none);
    EXPECT_EQ(c->verify_partition("tx", p.producer_id, p.producer_epoch, {"t", 2}),
              ErrorCode::invalid_txn_state);
    EXPECT_EQ(c->verify_partition("tx", p.producer_id + 1, p.producer_epoch, {"t", 1}),
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->verify_partition("nobody", p.producer_id, p.producer_epoch, {"t", 1}),
              ErrorCode::invalid_producer_id_mapping);

    ASSERT_EQ(c->end_transaction("tx", p.producer_id, p.producer_epoch, true), ErrorCode::none);
    ASSERT_EQ(markers.size(), 3u);
    std::set<TP> marked;
    for (const auto& m : markers) {
        marked.insert(m.tp);
        EXPECT_TRUE(m.marker.commit);
        EXPECT_EQ(m.marker.producer_id, p.producer_id);
        EXPECT_EQ(m.marker.producer_epoch, p.producer_epoch);
        EXPECT_EQ(m.marker.coordinator_epoch, 0);
    }
    EXPECT_EQ(marked, (std::set<TP>{{"__consumer_offsets", 0}, {"t", 0}, {"t", 1}}));
    v = c->describe("tx");
    EXPECT_EQ(v->metadata.state, TxnState::complete_commit);
    EXPECT_TRUE(v->metadata.partitions.empty());
    EXPECT_EQ(c->verify_partition("tx", p.producer_id, p.producer_epoch, {"t", 1}),
              ErrorCode::invalid_txn_state);
    // A retried commit succeeds without new markers; an abort now is the wrong state.
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, p.producer_epoch, true), ErrorCode::none);
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, p.producer_epoch, false),
              ErrorCode::invalid_txn_state);
    EXPECT_EQ(markers.size(), 3u);
    // The next transaction starts from CompleteCommit.
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, p.producer_epoch, {{"t", 2}}),
              ErrorCode::none);
    ASSERT_EQ(c->end_transaction("tx", p.producer_id, p.producer_epoch, false), ErrorCode::none);
    ASSERT_EQ(markers.size(), 4u);
    EXPECT_FALSE(markers.back().marker.commit);
    EXPECT_EQ(markers.back().tp, (TP{"t", 2}));
    EXPECT_EQ(state_of(*c, "tx"), TxnState::complete_abort);
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, p.producer_epoch, true),
              ErrorCode::invalid_txn_state);
}

TEST_F(TxnCoordinatorTest, ErrorsInKafkasOrder) {
    auto c = open();
    EXPECT_EQ(c->add_partitions("", 1, 0, {{"t", 0}}), ErrorCode::invalid_request);
    EXPECT_EQ(c->add_partitions("tx", 1, 0, {{"t", 0}}), ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->end_transaction("tx", 1, 0, true), ErrorCode::invalid_producer_id_mapping);
    auto p = c->init_producer_id("tx", 60000, -1, -1);
    EXPECT_EQ(c->add_partitions("tx", p.producer_id + 1, 0, {{"t", 0}}),
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(c->add_partitions("tx", p.producer_id, 3, {{"t", 0}}), ErrorCode::producer_fenced);
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, 3, true), ErrorCode::producer_fenced);
    // Nothing to end in Empty.
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, p.producer_epoch, true),
              ErrorCode::invalid_txn_state);
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, p.producer_epoch, false),
              ErrorCode::invalid_txn_state);
    EXPECT_TRUE(markers.empty());
}

TEST_F(TxnCoordinatorTest, ANewIncarnationFencesAndAbortsTheOngoingTransaction) {
    auto c = open();
    auto old = c->init_producer_id("tx", 60000, -1, -1);
    ASSERT_EQ(c->add_partitions("tx", old.producer_id, old.producer_epoch, {{"t", 0}}),
              ErrorCode::none);
    // The new producer: CONCURRENT_TRANSACTIONS while the old transaction is aborted with the
    // bumped epoch, then (its retry) the epoch after that.
    auto first_try = c->init_producer_id("tx", 60000, -1, -1);
    EXPECT_EQ(first_try.error, ErrorCode::concurrent_transactions);
    ASSERT_EQ(markers.size(), 1u);
    EXPECT_FALSE(markers[0].marker.commit);
    EXPECT_EQ(markers[0].marker.producer_epoch, old.producer_epoch + 1);
    EXPECT_EQ(state_of(*c, "tx"), TxnState::complete_abort);
    auto retry = c->init_producer_id("tx", 60000, -1, -1);
    EXPECT_EQ(retry.error, ErrorCode::none);
    EXPECT_EQ(retry.producer_id, old.producer_id);
    EXPECT_EQ(retry.producer_epoch, old.producer_epoch + 2);
    // The old producer is fenced everywhere.
    EXPECT_EQ(c->end_transaction("tx", old.producer_id, old.producer_epoch, true),
              ErrorCode::producer_fenced);
    EXPECT_EQ(c->add_partitions("tx", old.producer_id, old.producer_epoch, {{"t", 0}}),
              ErrorCode::producer_fenced);
    EXPECT_EQ(c->verify_partition("tx", old.producer_id, old.producer_epoch, {"t", 0}),
              ErrorCode::invalid_producer_epoch);
    // Its KIP-360 recovery with the old epoch is fenced too.
    EXPECT_EQ(c->init_producer_id("tx", 60000, old.producer_id, old.producer_epoch).error,
              ErrorCode::producer_fenced);
}

TEST_F(TxnCoordinatorTest, StateSurvivesARestart) {
    int64_t pid = 0;
    {
        auto c = open();
        auto p = c->init_producer_id("tx", 45000, -1, -1);
        pid = p.producer_id;
        ASSERT_EQ(c->add_partitions("tx", pid, 0, {{"a", 0}, {"b", 3}}), ErrorCode::none);
        auto q = c->init_producer_id("done", 60000, -1, -1);
        ASSERT_EQ(c->add_partitions("done", q.producer_id, 0, {{"a", 1}}), ErrorCode::none);
        ASSERT_EQ(c->end_transaction("done", q.producer_id, 0, true), ErrorCode::none);
        c->init_producer_id("gone", 60000, -1, -1);
        now += config.transactional_id_expiration_ms + 1;
        EXPECT_EQ(c->expire_transactional_ids(), 2u);  // "done" and "gone"; not the ongoing one
    }
    markers.clear();
    auto c = open();
    auto v = c->describe("tx");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->metadata.state, TxnState::ongoing);
    EXPECT_EQ(v->metadata.producer_id, pid);
    EXPECT_EQ(v->metadata.producer_epoch, 0);
    EXPECT_EQ(v->metadata.timeout_ms, 45000);
    EXPECT_EQ(v->metadata.partitions, (std::set<TP>{{"a", 0}, {"b", 3}}));
    EXPECT_FALSE(c->describe("done"));
    EXPECT_FALSE(c->describe("gone"));
    EXPECT_TRUE(markers.empty());
    // The transaction goes on after the restart.
    EXPECT_EQ(c->verify_partition("tx", pid, 0, {"b", 3}), ErrorCode::none);
    EXPECT_EQ(c->end_transaction("tx", pid, 0, true), ErrorCode::none);
    EXPECT_EQ(markers.size(), 2u);
}

TEST_F(TxnCoordinatorTest, APreparedTransactionIsCompletedAtStart) {
    int64_t pid = 0;
    {
        auto c = open();
        auto p = c->init_producer_id("tx", 60000, -1, -1);
        pid = p.producer_id;
        ASSERT_EQ(c->add_partitions("tx", pid, 0, {{"t", 0}, {"t", 1}}), ErrorCode::none);
        // The markers cannot be written (disk trouble): PrepareCommit stays, durable.
        marker_result = ErrorCode::kafka_storage_error;
        EXPECT_EQ(c->end_transaction("tx", pid, 0, true), ErrorCode::none);
        EXPECT_EQ(state_of(*c, "tx"), TxnState::prepare_commit);
        // Meanwhile: retriable answers.
        EXPECT_EQ(c->init_producer_id("tx", 60000, -1, -1).error,
                  ErrorCode::concurrent_transactions);
        EXPECT_EQ(c->add_partitions("tx", pid, 0, {{"t", 5}}), ErrorCode::concurrent_transactions);
        EXPECT_EQ(c->end_transaction("tx", pid, 0, true), ErrorCode::concurrent_transactions);
        EXPECT_EQ(c->end_transaction("tx", pid, 0, false), ErrorCode::invalid_txn_state);
        EXPECT_EQ(c->verify_partition("tx", pid, 0, {"t", 0}), ErrorCode::not_enough_replicas);
    }
    // A restart (as after kill -9 between Prepare and Complete) writes the markers again.
    markers.clear();
    marker_result = ErrorCode::none;
    auto c = open();
    ASSERT_EQ(markers.size(), 2u);
    for (const auto& m : markers) {
        EXPECT_TRUE(m.marker.commit);
        EXPECT_EQ(m.marker.producer_id, pid);
        EXPECT_EQ(m.marker.producer_epoch, 0);
    }
    EXPECT_EQ(state_of(*c, "tx"), TxnState::complete_commit);
    // And it stays complete across the next restart.
    markers.clear();
    c = open();
    EXPECT_TRUE(markers.empty());
    EXPECT_EQ(state_of(*c, "tx"), TxnState::complete_commit);
    EXPECT_EQ(c->end_transaction("tx", pid, 0, true), ErrorCode::none);
}

TEST_F(TxnCoordinatorTest, FailedMarkersAreRetriedPeriodically) {
    auto c = open();
    auto p = c->init_producer_id("tx", 60000, -1, -1);
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}, {"u", 0}}), ErrorCode::none);
    marker_result = ErrorCode::kafka_storage_error;
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, 0, false), ErrorCode::none);
    EXPECT_EQ(state_of(*c, "tx"), TxnState::prepare_abort);
    markers.clear();
    marker_result = ErrorCode::none;
    EXPECT_EQ(c->abort_timed_out(), 0u);  // completes, but aborts nothing new
    EXPECT_EQ(markers.size(), 2u);
    EXPECT_EQ(state_of(*c, "tx"), TxnState::complete_abort);
}

TEST_F(TxnCoordinatorTest, ATransactionPastItsTimeoutIsAbortedAndItsProducerFenced) {
    auto c = open();
    auto p = c->init_producer_id("tx", 1000, -1, -1);
    ASSERT_EQ(c->add_partitions("tx", p.producer_id, 0, {{"t", 0}}), ErrorCode::none);
    auto idle = c->init_producer_id("idle", 1000, -1, -1);  // Empty: nothing to abort
    now += 1000;
    EXPECT_EQ(c->abort_timed_out(), 0u);  // start + timeout is not yet before now
    now += 1;
    EXPECT_EQ(c->abort_timed_out(), 1u);
    ASSERT_EQ(markers.size(), 1u);
    EXPECT_FALSE(markers[0].marker.commit);
    EXPECT_EQ(markers[0].marker.producer_epoch, 1);
    auto v = c->describe("tx");
    EXPECT_EQ(v->metadata.state, TxnState::complete_abort);
    EXPECT_EQ(v->metadata.producer_epoch, 1);
    EXPECT_EQ(state_of(*c, "idle"), TxnState::empty);
    // The producer that let it time out is fenced.
    EXPECT_EQ(c->end_transaction("tx", p.producer_id, 0, true), ErrorCode::producer_fenced);
    EXPECT_EQ(c->verify_partition("tx", p.producer_id, 0, {"t", 0}),
              ErrorCode::invalid_producer_epoch);
    EXPECT_EQ(c->abort_timed_out(), 0u);
    (void)idle;
}

// A power cut that lost the coordinator's records but not the partitions' batches: every
// transaction a partition holds open and no transaction of the coordinator will end gets its
// ABORT marker at start-up, and a transaction that lost one partition is aborted whole.
TEST_F(TxnCoordinatorTest, TransactionsThePartitionsHoldOpenButTheCoordinatorLostAreAborted) {
    auto c = open();
    auto ongoing = c->init_producer_id("ongoing", 60000, -1, -1);  // pid 100
    ASSERT_EQ(c->add_partitions("ongoing", ongoing.producer_id, 0, {{"t", 0}}), ErrorCode::none);
    auto lost_part = c->init_producer_id("lost-part", 60000, -1, -1);  // pid 101
    ASSERT_EQ(c->add_partitions("lost-part", lost_part.producer_id, 0, {{"t", 1}}),
              ErrorCode::none);
    auto idle = c->init_producer_id("idle", 60000, -1, -1);      // pid 102, Empty
    auto fenced = c->init_producer_id("fenced", 60000, -1, -1);  // pid 103
    ASSERT_EQ(c->add_partitions("fenced", fenced.producer_id, 0, {{"u", 0}}), ErrorCode::none);
    // A new incarnation: epoch 0's transaction is aborted (the marker for "u"-1, whose add the
    // coordinator lost, never written) and the next one runs at the epoch it got.
    InitProducerIdResult again;
    do
        again = c->init_producer_id("fenced", 60000, -1, -1);
    while (again.error == ErrorCode::concurrent_transactions);
    ASSERT_EQ(again.error, ErrorCode::none);
    ASSERT_EQ(c->add_partitions("fenced", fenced.producer_id, again.producer_epoch, {{"u", 0}}),
              ErrorCode::none);
    markers.clear();

    const std::vector<OpenTransaction> open_in_partitions = {
        {{"t", 0}, ongoing.producer_id, 0},                    // the coordinator's own: left to it
        {{"t", 2}, lost_part.producer_id, 0},                  // the coordinator lost this add
        {{"u", 0}, idle.producer_id, 0},                       // an idle id's current epoch
        {{"u", 1}, 999, 3},                                    // a producer id it never heard of
        {{"u", 1}, fenced.producer_id, 0},                     // an older epoch's transaction
        {{"u", 0}, fenced.producer_id, again.producer_epoch},  // the current one
    };
    EXPECT_EQ(c->abort_hanging(open_in_partitions), 4u);

    // Lone markers at the partition's epoch, then "idle" and the whole of "lost-part" at a
    // bumped epoch.
    using Row = std::tuple<std::string, int32_t, int64_t, int16_t, bool>;
    std::vector<Row> got;
    for (const auto& m : markers)
        got.emplace_back(m.tp.topic, m.tp.partition, m.marker.producer_id, m.marker.producer_epoch,
                         m.marker.commit);
    EXPECT_EQ(got, (std::vector<Row>{{"u", 1, 999, 3, false},
                                     {"u", 1, 103, 0, false},
                                     {"u", 0, 102, 1, false},
                                     {"t", 1, 101, 1, false},
                                     {"t", 2, 101, 1, false}}));
    EXPECT_EQ(state_of(*c, "ongoing"), TxnState::ongoing);
    EXPECT_EQ(state_of(*c, "fenced"), TxnState::ongoing);
    // The idle id's producer, which had begun a transaction the coordinator lost, is fenced:
    // its commit is not answered NONE as the retry of a completed one.
    EXPECT_EQ(state_of(*c, "idle"), TxnState::complete_abort);
    EXPECT_EQ(c->end_transaction("idle", idle.producer_id, 0, true), ErrorCode::producer_fenced);
    auto v = c->describe("lost-part");
    EXPECT_EQ(v->metadata.state, TxnState::complete_abort);
    EXPECT_EQ(v->metadata.producer_epoch, 1);
    // Its producer is fenced, as after a timeout: its commit cannot make "t"-1 alone visible.
    EXPECT_EQ(c->end_transaction("lost-part", lost_part.producer_id, 0, true),
              ErrorCode::producer_fenced);
    // The abort is on disk: a restart finds it complete.
    c.reset();
    c = open();
    EXPECT_EQ(state_of(*c, "lost-part"), TxnState::complete_abort);
    EXPECT_EQ(c->abort_hanging({}), 0u);
}

TEST_F(TxnCoordinatorTest, IdleIdsExpireOthersStay) {
    config.transactional_id_expiration_ms = 5000;
    auto c = open();
    c->init_producer_id("empty", 60000, -1, -1);
    auto o = c->init_producer_id("ongoing", 60000, -1, -1);
    ASSERT_EQ(c->add_partitions("ongoing", o.producer_id, 0, {{"t", 0}}), ErrorCode::none);
    now += 4999;
    EXPECT_EQ(c->expire_transactional_ids(), 0u);
    now += 1;
    EXPECT_EQ(c->expire_transactional_ids(), 1u);
    EXPECT_FALSE(c->describe("empty"));
    EXPECT_EQ(state_of(*c, "ongoing"), TxnState::ongoing);
    // An expired id starts over with a new producer id.
    auto again = c->init_producer_id("empty", 60000, -1, -1);
    EXPECT_EQ(again.producer_epoch, 0);
    EXPECT_NE(again.producer_id, o.producer_id);
}

TEST_F(TxnCoordinatorTest, LogStaysBoundedAndReplaysTheLatestState) {
    log_config.segment_bytes = 8192;
    auto c = open();
    std::vector<InitProducerIdResult> ids;
    for (int i = 0; i < 20; ++i)
        ids.push_back(c->init_producer_id("tx-" + std::to_string(i), 60000, -1, -1));
    for (int round = 0; round < 150; ++round) {
        for (int i = 0; i < 20; ++i) {
            const auto& p = ids[static_cast<size_t>(i)];
            const std::string id = "tx-" + std::to_string(i);
            ASSERT_EQ(c->add_partitions(id, p.producer_id, p.producer_epoch, {{"t", round % 4}}),
                      ErrorCode::none);
            ASSERT_EQ(c->end_transaction(id, p.producer_id, p.producer_epoch, round % 2 == 0),
                      ErrorCode::none);
        }
        log->apply_retention();
    }
    EXPECT_GT(c->snapshots_written(), 1);
    EXPECT_GT(log->log_start_offset(), 0);  // old segments went
    EXPECT_LT(log->size_bytes(), 4 * 8192);
    // The last round (149) aborted.
    c = open();
    for (int i = 0; i < 20; ++i)
        EXPECT_EQ(state_of(*c, "tx-" + std::to_string(i)), TxnState::complete_abort) << i;
}

TEST(TxnRecords, ValueVersionZeroIsKafkasLayout) {
    TxnLogValue v;
    v.producer_id = 7;
    v.producer_epoch = 2;
    v.transaction_timeout_ms = 60000;
    v.transaction_status = 1;
    v.transaction_partitions = std::vector<TxnLogPartitions>{{"t", {0, 3}}};
    v.transaction_last_update_timestamp_ms = 9;
    v.transaction_start_timestamp_ms = 8;
    const std::string bytes = encode_txn_value(v);
    const std::string expected(
        "\x00\x00"                                          // version 0
        "\x00\x00\x00\x00\x00\x00\x00\x07"                  // producer id
        "\x00\x02"                                          // epoch
        "\x00\x00\xea\x60"                                  // timeout 60000
        "\x01"                                              // Ongoing
        "\x00\x00\x00\x01"                                  // one topic
        "\x00\x01t"                                         // "t"
        "\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x03"  // [0, 3]
        "\x00\x00\x00\x00\x00\x00\x00\x09"                  // last update
        "\x00\x00\x00\x00\x00\x00\x00\x08",                 // start
        2 + 8 + 2 + 4 + 1 + 4 + 3 + 12 + 8 + 8);
    EXPECT_EQ(bytes, expected);
    auto decoded = decode_txn_value(std::as_bytes(std::span(bytes.data(), bytes.size())));
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->transaction_partitions->at(0).partition_ids, (std::vector<int32_t>{0, 3}));
    // Empty: partitions are null (-1).
    v.transaction_status = 0;
    v.transaction_partitions.reset();
    const std::string empty = encode_txn_value(v);
    EXPECT_EQ(empty.substr(17, 4), std::string("\xff\xff\xff\xff", 4));
    const std::string key = encode_txn_key("tx");
    EXPECT_EQ(key, std::string("\x00\x00\x00\x02tx", 6));
}

// Durable mode with a Deferred (a request handler's call): each transition is appended unsynced
// and handed back to wait for; a commit writes no marker until asked, and records Complete only
// after them. Prepare, markers and Complete are then in that order on disk.
TEST_F(TxnCoordinatorTest, DurableModeHandsTheWritesBackInTheOrderTheyMustReachTheDisk) {
    log_config.flush_interval_messages = 1;
    auto c = open();
    ASSERT_TRUE(log->durable_mode());
    Deferred init;
    auto p = c->init_producer_id("t", 60000, -1, -1, &init);
    ASSERT_EQ(p.error, ErrorCode::none);
    ASSERT_EQ(init.syncs.size(), 1u);
    EXPECT_EQ(init.syncs[0].log, log.get());
    EXPECT_EQ(init.syncs[0].end, log->log_end_offset());
    EXPECT_LT(log->durable_end(), log->log_end_offset());
    log->sync_appended();
    EXPECT_EQ(log->durable_end(), log->log_end_offset());

    Deferred add;
    ASSERT_EQ(
        c->add_partitions("t", p.producer_id, p.producer_epoch, {{"a", 0}, {"b", 0}}, 0, &add),
        ErrorCode::none);
    ASSERT_EQ(add.syncs.size(), 1u);
    // Until the add is on disk, a produce relying on it, and a retry of it, wait for its sync.
    Deferred produce;
    EXPECT_EQ(c->verify_partition("t", p.producer_id, p.producer_epoch, {"a", 0}, &produce),
              ErrorCode::none);
    ASSERT_EQ(produce.syncs.size(), 1u);
    EXPECT_EQ(produce.syncs[0].end, add.syncs[0].end);
    Deferred retry;
    EXPECT_EQ(c->add_partitions("t", p.producer_id, p.producer_epoch, {{"a", 0}}, 0, &retry),
              ErrorCode::none);
    ASSERT_EQ(retry.syncs.size(), 1u);
    log->sync_appended();
    Deferred after;
    EXPECT_EQ(c->verify_partition("t", p.producer_id, p.producer_epoch, {"a", 0}, &after),
              ErrorCode::none);
    EXPECT_TRUE(after.syncs.empty());

    Deferred end;
    auto ended = c->end_transaction("t", p.producer_id, p.producer_epoch, true, 0, &end);
    ASSERT_EQ(ended.error, ErrorCode::none);
    ASSERT_TRUE(end.completion);
    ASSERT_EQ(end.syncs.size(), 1u);
    EXPECT_TRUE(markers.empty());  // not before the Prepare record is on disk
    EXPECT_EQ(state_of(*c, "t"), TxnState::prepare_commit);
    EXPECT_EQ(c->add_partitions("t", p.producer_id, p.producer_epoch, {{"a", 0}}),
              ErrorCode::concurrent_transactions);
    log->sync_appended();
    std::vector<MarkerWrite> written;
    EXPECT_TRUE(c->write_markers(*end.completion, written).empty());
    ASSERT_EQ(markers.size(), 2u);
    ASSERT_EQ(written.size(), 2u);
    EXPECT_EQ(written[0].tp, (TP{"a", 0}));
    EXPECT_EQ(written[1].tp, (TP{"b", 0}));
    EXPECT_TRUE(markers[0].marker.commit);
    EXPECT_EQ(state_of(*c, "t"), TxnState::prepare_commit);  // until the markers are synced
    const int64_t before_complete = log->log_end_offset();
    Deferred complete;
    c->finish(*end.completion, {}, &complete);
    EXPECT_EQ(state_of(*c, "t"), TxnState::complete_commit);
    ASSERT_EQ(complete.syncs.size(), 1u);
    EXPECT_GT(complete.syncs[0].end, before_complete);

    // Without a Deferred (the maintenance thread, start-up) everything is flushed at once.
    auto again = c->init_producer_id("t", 60000, -1, -1);
    ASSERT_EQ(again.error, ErrorCode::none);
    EXPECT_EQ(log->durable_end(), log->log_end_offset());
}

// A Prepare record that could not be synced: no marker is written for it by the request; the
// maintenance thread completes the transaction later, as one whose markers failed.
TEST_F(TxnCoordinatorTest, AnAbandonedCompletionIsFinishedByTheMaintenanceThread) {
    log_config.flush_interval_messages = 1;
    auto c = open();
    auto p = c->init_producer_id("t", 60000, -1, -1);
    ASSERT_EQ(c->add_partitions("t", p.producer_id, p.producer_epoch, {{"a", 0}}), ErrorCode::none);
    Deferred end;
    ASSERT_EQ(c->end_transaction("t", p.producer_id, p.producer_epoch, false, 0, &end).error,
              ErrorCode::none);
    ASSERT_TRUE(end.completion);
    c->abandon(*end.completion);
    EXPECT_TRUE(markers.empty());
    EXPECT_EQ(c->abort_timed_out(), 0u);  // completed, not a new abort
    ASSERT_EQ(markers.size(), 1u);
    EXPECT_FALSE(markers[0].marker.commit);
    EXPECT_EQ(state_of(*c, "t"), TxnState::complete_abort);
}

}  // namespace
}  // namespace skiff::broker::txn
