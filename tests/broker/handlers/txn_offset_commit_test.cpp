// TxnOffsetCommit and what OffsetFetch answers around it: offsets committed in a transaction are
// invisible until the transaction's marker for __consumer_offsets (GroupCoordinator::
// complete_transaction) commits them, dropped when it aborts, UNSTABLE_OFFSET_COMMIT meanwhile
// for a fetch with require_stable (v7, and per partition in v8+'s groups); per-partition errors
// (unknown topic or partition, oversized metadata), group errors (generation, member), every
// served version, a pending commit that survives a broker restart, and the transaction
// coordinator's check that the producer holds the transactional id and added the offsets
// partition (AddOffsetsToTxn) to its ongoing transaction.
#include <gtest/gtest.h>

#include "broker/group/group_coordinator.h"
#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::OffsetFetchRequest;
using protocol::OffsetFetchResponsePartition;
using protocol::TxnOffsetCommitRequest;

constexpr int16_t kTxnLatest = 4;

struct TxnCommit {
    std::string topic;
    int32_t partition = 0;
    int64_t offset = 0;
    std::optional<std::string> metadata = "";
};

class TxnOffsetCommitTest : public GroupHandlerTest {
  protected:
    // InitProducerId for "tx" and AddOffsetsToTxn, as a client does before TxnOffsetCommit.
    void begin() {
        auto init = broker().transactions().init_producer_id("tx", 60000, -1, -1);
        ASSERT_EQ(init.error, ErrorCode::none);
        producer_ = init.producer_id;
        epoch_ = init.producer_epoch;
        ASSERT_EQ(broker().transactions().add_partitions("tx", producer_, epoch_,
                                                         {{"__consumer_offsets", 0}}),
                  ErrorCode::none);
    }
    std::vector<ErrorCode> txn_commit(const std::string& group,
                                      const std::vector<TxnCommit>& commits,
                                      int16_t version = kTxnLatest, const Member& m = {"", -1},
                                      std::optional<int16_t> epoch = std::nullopt) {
        if (producer_ < 0)
            begin();
        TxnOffsetCommitRequest req;
        req.transactional_id = "tx";
        req.group_id = group;
        req.producer_id = producer_;
        req.producer_epoch = epoch.value_or(epoch_);
        req.generation_id = m.generation;
        req.member_id = m.id;
        for (const auto& c : commits) {
            if (req.topics.empty() || req.topics.back().name != c.topic)
                req.topics.push_back({c.topic, {}});
            protocol::TxnOffsetCommitRequestPartition p;
            p.partition_index = c.partition;
            p.committed_offset = c.offset;
            p.committed_metadata = c.metadata;
            req.topics.back().partitions.push_back(p);
        }
        auto resp = run(handle_txn_offset_commit, req, version);
        std::vector<ErrorCode> out;
        for (const auto& t : resp.topics)
            for (const auto& p : t.partitions)
                out.push_back(p.error_code);
        return out;
    }
    OffsetFetchResponsePartition fetch(const std::string& group, const std::string& topic,
                                       int32_t partition, bool require_stable,
                                       int16_t version = 7) {
        OffsetFetchRequest req;
        if (version >= 8) {
            protocol::OffsetFetchRequestGroup g;
            g.group_id = group;
            g.topics = std::vector<protocol::OffsetFetchRequestTopic>{{topic, {}, {partition}}};
            req.groups.push_back(std::move(g));
        } else {
            req.group_id = group;
            req.topics = std::vector<protocol::OffsetFetchRequestTopic>{{topic, {}, {partition}}};
        }
        req.require_stable = require_stable;
        auto resp = run(handle_offset_fetch, req, version);
        const auto& topics = version >= 8 ? resp.groups.at(0).topics : resp.topics;
        EXPECT_EQ(version >= 8 ? resp.groups.at(0).error_code : resp.error_code, ErrorCode::none);
        return topics.at(0).partitions.at(0);
    }
    ErrorCode complete(bool commit) {
        return broker().groups().complete_transaction(producer_, epoch_, 0, commit);
    }
    int64_t producer_ = -1;
    int16_t epoch_ = -1;
};

