// Transactions V2 (KIP-890) through the handlers on a real Broker: the transaction.version
// feature in ApiVersions and UpdateFeatures (rules, validate_only, kept across a restart),
// EndTxn v5's epoch bump, Produce v12 and TxnOffsetCommit v5 adding implicitly, the gate on the
// finalized level, TRANSACTION_ABORTABLE for v11+ produce and v4+ TxnOffsetCommit of a partition
// not added, and AddPartitionsToTxn v4+'s batched and verify-only forms.
#include <gtest/gtest.h>

#include "broker/net/session.h"
#include "broker/txn/transaction_coordinator.h"
#include "handler_fixture.h"
#include "protocol/protocol.h"

namespace skiff::broker::test {
namespace {

using namespace protocol;

class TransactionsV2Test : public HandlerTest {
  protected:
    struct Producer {
        int64_t id = -1;
        int16_t epoch = -1;
    };

    Producer init(const std::string& txn_id) {
        InitProducerIdRequest req;
        req.transactional_id = txn_id;
        req.transaction_timeout_ms = 60000;
        auto r = run(handle_init_producer_id, req, 5);
        EXPECT_EQ(r.error_code, ErrorCode::none);
        return {r.producer_id, r.producer_epoch};
    }

    // One transactional batch from `p` to topic-partition at Produce `version` (names: v12-).
    ErrorCode produce(const std::string& txn_id, Producer p, const std::string& topic,
                      int32_t partition, int16_t version, int32_t sequence = 0) {
        BatchSpec spec;
        spec.producer_id = p.id;
        spec.producer_epoch = p.epoch;
        spec.base_sequence = sequence;
        spec.attributes = 0x10;  // transactional
        batches_.push_back(make_batch(1, spec));
        ProduceRequest req;
        req.transactional_id = txn_id;
        req.acks = -1;
        req.timeout_ms = 1000;
        TopicProduceData t;
        t.name = topic;
        PartitionProduceData d;
        d.index = partition;
        d.records = std::span<const std::byte>(batches_.back());
        t.partition_data.push_back(d);
        req.topic_data.push_back(std::move(t));
        auto r = run(handle_produce, req, version);
        return r.responses.at(0).partition_responses.at(0).error_code;
    }

    EndTxnResponse end(const std::string& txn_id, Producer p, bool commit, int16_t version = 5) {
        EndTxnRequest req;
        req.transactional_id = txn_id;
        req.producer_id = p.id;
        req.producer_epoch = p.epoch;
        req.committed = commit;
        return run(handle_end_txn, req, version);
    }

    int64_t high_watermark(const std::string& topic, int32_t partition = 0) {
        auto* log = broker().logs().get({topic, partition});
        return log ? log->high_watermark() : -1;
    }

    UpdateFeaturesResponse update(int16_t level, int8_t type, bool validate_only = false,
                                  int16_t version = 1,
                                  const std::string& feature = "transaction.version") {
        UpdateFeaturesRequest req;
        FeatureUpdateKey u;
        u.feature = feature;
        u.max_version_level = level;
        u.upgrade_type = type;
        u.allow_downgrade = type != 1;
        req.feature_updates.push_back(u);
        req.validate_only = validate_only;
        return run(handle_update_features, req, version);
    }

    ApiVersionsResponse api_versions(int16_t version = 4) {
        ApiVersionsRequest req;
        req.client_software_name = "test";
        req.client_software_version = "1";
        return run(handle_api_versions, req, version);
    }

