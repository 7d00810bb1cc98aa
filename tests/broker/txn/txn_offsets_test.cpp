// Transactional offset commits (TxnOffsetCommit) in the offsets store and the group coordinator,
// on a real __consumer_offsets partition log: offsets stay pending until the transaction's marker,
// a COMMIT applies them and an ABORT drops them, the marker and the transactional batch are in
// the log in Kafka's format, pending offsets survive a reopen (replay) and the store's snapshots
// plus retention, and the group rules differ from plain commits where Kafka's do.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "broker/group/group_coordinator.h"
#include "broker/group/offset_store.h"
#include "protocol/record_batch.h"
#include "protocol/record_iterator.h"
#include "storage/partition_log.h"

namespace skiff::broker::group {
namespace {

namespace fs = std::filesystem;
using protocol::ErrorCode;

struct TxnOffsetsTest : ::testing::Test {
    fs::path dir = fs::temp_directory_path() /
                   ("skiff-txn-offsets-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    storage::LogConfig config;
    std::unique_ptr<storage::PartitionLog> log;
    std::unique_ptr<OffsetStore> store;

    void SetUp() override { fs::remove_all(dir); }
    void TearDown() override {
        store.reset();
        log.reset();
        fs::remove_all(dir);
    }

    // Opens (or reopens, as after a kill -9: nothing is closed first) the log and the store.
    void open() {
        store.reset();
        log.reset();
        auto opened = storage::PartitionLog::open(dir / "__consumer_offsets-0", config);
        ASSERT_TRUE(opened);
        log = std::move(*opened);
        auto s = OffsetStore::open(*log, config);
        ASSERT_TRUE(s) << s.error();
        store = std::move(*s);
    }

    static CommittedOffset at(int64_t offset, std::string metadata = "") {
        return CommittedOffset{offset, -1, std::move(metadata), 1000};
    }

    // Every batch header in the log, in order.
    std::vector<protocol::BatchHeader> batches() {
        std::vector<protocol::BatchHeader> out;
        int64_t offset = log->log_start_offset();
        while (offset < log->high_watermark()) {
            auto read = log->read(offset, 1 << 20, true);
            EXPECT_TRUE(read);
            if (!read || read->total_bytes == 0)
                break;
            std::vector<std::byte> buffer(static_cast<size_t>(read->total_bytes));
            size_t filled = 0;
            for (const auto& slice : read->slices) {
                EXPECT_EQ(::pread(slice.fd, buffer.data() + filled,
                                  static_cast<size_t>(slice.length), slice.position),
                          slice.length);
                filled += static_cast<size_t>(slice.length);
            }
            std::span<const std::byte> rest(buffer);
            while (!rest.empty()) {
                auto h = protocol::check_batch(rest);
                EXPECT_TRUE(h);
                if (!h)
                    return out;
                out.push_back(*h);
                offset = h->last_offset() + 1;
                rest = rest.subspan(static_cast<size_t>(h->size_bytes()));
            }
        }
        return out;
    }
};

TEST_F(TxnOffsetsTest, PendingUntilCommitMarkerThenApplied) {
    open();
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, at(5)}}));
    ASSERT_TRUE(
        store->commit_transactional("g", 1000, 3, {{{"t", 0}, at(10, "txn")}, {{"t", 1}, at(20)}}));
    EXPECT_TRUE(store->has_pending("g", {"t", 0}));
    EXPECT_TRUE(store->has_pending("g", {"t", 1}));
    EXPECT_FALSE(store->has_pending("g", {"t", 2}));
    EXPECT_FALSE(store->has_pending("other", {"t", 0}));
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 5);  // the committed one until the marker
    EXPECT_FALSE(store->get("g", {"t", 1}));
    ASSERT_TRUE(store->complete_transaction(1000, 3, 0, true));
    EXPECT_FALSE(store->has_pending("g", {"t", 0}));
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 10);
    EXPECT_EQ(store->get("g", {"t", 0})->metadata, "txn");
    EXPECT_EQ(store->get("g", {"t", 1})->offset, 20);
    EXPECT_TRUE(store->pending_producers().empty());

    // In the log: the plain batch, one transactional batch of the producer (base sequence -1),
    // then the COMMIT control batch (attributes 0x30, 78 bytes).
    auto all = batches();
    ASSERT_EQ(all.size(), 3u);
    EXPECT_FALSE(all[0].is_transactional());
    EXPECT_TRUE(all[1].is_transactional());
    EXPECT_FALSE(all[1].is_control());
    EXPECT_EQ(all[1].producer_id, 1000);
    EXPECT_EQ(all[1].producer_epoch, 3);
    EXPECT_EQ(all[1].base_sequence, -1);
    EXPECT_EQ(all[1].last_offset_delta, 1);
    EXPECT_TRUE(all[2].is_control());
    EXPECT_TRUE(all[2].is_transactional());
    EXPECT_EQ(all[2].producer_id, 1000);
    EXPECT_EQ(all[2].size_bytes(), 78);
}