TEST_F(TxnOffsetCommitTest, InvisibleUntilCommittedAndUnstableMeanwhile) {
    create_topic("t", 2);
    for (int16_t v = 0; v <= kTxnLatest; ++v) {
        SCOPED_TRACE("TxnOffsetCommit v" + std::to_string(v));
        const std::string group = "g" + std::to_string(v);
        EXPECT_EQ(txn_commit(group, {{"t", 0, 10 + v, "m"}, {"t", 1, 20}}, v),
                  (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::none}));
        // Without require_stable: the committed offset (none yet), no error.
        auto plain = fetch(group, "t", 0, false);
        EXPECT_EQ(plain.error_code, ErrorCode::none);
        EXPECT_EQ(plain.committed_offset, -1);
        for (int16_t fv : {7, 8}) {
            auto unstable = fetch(group, "t", 1, true, fv);
            EXPECT_EQ(unstable.error_code, ErrorCode::unstable_offset_commit) << "v" << fv;
            EXPECT_EQ(unstable.committed_offset, -1);
        }
        EXPECT_EQ(complete(true), ErrorCode::none);
        auto stable = fetch(group, "t", 0, true);
        EXPECT_EQ(stable.error_code, ErrorCode::none);
        EXPECT_EQ(stable.committed_offset, 10 + v);
        EXPECT_EQ(stable.metadata, "m");
        EXPECT_EQ(fetch(group, "t", 1, true, 8).committed_offset, 20);
    }
}

TEST_F(TxnOffsetCommitTest, AbortDropsTheOffsets) {
    create_topic("t");
    stable_member("g");  // a non-empty group: a commit without member is still accepted
    ASSERT_EQ(txn_commit("g", {{"t", 0, 10}}), std::vector<ErrorCode>{ErrorCode::none});
    EXPECT_EQ(complete(false), ErrorCode::none);
    auto r = fetch("g", "t", 0, true);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.committed_offset, -1);
}

TEST_F(TxnOffsetCommitTest, EveryPartitionFetchMarksPendingPartitionsUnstable) {
    create_topic("t", 2);
    // A committed offset for both partitions, then a transaction over partition 1 only.
    protocol::OffsetCommitRequest plain;
    plain.group_id = "g";
    plain.topics = {{"t", {}, {{0, 5, -1, -1, ""}, {1, 6, -1, -1, ""}}}};
    auto committed = run(handle_offset_commit, plain, 8);
    ASSERT_EQ(committed.topics.at(0).partitions.at(1).error_code, ErrorCode::none);
    ASSERT_EQ(txn_commit("g", {{"t", 1, 60}}), std::vector<ErrorCode>{ErrorCode::none});
    OffsetFetchRequest req;
    req.group_id = "g";
    req.topics = std::nullopt;  // every partition the group committed
    req.require_stable = true;
    auto resp = run(handle_offset_fetch, req, 7);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 2u);
    EXPECT_EQ(resp.topics[0].partitions[0].error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics[0].partitions[0].committed_offset, 5);
    EXPECT_EQ(resp.topics[0].partitions[1].error_code, ErrorCode::unstable_offset_commit);
    EXPECT_EQ(resp.topics[0].partitions[1].committed_offset, -1);
    req.require_stable = false;
    resp = run(handle_offset_fetch, req, 7);
    EXPECT_EQ(resp.topics[0].partitions[1].error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics[0].partitions[1].committed_offset, 6);
}

TEST_F(TxnOffsetCommitTest, PerPartitionErrorsAndNothingPendingForThem) {
    config.offset_metadata_max_bytes = 8;  // before the broker is built
    create_topic("t", 1);
    auto errors = txn_commit(
        "g", {{"t", 0, 1, "short"}, {"t", 5, 1}, {"nope", 0, 1}, {"t", 0, 2, std::string(9, 'x')}});
    EXPECT_EQ(errors,
              (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::unknown_topic_or_partition,
                                      ErrorCode::unknown_topic_or_partition,
                                      ErrorCode::offset_metadata_too_large}));
    EXPECT_EQ(fetch("g", "t", 0, true).error_code, ErrorCode::unstable_offset_commit);
    EXPECT_EQ(fetch("g", "t", 5, true).error_code, ErrorCode::none);
    EXPECT_EQ(complete(true), ErrorCode::none);
    EXPECT_EQ(fetch("g", "t", 0, true).committed_offset, 1);
}