  private:
    std::vector<std::vector<std::byte>> batches_;  // alive until the test ends
};

TEST_F(TransactionsV2Test, ApiVersionsAdvertisesTheFinalizedTransactionVersion) {
    auto r = api_versions();
    ASSERT_EQ(r.supported_features.size(), 2u);  // and share.version (share groups)
    EXPECT_EQ(r.supported_features[0].name, "transaction.version");
    EXPECT_EQ(r.supported_features[0].min_version, 0);
    EXPECT_EQ(r.supported_features[0].max_version, 2);
    ASSERT_EQ(r.finalized_features.size(), 2u);
    EXPECT_EQ(r.finalized_features[0].name, "transaction.version");
    EXPECT_EQ(r.finalized_features[0].max_version_level, 2);
    EXPECT_EQ(r.finalized_features[0].min_version_level, 2);
    EXPECT_EQ(r.finalized_features_epoch, 1);
    const auto end_txn = std::find_if(r.api_keys.begin(), r.api_keys.end(), [](const auto& k) {
        return k.api_key == static_cast<int16_t>(ApiKey::end_txn);
    });
    ASSERT_NE(end_txn, r.api_keys.end());
    EXPECT_EQ(end_txn->max_version, 5);
}

TEST_F(TransactionsV2Test, EmulatedReleasesListTheFeatureFromKafka40) {
    ASSERT_FALSE(broker().emulation().set("3.9").has_value());
    EXPECT_TRUE(api_versions().supported_features.empty());
    ASSERT_FALSE(broker().emulation().set("4.0").has_value());
    EXPECT_EQ(api_versions().finalized_features.size(), 1u);
}

TEST_F(TransactionsV2Test, LevelZeroIsNotListedAsFinalized) {
    config.transaction_version = 0;
    auto r = api_versions(3);
    EXPECT_EQ(r.supported_features.size(), 2u);  // transaction.version and share.version
    ASSERT_EQ(r.finalized_features.size(), 1u);
    EXPECT_EQ(r.finalized_features[0].name, "share.version");
}

TEST_F(TransactionsV2Test, UpdateFeaturesFollowsKafkasRulesAndIsKeptAcrossARestart) {
    // A downgrade needs a downgrade type.
    auto refused = update(1, 1);
    EXPECT_EQ(refused.error_code, ErrorCode::invalid_update_version);
    ASSERT_EQ(refused.results.size(), 1u);
    EXPECT_EQ(refused.results[0].error_code, ErrorCode::invalid_update_version);
    // Above what skiff supports, an unknown feature, a downgrade type going up.
    EXPECT_EQ(update(3, 1).error_code, ErrorCode::invalid_update_version);
    EXPECT_EQ(update(1, 1, false, 1, "metadata.version").error_code,
              ErrorCode::invalid_update_version);
    EXPECT_EQ(broker().features().transaction_version(), 2);
    // validate_only checks and changes nothing.
    EXPECT_EQ(update(1, 2, true).error_code, ErrorCode::none);
    EXPECT_EQ(broker().features().transaction_version(), 2);
    EXPECT_EQ(broker().features().epoch(), 1);
    // A safe downgrade to 1, then ApiVersions shows it at a new epoch.
    EXPECT_EQ(update(1, 2).error_code, ErrorCode::none);
    auto r = api_versions();
    ASSERT_EQ(r.finalized_features.size(), 2u);  // and share.version, at 1
    EXPECT_EQ(r.finalized_features[0].max_version_level, 1);
    EXPECT_EQ(r.finalized_features_epoch, 2);
    EXPECT_EQ(update(2, 2).error_code, ErrorCode::invalid_update_version);  // "downgrade" up
    // Kept across a restart (the setting did not change).
    restart();
    EXPECT_EQ(broker().features().transaction_version(), 1);
    EXPECT_EQ(broker().features().epoch(), 2);
    // v0's allow_downgrade, and level 0 (Kafka: < 1 deletes the feature).
    EXPECT_EQ(update(0, 1, false, 0).error_code, ErrorCode::invalid_update_version);
    EXPECT_EQ(update(0, 2, false, 0).error_code, ErrorCode::none);
    EXPECT_EQ(broker().features().transaction_version(), 0);
    ASSERT_EQ(api_versions().finalized_features.size(), 1u);
    EXPECT_EQ(api_versions().finalized_features[0].name, "share.version");
    // v2 has no per-feature results; the upgrade back works.
    auto v2 = update(2, 1, false, 2);
    EXPECT_EQ(v2.error_code, ErrorCode::none);
    EXPECT_EQ(broker().features().transaction_version(), 2);
    // A changed setting wins over the stored level at the next start.
    EXPECT_EQ(update(1, 2).error_code, ErrorCode::none);
    config.transaction_version = 0;
    restart();
    EXPECT_EQ(broker().features().transaction_version(), 0);
    EXPECT_GT(broker().features().epoch(), 4);
}

TEST_F(TransactionsV2Test, UpdateFeaturesBadInputChangesNothing) {
    UpdateFeaturesRequest dup;
    FeatureUpdateKey u;
    u.feature = "transaction.version";
    u.max_version_level = 1;
    u.upgrade_type = 2;
    dup.feature_updates = {u, u};
    EXPECT_EQ(run(handle_update_features, dup, 1).error_code, ErrorCode::invalid_request);
    EXPECT_EQ(update(1, 9).error_code, ErrorCode::invalid_request);
    EXPECT_EQ(update(1, 0).error_code, ErrorCode::invalid_request);
    EXPECT_EQ(broker().features().transaction_version(), 2);
    EXPECT_EQ(broker().features().epoch(), 1);
}

TEST_F(TransactionsV2Test, ProduceV12AddsImplicitlyAndEndTxnV5BumpsTheEpoch) {
    create_topic("orders", 2);
    auto p = init("tx");
    // No AddPartitionsToTxn: the produce adds its partition.
    EXPECT_EQ(produce("tx", p, "orders", 0, 12), ErrorCode::none);
    EXPECT_EQ(produce("tx", p, "orders", 1, 12), ErrorCode::none);
    auto described = broker().transactions().describe("tx");
    ASSERT_TRUE(described);
    EXPECT_EQ(described->metadata.partitions.size(), 2u);
    auto r = end("tx", p, true);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.producer_id, p.id);
    EXPECT_EQ(r.producer_epoch, p.epoch + 1);
    EXPECT_EQ(high_watermark("orders"), 2);  // the record and the commit marker
    // A zombie (the old epoch) is refused and writes nothing.
    EXPECT_EQ(produce("tx", p, "orders", 0, 12, 1), ErrorCode::invalid_producer_epoch);
    EXPECT_EQ(high_watermark("orders"), 2);
    // The next transaction at the bumped epoch, aborted: the epoch moves again.
    Producer next{r.producer_id, r.producer_epoch};
    EXPECT_EQ(produce("tx", next, "orders", 0, 12), ErrorCode::none);
    auto aborted = end("tx", next, false);
    EXPECT_EQ(aborted.error_code, ErrorCode::none);
    EXPECT_EQ(aborted.producer_epoch, next.epoch + 1);
    // EndTxn v5 bad input: unknown transactional id, wrong producer id, wrong epoch.
    EXPECT_EQ(end("nope", next, true).error_code, ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(end("tx", {next.id + 1, next.epoch}, true).error_code,
              ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(end("tx", {next.id, 77}, true).error_code, ErrorCode::producer_fenced);
}

TEST_F(TransactionsV2Test, BelowLevelTwoClientsGetTransactionsV1) {
    config.transaction_version = 1;
    create_topic("orders");
    auto p = init("tx");
    // No implicit add: a v12 produce of a partition not added is TRANSACTION_ABORTABLE.
    EXPECT_EQ(produce("tx", p, "orders", 0, 12), ErrorCode::transaction_abortable);
    EXPECT_EQ(high_watermark("orders"), 0);
    ASSERT_EQ(broker().transactions().add_partitions("tx", p.id, p.epoch, {{"orders", 0}}),
              ErrorCode::none);
    EXPECT_EQ(produce("tx", p, "orders", 0, 12), ErrorCode::none);
    auto r = end("tx", p, true);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.producer_epoch, p.epoch);  // no bump
}

TEST_F(TransactionsV2Test, OlderProduceVersionsDoNotAddImplicitly) {
    create_topic("orders");
    auto p = init("tx");
    EXPECT_EQ(produce("tx", p, "orders", 0, 10), ErrorCode::invalid_txn_state);
    EXPECT_EQ(produce("tx", p, "orders", 0, 11), ErrorCode::transaction_abortable);
    EXPECT_EQ(high_watermark("orders"), 0);
    // EndTxn v4 of a V1 transaction keeps the epoch (and answers no id).
    ASSERT_EQ(broker().transactions().add_partitions("tx", p.id, p.epoch, {{"orders", 0}}),
              ErrorCode::none);
    EXPECT_EQ(produce("tx", p, "orders", 0, 11), ErrorCode::none);
    EXPECT_EQ(end("tx", p, true, 4).error_code, ErrorCode::none);
    EXPECT_EQ(broker().transactions().describe("tx")->metadata.producer_epoch, p.epoch);
}

TEST_F(TransactionsV2Test, TxnOffsetCommitV5AddsTheOffsetsPartition) {
    create_topic("orders");
    auto p = init("tx");
    TxnOffsetCommitRequest req;
    req.transactional_id = "tx";
    req.group_id = "g";
    req.producer_id = p.id;
    req.producer_epoch = p.epoch;
    req.topics.push_back({"orders", {}});
    TxnOffsetCommitRequestPartition part;
    part.partition_index = 0;
    part.committed_offset = 5;
    req.topics.back().partitions.push_back(part);
    // Without AddOffsetsToTxn: v3 INVALID_TXN_STATE, v4 TRANSACTION_ABORTABLE.
    EXPECT_EQ(run(handle_txn_offset_commit, req, 3).topics[0].partitions[0].error_code,
              ErrorCode::invalid_txn_state);
    EXPECT_EQ(run(handle_txn_offset_commit, req, 4).topics[0].partitions[0].error_code,
              ErrorCode::transaction_abortable);
    // v5: added implicitly.
    EXPECT_EQ(run(handle_txn_offset_commit, req, 5).topics[0].partitions[0].error_code,
              ErrorCode::none);
    EXPECT_TRUE(broker().transactions().describe("tx")->metadata.partitions.count(
        {"__consumer_offsets", 0}));
    auto r = end("tx", p, true);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.producer_epoch, p.epoch + 1);
    // The fenced epoch cannot commit offsets any more.
    EXPECT_EQ(run(handle_txn_offset_commit, req, 5).topics[0].partitions[0].error_code,
              ErrorCode::invalid_producer_epoch);
}

// Durable mode (log.flush.interval.messages=1; a durable-mode log's high watermark is the end of
// what is synced): a transactional batch goes to its partition only once the coordinator's
// record that put the partition in the transaction is on disk, or a power cut could leave data
// in a transaction the coordinator never heard of, which nothing would ever end.
TEST_F(TransactionsV2Test, DurableModeAppendsABatchOnlyOnceItsAddIsSynced) {
    config.log_flush_interval_messages = 1;
    create_topic("orders", 2);
    auto p = init("tx");
    auto* state = broker().logs().get({"__transaction_state", 0});
    ASSERT_NE(state, nullptr);
    ASSERT_TRUE(state->durable_mode());
    EXPECT_EQ(state->durable_end(), state->log_end_offset());  // InitProducerId's, answered

    // An add whose sync is still to come (an AddPartitionsToTxn being answered), then a produce
    // relying on it (v11: no implicit add): answered with the add on disk.
    txn::Deferred in_flight;
    ASSERT_EQ(
        broker().transactions().add_partitions("tx", p.id, p.epoch, {{"orders", 0}}, 0, &in_flight),
        ErrorCode::none);
    ASSERT_EQ(in_flight.syncs.size(), 1u);
    EXPECT_LT(state->durable_end(), in_flight.syncs[0].end);
    EXPECT_EQ(produce("tx", p, "orders", 0, 11), ErrorCode::none);
    EXPECT_GE(state->durable_end(), in_flight.syncs[0].end);
    EXPECT_EQ(high_watermark("orders", 0), 1);

    // Produce v12 adds its partition itself: the same order.
    EXPECT_EQ(produce("tx", p, "orders", 1, 12), ErrorCode::none);
    EXPECT_EQ(state->durable_end(), state->log_end_offset());
    EXPECT_EQ(high_watermark("orders", 1), 1);

    // EndTxn answers with the markers synced in both partitions.
    auto r = end("tx", p, true, 4);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(high_watermark("orders", 0), 2);
    EXPECT_EQ(high_watermark("orders", 1), 2);
    EXPECT_EQ(broker().logs().get({"orders", 0})->last_stable_offset(), 2);
    EXPECT_EQ(broker().transactions().describe("tx")->metadata.state,
              txn::TxnState::complete_commit);
}

TEST_F(TransactionsV2Test, AddPartitionsToTxnBatchedAndVerifyOnly) {
    create_topic("orders", 2);
    auto a = init("tx-a");
    auto b = init("tx-b");
    ASSERT_EQ(broker().transactions().add_partitions("tx-b", b.id, b.epoch, {{"orders", 0}}),
              ErrorCode::none);
    AddPartitionsToTxnRequest req;
    AddPartitionsToTxnTransaction add;
    add.transactional_id = "tx-a";
    add.producer_id = a.id;
    add.producer_epoch = a.epoch;
    add.topics = {{"orders", {0, 1}}};
    AddPartitionsToTxnTransaction verify;
    verify.transactional_id = "tx-b";
    verify.producer_id = b.id;
    verify.producer_epoch = b.epoch;
    verify.verify_only = true;
    verify.topics = {{"orders", {0, 1}}};
    AddPartitionsToTxnTransaction unknown_id = add;
    unknown_id.transactional_id = "tx-none";
    AddPartitionsToTxnTransaction unknown_partition = verify;
    unknown_partition.transactional_id = "tx-c";
    unknown_partition.topics = {{"orders", {0, 9}}};
    req.transactions = {add, verify, unknown_id, unknown_partition};
    auto r = run(handle_add_partitions_to_txn, req, 5);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    ASSERT_EQ(r.results_by_transaction.size(), 4u);
    const auto errors = [&](size_t i) {
        std::vector<ErrorCode> out;
        for (const auto& t : r.results_by_transaction[i].topic_results)
            for (const auto& p : t.results_by_partition)
                out.push_back(p.partition_error_code);
        return out;
    };
    EXPECT_EQ(r.results_by_transaction[0].transactional_id, "tx-a");
    EXPECT_EQ(errors(0), (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::none}));
    EXPECT_EQ(errors(1),
              (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::transaction_abortable}));
    EXPECT_EQ(errors(2), (std::vector<ErrorCode>{ErrorCode::invalid_producer_id_mapping,
                                                 ErrorCode::invalid_producer_id_mapping}));
    EXPECT_EQ(errors(3), (std::vector<ErrorCode>{ErrorCode::operation_not_attempted,
                                                 ErrorCode::unknown_topic_or_partition}));
    // Added for tx-a (with V2, from v5); verify-only added nothing to tx-b.
    EXPECT_EQ(broker().transactions().describe("tx-a")->metadata.partitions.size(), 2u);
    EXPECT_EQ(broker().transactions().describe("tx-a")->metadata.client_transaction_version, 2);
    EXPECT_EQ(broker().transactions().describe("tx-b")->metadata.partitions.size(), 1u);
    // Wrong epoch in verify-only: PRODUCER_FENCED for each partition.
    verify.producer_epoch = 9;
    req.transactions = {verify};
    r = run(handle_add_partitions_to_txn, req, 4);
    EXPECT_EQ(errors(0),
              (std::vector<ErrorCode>{ErrorCode::producer_fenced, ErrorCode::producer_fenced}));
    // The same transactional id twice in one batch.
    req.transactions = {add, add};
    EXPECT_EQ(run(handle_add_partitions_to_txn, req, 4).error_code, ErrorCode::invalid_request);
}