TEST_F(TxnOffsetsTest, AbortDropsPendingAndKeepsTheCommittedOffset) {
    open();
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, at(5)}}));
    ASSERT_TRUE(store->commit_transactional("g", 1000, 0, {{{"t", 0}, at(10)}}));
    ASSERT_TRUE(store->complete_transaction(1000, 0, 0, false));
    EXPECT_FALSE(store->has_pending("g", {"t", 0}));
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 5);
    open();
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 5);
    EXPECT_FALSE(store->has_pending("g", {"t", 0}));
}

TEST_F(TxnOffsetsTest, MarkerSettlesOnlyItsProducerInEveryGroup) {
    open();
    ASSERT_TRUE(store->commit_transactional("g1", 1, 0, {{{"t", 0}, at(1)}}));
    ASSERT_TRUE(store->commit_transactional("g2", 1, 0, {{{"t", 0}, at(2)}}));
    ASSERT_TRUE(store->commit_transactional("g3", 2, 0, {{{"t", 0}, at(3)}}));
    ASSERT_TRUE(store->complete_transaction(1, 0, 0, true));
    EXPECT_EQ(store->get("g1", {"t", 0})->offset, 1);
    EXPECT_EQ(store->get("g2", {"t", 0})->offset, 2);
    EXPECT_FALSE(store->get("g3", {"t", 0}));
    EXPECT_TRUE(store->has_pending("g3", {"t", 0}));
    EXPECT_EQ(store->pending_producers(), std::vector<int64_t>{2});
    // A marker for a producer without pending offsets is written and changes nothing.
    ASSERT_TRUE(store->complete_transaction(77, 0, 0, true));
    EXPECT_EQ(store->pending_producers(), std::vector<int64_t>{2});
}

TEST_F(TxnOffsetsTest, CommitKeepsThePlainCommitWrittenAfterTheTransactionalOne) {
    open();
    ASSERT_TRUE(store->commit_transactional("g", 1, 0, {{{"t", 0}, at(10)}, {{"t", 1}, at(11)}}));
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, at(20)}}));  // newer than the txn's record
    ASSERT_TRUE(store->complete_transaction(1, 0, 0, true));
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 20);
    EXPECT_EQ(store->get("g", {"t", 1})->offset, 11);
    open();  // replay decides the same way
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 20);
    EXPECT_EQ(store->get("g", {"t", 1})->offset, 11);
}

TEST_F(TxnOffsetsTest, ReopenRebuildsPendingOffsetsThenTheMarkerAppliesThem) {
    open();
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, at(5)}}));
    ASSERT_TRUE(store->commit_transactional("g", 42, 7, {{{"t", 0}, at(10, "m")}}));
    ASSERT_TRUE(store->commit_transactional("h", 43, 1, {{{"u", 3}, at(30)}}));
    open();  // like a kill -9 with both transactions open
    EXPECT_TRUE(store->has_pending("g", {"t", 0}));
    EXPECT_TRUE(store->has_pending("h", {"u", 3}));
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 5);
    EXPECT_EQ(store->pending_producers(), (std::vector<int64_t>{42, 43}));
    ASSERT_TRUE(store->complete_transaction(42, 7, 0, true));
    ASSERT_TRUE(store->complete_transaction(43, 1, 0, false));
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 10);
    EXPECT_FALSE(store->get("h", {"u", 3}));
    open();
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 10);
    EXPECT_EQ(store->get("g", {"t", 0})->metadata, "m");
    EXPECT_FALSE(store->get("h", {"u", 3}));
    EXPECT_TRUE(store->pending_producers().empty());
}