TEST_F(TxnOffsetCommitTest, GroupErrorsApplyToEveryKnownPartition) {
    create_topic("t", 1);
    // v3+: a generation for a group that does not exist.
    auto errors = txn_commit("g", {{"t", 0, 1}, {"nope", 0, 1}}, 3, {"m", 4});
    EXPECT_EQ(errors, (std::vector<ErrorCode>{ErrorCode::illegal_generation,
                                              ErrorCode::unknown_topic_or_partition}));
    Member m = stable_member("g");
    EXPECT_EQ(txn_commit("g", {{"t", 0, 1}}, 3, {"stranger", m.generation}),
              std::vector<ErrorCode>{ErrorCode::unknown_member_id});
    EXPECT_EQ(txn_commit("g", {{"t", 0, 1}}, 3, {m.id, m.generation + 1}),
              std::vector<ErrorCode>{ErrorCode::illegal_generation});
    EXPECT_EQ(fetch("g", "t", 0, true).error_code, ErrorCode::none);  // nothing pending
    EXPECT_EQ(txn_commit("g", {{"t", 0, 7}}, 3, m), std::vector<ErrorCode>{ErrorCode::none});
    EXPECT_EQ(complete(true), ErrorCode::none);
    EXPECT_EQ(fetch("g", "t", 0, true).committed_offset, 7);
}

TEST_F(TxnOffsetCommitTest, AFencedOrForeignProducerIsRefused) {
    create_topic("t");
    ASSERT_EQ(txn_commit("g", {{"t", 0, 1}}), std::vector<ErrorCode>{ErrorCode::none});
    ASSERT_EQ(broker().transactions().end_transaction("tx", producer_, epoch_, true),
              ErrorCode::none);
    EXPECT_EQ(fetch("g", "t", 0, true).committed_offset, 1);
    // The offsets partition is no longer in a transaction: INVALID_TXN_STATE until it is added,
    // TRANSACTION_ABORTABLE for v4+ clients (KIP-890).
    EXPECT_EQ(txn_commit("g", {{"t", 0, 2}}, 3),
              std::vector<ErrorCode>{ErrorCode::invalid_txn_state});
    EXPECT_EQ(txn_commit("g", {{"t", 0, 2}}, 4),
              std::vector<ErrorCode>{ErrorCode::transaction_abortable});
    // A new incarnation of "tx" fences this one: its epoch is stale now.
    const int16_t old_epoch = epoch_;
    begin();
    ASSERT_GT(epoch_, old_epoch);
    EXPECT_EQ(txn_commit("g", {{"t", 0, 3}}, kTxnLatest, {"", -1}, old_epoch),
              std::vector<ErrorCode>{ErrorCode::invalid_producer_epoch});
    // Another producer id under this transactional id.
    producer_ += 1;
    EXPECT_EQ(txn_commit("g", {{"t", 0, 4}}),
              std::vector<ErrorCode>{ErrorCode::invalid_producer_id_mapping});
    EXPECT_EQ(fetch("g", "t", 0, true).committed_offset, 1);
}

TEST_F(TxnOffsetCommitTest, PendingCommitSurvivesARestartAndIsCompletedAfter) {
    create_topic("t");
    ASSERT_EQ(txn_commit("g", {{"t", 0, 33}}), std::vector<ErrorCode>{ErrorCode::none});
    restart();
    EXPECT_EQ(fetch("g", "t", 0, true).error_code, ErrorCode::unstable_offset_commit);
    EXPECT_EQ(complete(true), ErrorCode::none);
    restart();
    auto r = fetch("g", "t", 0, true);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.committed_offset, 33);
}

}  // namespace
}  // namespace skiff::broker::test