// With an authorizer: the broker-to-broker AddPartitionsToTxn needs CLUSTER_ACTION and
// UpdateFeatures ALTER on the cluster; alice has neither, the super user both.
class TransactionsV2AuthorizationTest : public TransactionsV2Test {
  protected:
    TransactionsV2AuthorizationTest() {
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        config.super_users = "User:admin";
        alice.principal = "User:alice";
        alice.host = "127.0.0.1";
        admin.principal = "User:admin";
        admin.host = "127.0.0.1";
    }
    Session alice;
    Session admin;
};

TEST_F(TransactionsV2AuthorizationTest, ClusterOperationsNeedTheirAcls) {
    create_topic("orders");
    session = &admin;
    auto p = init("tx");
    AddPartitionsToTxnRequest req;
    req.transactions.push_back({"tx", p.id, p.epoch, false, {{"orders", {0}}}});
    session = &alice;
    auto refused = run(handle_add_partitions_to_txn, req, 5);
    EXPECT_EQ(refused.error_code, ErrorCode::cluster_authorization_failed);
    EXPECT_TRUE(refused.results_by_transaction.empty());
    EXPECT_TRUE(broker().transactions().describe("tx")->metadata.partitions.empty());
    auto update_refused = update(1, 2);
    EXPECT_EQ(update_refused.error_code, ErrorCode::cluster_authorization_failed);
    EXPECT_EQ(broker().features().transaction_version(), 2);
    session = &admin;
    EXPECT_EQ(run(handle_add_partitions_to_txn, req, 5).error_code, ErrorCode::none);
    EXPECT_EQ(broker().transactions().describe("tx")->metadata.partitions.size(), 1u);
    EXPECT_EQ(update(1, 2).error_code, ErrorCode::none);
    EXPECT_EQ(broker().features().transaction_version(), 1);
}

}  // namespace
}  // namespace skiff::broker::test