TEST_F(TxnOffsetsTest, SnapshotsAndRetentionKeepAnOpenTransactionsOffsets) {
    config.segment_bytes = 8192;
    open();
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, at(5)}}));
    ASSERT_TRUE(store->commit_transactional("g", 9, 2, {{{"t", 0}, at(10)}, {{"t", 1}, at(11)}}));
    const int64_t txn_batch_offset = log->high_watermark() - 2;
    const int64_t snapshots_before = store->snapshots_written();
    for (int i = 0; i < 3000; ++i)
        ASSERT_TRUE(store->commit("other", {{{"t", i % 8}, at(i)}}));
    EXPECT_GT(store->snapshots_written(), snapshots_before + 2);
    EXPECT_TRUE(store->has_pending("g", {"t", 0}));
    // The snapshots re-wrote the pending offsets as a transactional batch of the producer (the
    // storage may also keep the original's segment, being above the last stable offset).
    bool rewritten = false;
    for (const auto& h : batches())
        if (h.base_offset > txn_batch_offset && h.is_transactional() && !h.is_control() &&
            h.producer_id == 9 && h.producer_epoch == 2 && h.base_sequence == -1)
            rewritten = true;
    EXPECT_TRUE(rewritten);
    open();
    EXPECT_TRUE(store->has_pending("g", {"t", 0}));
    EXPECT_TRUE(store->has_pending("g", {"t", 1}));
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 5);
    ASSERT_TRUE(store->complete_transaction(9, 2, 0, true));
    open();
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 10);
    EXPECT_EQ(store->get("g", {"t", 1})->offset, 11);
    EXPECT_EQ(store->get("other", {"t", 7})->offset, 2999);
}

TEST_F(TxnOffsetsTest, SnapshotKeepsTheOrderOfPlainAndTransactionalCommits) {
    config.segment_bytes = 8192;
    open();
    // t-0: plain commit after the transactional one (the plain one must win at COMMIT);
    // t-1: plain commit before it (the transactional one must win).
    ASSERT_TRUE(store->commit("g", {{{"t", 1}, at(1)}}));
    ASSERT_TRUE(store->commit_transactional("g", 9, 0, {{{"t", 0}, at(10)}, {{"t", 1}, at(11)}}));
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, at(20)}}));
    const int64_t snapshots_before = store->snapshots_written();
    for (int i = 0; i < 3000; ++i)
        ASSERT_TRUE(store->commit("other", {{{"t", i % 8}, at(i)}}));
    ASSERT_GT(store->snapshots_written(), snapshots_before);
    open();
    ASSERT_TRUE(store->complete_transaction(9, 0, 0, true));
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 20);
    EXPECT_EQ(store->get("g", {"t", 1})->offset, 11);
}

TEST_F(TxnOffsetsTest, StaleEpochIsRefusedAndNothingBecomesPending) {
    open();
    ASSERT_TRUE(store->commit_transactional("g", 5, 3, {{{"t", 0}, at(10)}}));
    ASSERT_TRUE(store->complete_transaction(5, 3, 0, true));
    auto stale = store->commit_transactional("g", 5, 2, {{{"t", 0}, at(99)}});
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, storage::StorageErrc::invalid_producer_epoch);
    EXPECT_FALSE(store->has_pending("g", {"t", 0}));
    auto stale_marker = store->complete_transaction(5, 2, 0, false);
    ASSERT_FALSE(stale_marker);
    EXPECT_EQ(stale_marker.error().code, storage::StorageErrc::invalid_producer_epoch);
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 10);
}

TEST_F(TxnOffsetsTest, DeletingTheGroupDropsItsPendingOffsets) {
    open();
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, at(1)}}));
    ASSERT_TRUE(store->commit_transactional("g", 1, 0, {{{"t", 0}, at(10)}, {{"t", 1}, at(11)}}));
    auto removed = store->remove("g");
    ASSERT_TRUE(removed);
    EXPECT_EQ(*removed, 2u);  // one tombstone per partition, pending-only ones included
    EXPECT_FALSE(store->has_pending("g", {"t", 1}));
    ASSERT_TRUE(store->complete_transaction(1, 0, 0, true));
    EXPECT_FALSE(store->get("g", {"t", 0}));
    EXPECT_FALSE(store->get("g", {"t", 1}));
    open();
    EXPECT_TRUE(store->groups().empty());
}

TEST_F(TxnOffsetsTest, ExpiryKeepsAnOffsetWithAPendingTransaction) {
    open();
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, at(1)}, {{"t", 1}, at(2)}}));
    ASSERT_TRUE(store->commit_transactional("g", 1, 0, {{{"t", 0}, at(10)}}));
    EXPECT_EQ(store->expire([](const std::string&, const CommittedOffset&) { return true; }), 1u);
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 1);
    EXPECT_FALSE(store->get("g", {"t", 1}));
}

// ---- the coordinator's rules (Kafka's ClassicGroup.validateOffsetCommit, transactional) -----

struct TxnGroupCommitTest : TxnOffsetsTest {
    std::unique_ptr<GroupCoordinator> coordinator;
    int64_t now = 1000;

    void make() {
        open();
        coordinator = std::make_unique<GroupCoordinator>(
            CoordinatorConfig{.initial_rebalance_delay_ms = 0}, *store, [this] { return now; });
    }
    void TearDown() override {
        coordinator.reset();
        TxnOffsetsTest::TearDown();
    }
    static GroupCoordinator::TxnCommitParams params(int32_t generation = -1,
                                                    std::string member = "",
                                                    std::optional<std::string> instance = {}) {
        return {"g", 1000, 0, generation, std::move(member), std::move(instance)};
    }
    // Joins one member and syncs it: the group is Stable at generation 1.
    std::string stable_member() {
        JoinParams p;
        p.group_id = "g";
        p.client_id = "c";
        p.session_timeout_ms = 10000;
        p.rebalance_timeout_ms = 10000;
        p.protocol_type = "consumer";
        p.protocols = {{"range", {}}};
        p.require_known_member_id = true;
        std::string id;
        coordinator->join(p, [&](JoinResult r) { id = r.member_id; });
        p.member_id = id;
        coordinator->join(p, [](JoinResult) {});
        SyncParams s;
        s.group_id = "g";
        s.member_id = id;
        s.generation_id = 1;
        coordinator->sync(s, [](SyncResult) {});
        EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
        return id;
    }
};

TEST_F(TxnGroupCommitTest, MissingGroupBecomesASimpleGroupOnlyWithoutGeneration) {
    make();
    EXPECT_EQ(coordinator->txn_offset_commit(params(1, "m"), {{{"t", 0}, at(1)}}),
              ErrorCode::illegal_generation);
    EXPECT_FALSE(coordinator->state("g"));
    EXPECT_FALSE(store->has_pending("g", {"t", 0}));
    EXPECT_EQ(coordinator->txn_offset_commit(params(), {{{"t", 0}, at(1)}}), ErrorCode::none);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::empty);
    EXPECT_TRUE(coordinator->has_pending("g", {"t", 0}));
    auto empty_id = params();
    empty_id.group_id = "";
    EXPECT_EQ(coordinator->txn_offset_commit(empty_id, {{{"t", 0}, at(1)}}),
              ErrorCode::invalid_group_id);
}

TEST_F(TxnGroupCommitTest, NonEmptyGroupAcceptsACommitWithoutMemberButChecksAGivenMember) {
    make();
    std::string id = stable_member();
    // Plain commits without member are refused in a non-empty group; transactional ones not.
    EXPECT_EQ(coordinator->validate_commit("g", -1, "", std::nullopt),
              ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->txn_offset_commit(params(), {{{"t", 0}, at(1)}}), ErrorCode::none);
    EXPECT_EQ(coordinator->txn_offset_commit(params(1, id), {{{"t", 0}, at(2)}}), ErrorCode::none);
    EXPECT_EQ(coordinator->txn_offset_commit(params(2, id), {{{"t", 0}, at(3)}}),
              ErrorCode::illegal_generation);
    EXPECT_EQ(coordinator->txn_offset_commit(params(1, "stranger"), {{{"t", 0}, at(3)}}),
              ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->txn_offset_commit(params(-1, "stranger"), {{{"t", 0}, at(3)}}),
              ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->complete_transaction(1000, 0, 0, true), ErrorCode::none);
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 2);
}

TEST_F(TxnGroupCommitTest, CompletingRebalanceDoesNotRefuseATransactionalCommit) {
    make();
    JoinParams p;
    p.group_id = "g";
    p.client_id = "c";
    p.session_timeout_ms = 10000;
    p.rebalance_timeout_ms = 10000;
    p.protocol_type = "consumer";
    p.protocols = {{"range", {}}};
    std::string id;
    coordinator->join(p, [&](JoinResult r) { id = r.member_id; });
    ASSERT_EQ(coordinator->state("g"), ClassicGroupState::completing_rebalance);
    EXPECT_EQ(coordinator->validate_commit("g", 1, id, std::nullopt),
              ErrorCode::rebalance_in_progress);
    EXPECT_EQ(coordinator->txn_offset_commit(params(1, id), {{{"t", 0}, at(1)}}), ErrorCode::none);
}

TEST_F(TxnGroupCommitTest, StaleEpochIsInvalidProducerEpochAndMarkerErrorsAreReported) {
    make();
    EXPECT_EQ(coordinator->txn_offset_commit(params(), {{{"t", 0}, at(1)}}), ErrorCode::none);
    EXPECT_EQ(coordinator->complete_transaction(1000, 1, 0, false), ErrorCode::none);
    EXPECT_FALSE(coordinator->has_pending("g", {"t", 0}));
    EXPECT_EQ(coordinator->txn_offset_commit(params(), {{{"t", 0}, at(1)}}),
              ErrorCode::invalid_producer_epoch);
    EXPECT_EQ(coordinator->complete_transaction(1000, 0, 0, true),
              ErrorCode::invalid_producer_epoch);
    EXPECT_FALSE(store->get("g", {"t", 0}));
}

}  // namespace
}  // namespace skiff::broker::group
