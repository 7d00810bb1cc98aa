// The transaction APIs through their handlers on a real Broker: AddPartitionsToTxn,
// AddOffsetsToTxn, EndTxn, DescribeTransactions and ListTransactions, with the per-version error
// mapping (PRODUCER_FENCED only where the version knows it) and state kept across a restart.
#include <gtest/gtest.h>

#include "broker/txn/transaction_coordinator.h"
#include "handler_fixture.h"
#include "protocol/protocol.h"

namespace skiff::broker::test {
namespace {

using namespace protocol;

class TransactionsTest : public HandlerTest {
  protected:
    struct Producer {
        int64_t id = -1;
        int16_t epoch = -1;
    };

    Producer init(const std::string& txn_id, int16_t version = 4) {
        InitProducerIdRequest req;
        req.transactional_id = txn_id;
        req.transaction_timeout_ms = 60000;
        auto r = run(handle_init_producer_id, req, version);
        EXPECT_EQ(r.error_code, ErrorCode::none);
        return {r.producer_id, r.producer_epoch};
    }

    AddPartitionsToTxnResponse add(const std::string& txn_id, Producer p,
                                   std::vector<AddPartitionsToTxnTopic> topics,
                                   int16_t version = 3) {
        AddPartitionsToTxnRequest req;
        req.v3_and_below_transactional_id = txn_id;
        req.v3_and_below_producer_id = p.id;
        req.v3_and_below_producer_epoch = p.epoch;
        req.v3_and_below_topics = std::move(topics);
        return run(handle_add_partitions_to_txn, req, version);
    }

    ErrorCode end(const std::string& txn_id, Producer p, bool commit, int16_t version = 4) {
        EndTxnRequest req;
        req.transactional_id = txn_id;
        req.producer_id = p.id;
        req.producer_epoch = p.epoch;
        req.committed = commit;
        return run(handle_end_txn, req, version).error_code;
    }

    static std::vector<ErrorCode> errors_of(const AddPartitionsToTxnResponse& r) {
        std::vector<ErrorCode> out;
        for (const auto& t : r.results_by_topic_v3_and_below)
            for (const auto& p : t.results_by_partition)
                out.push_back(p.partition_error_code);
        return out;
    }
};

TEST_F(TransactionsTest, AddPartitionsCommitAndDescribeAtEveryVersion) {
    create_topic("orders", 2);
    for (int16_t v = 0; v <= 3; ++v) {
        const std::string id = "tx-v" + std::to_string(v);
        auto p = init(id);
        auto added = add(id, p, {{"orders", {0, 1}}}, v);
        ASSERT_EQ(added.results_by_topic_v3_and_below.size(), 1u);
        EXPECT_EQ(added.results_by_topic_v3_and_below[0].name, "orders");
        EXPECT_EQ(errors_of(added), (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::none}));
        EXPECT_EQ(broker().transactions().verify_partition(id, p.id, p.epoch, {"orders", 1}),
                  ErrorCode::none);

        DescribeTransactionsRequest d;
        d.transactional_ids = {id};
        auto described = run(handle_describe_transactions, d, 0);
        ASSERT_EQ(described.transaction_states.size(), 1u);
        const auto& s = described.transaction_states[0];
        EXPECT_EQ(s.error_code, ErrorCode::none);
        EXPECT_EQ(s.transaction_state, "Ongoing");
        EXPECT_EQ(s.producer_id, p.id);
        EXPECT_EQ(s.transaction_timeout_ms, 60000);
        EXPECT_GT(s.transaction_start_time_ms, 0);
        ASSERT_EQ(s.topics.size(), 1u);
        EXPECT_EQ(s.topics[0].topic, "orders");
        EXPECT_EQ(s.topics[0].partitions, (std::vector<int32_t>{0, 1}));

        EXPECT_EQ(end(id, p, true, v <= 1 ? 1 : 4), ErrorCode::none);
        described = run(handle_describe_transactions, d, 0);
        EXPECT_EQ(described.transaction_states[0].transaction_state, "CompleteCommit");
        EXPECT_TRUE(described.transaction_states[0].topics.empty());
    }
}

TEST_F(TransactionsTest, AnUnknownPartitionFailsTheWholeRequest) {
    create_topic("orders", 1);
    auto p = init("tx");
    auto r = add("tx", p, {{"orders", {0, 5}}, {"missing", {0}}});
    EXPECT_EQ(errors_of(r), (std::vector<ErrorCode>{ErrorCode::operation_not_attempted,
                                                    ErrorCode::unknown_topic_or_partition,
                                                    ErrorCode::unknown_topic_or_partition}));
    // Nothing was added: the transaction has not even started.
    EXPECT_EQ(broker().transactions().describe("tx")->metadata.state, txn::TxnState::empty);
    EXPECT_EQ(end("tx", p, true), ErrorCode::invalid_txn_state);
}

TEST_F(TransactionsTest, FencedProducersGetTheErrorTheirVersionKnows) {
    create_topic("orders", 1);
    auto old = init("tx");
    ASSERT_EQ(errors_of(add("tx", old, {{"orders", {0}}})),
              std::vector<ErrorCode>{ErrorCode::none});
    // A second producer with the same id: the first try aborts the old transaction.
    InitProducerIdRequest req;
    req.transactional_id = "tx";
    req.transaction_timeout_ms = 60000;
    EXPECT_EQ(run(handle_init_producer_id, req, 4).error_code, ErrorCode::concurrent_transactions);
    auto fresh = init("tx");
    EXPECT_EQ(fresh.id, old.id);
    EXPECT_EQ(fresh.epoch, old.epoch + 2);

    EXPECT_EQ(end("tx", old, true, 1), ErrorCode::invalid_producer_epoch);
    EXPECT_EQ(end("tx", old, true, 2), ErrorCode::producer_fenced);
    EXPECT_EQ(errors_of(add("tx", old, {{"orders", {0}}}, 1)),
              std::vector<ErrorCode>{ErrorCode::invalid_producer_epoch});
    EXPECT_EQ(errors_of(add("tx", old, {{"orders", {0}}}, 2)),
              std::vector<ErrorCode>{ErrorCode::producer_fenced});
    AddOffsetsToTxnRequest offsets;
    offsets.transactional_id = "tx";
    offsets.producer_id = old.id;
    offsets.producer_epoch = old.epoch;
    offsets.group_id = "g";
    EXPECT_EQ(run(handle_add_offsets_to_txn, offsets, 0).error_code,
              ErrorCode::invalid_producer_epoch);
    EXPECT_EQ(run(handle_add_offsets_to_txn, offsets, 4).error_code, ErrorCode::producer_fenced);
    // The new producer works.
    ASSERT_EQ(errors_of(add("tx", fresh, {{"orders", {0}}})),
              std::vector<ErrorCode>{ErrorCode::none});
    EXPECT_EQ(end("tx", fresh, false), ErrorCode::none);
}

TEST_F(TransactionsTest, AddOffsetsAddsTheOffsetsPartition) {
    auto p = init("tx");
    for (int16_t v = 0; v <= 4; ++v) {
        AddOffsetsToTxnRequest req;
        req.transactional_id = "tx";
        req.producer_id = p.id;
        req.producer_epoch = p.epoch;
        req.group_id = "group-" + std::to_string(v);
        EXPECT_EQ(run(handle_add_offsets_to_txn, req, v).error_code, ErrorCode::none) << v;
    }
    EXPECT_EQ(
        broker().transactions().verify_partition("tx", p.id, p.epoch, {"__consumer_offsets", 0}),
        ErrorCode::none);
    auto m = broker().transactions().describe("tx")->metadata;
    EXPECT_EQ(m.partitions, (std::set<storage::TopicPartition>{{"__consumer_offsets", 0}}));
    EXPECT_EQ(end("tx", p, true, 0), ErrorCode::none);
}

TEST_F(TransactionsTest, UnknownIdsAndProducers) {
    EXPECT_EQ(end("nobody", {1, 0}, true), ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(errors_of(add("nobody", {1, 0}, {})), std::vector<ErrorCode>{});
    DescribeTransactionsRequest d;
    d.transactional_ids = {"nobody", ""};
    auto r = run(handle_describe_transactions, d, 0);
    ASSERT_EQ(r.transaction_states.size(), 2u);
    EXPECT_EQ(r.transaction_states[0].transactional_id, "nobody");
    EXPECT_EQ(r.transaction_states[0].error_code, ErrorCode::transactional_id_not_found);
    EXPECT_EQ(r.transaction_states[1].error_code, ErrorCode::invalid_request);
}

TEST_F(TransactionsTest, ListTransactionsFilters) {
    create_topic("orders", 1);
    auto a = init("app-a");
    auto b = init("app-b");
    init("other");
    ASSERT_EQ(errors_of(add("app-a", a, {{"orders", {0}}})),
              std::vector<ErrorCode>{ErrorCode::none});
    auto ids_of = [](const ListTransactionsResponse& r) {
        std::vector<std::string> out;
        for (const auto& s : r.transaction_states)
            out.push_back(s.transactional_id + ":" + s.transaction_state);
        return out;
    };
    ListTransactionsRequest all;
    EXPECT_EQ(ids_of(run(handle_list_transactions, all, 0)),
              (std::vector<std::string>{"app-a:Ongoing", "app-b:Empty", "other:Empty"}));
    ListTransactionsRequest by_state;
    by_state.state_filters = {"Empty", "NoSuchState"};
    auto r = run(handle_list_transactions, by_state, 0);
    EXPECT_EQ(ids_of(r), (std::vector<std::string>{"app-b:Empty", "other:Empty"}));
    EXPECT_EQ(r.unknown_state_filters, std::vector<std::string>{"NoSuchState"});
    ListTransactionsRequest only_unknown;
    only_unknown.state_filters = {"NoSuchState"};
    EXPECT_TRUE(run(handle_list_transactions, only_unknown, 0).transaction_states.empty());
    ListTransactionsRequest by_pid;
    by_pid.producer_id_filters = {b.id};
    EXPECT_EQ(ids_of(run(handle_list_transactions, by_pid, 1)),
              std::vector<std::string>{"app-b:Empty"});
    ListTransactionsRequest by_pattern;
    by_pattern.transactional_id_pattern = "app-.*";
    EXPECT_EQ(ids_of(run(handle_list_transactions, by_pattern, 2)),
              (std::vector<std::string>{"app-a:Ongoing", "app-b:Empty"}));
    by_pattern.transactional_id_pattern = "app";  // the whole id must match
    EXPECT_TRUE(run(handle_list_transactions, by_pattern, 2).transaction_states.empty());
    by_pattern.transactional_id_pattern = "(unclosed";
    EXPECT_EQ(run(handle_list_transactions, by_pattern, 2).error_code,
              ErrorCode::invalid_regular_expression);
    // Running for longer than an hour: not the transaction just started. Ids without a
    // transaction (start time -1) pass, as in Kafka (now - start > filter). The filter is v1+.
    ListTransactionsRequest by_duration;
    by_duration.duration_filter = 3600000;
    EXPECT_EQ(ids_of(run(handle_list_transactions, by_duration, 1)),
              (std::vector<std::string>{"app-b:Empty", "other:Empty"}));
    EXPECT_EQ(run(handle_list_transactions, by_duration, 0).transaction_states.size(), 3u);
}

TEST_F(TransactionsTest, StateSurvivesABrokerRestart) {
    create_topic("orders", 1);
    auto p = init("tx");
    ASSERT_EQ(errors_of(add("tx", p, {{"orders", {0}}})), std::vector<ErrorCode>{ErrorCode::none});
    restart();  // no clean shutdown
    EXPECT_EQ(broker().transactions().verify_partition("tx", p.id, p.epoch, {"orders", 0}),
              ErrorCode::none);
    EXPECT_EQ(end("tx", p, true), ErrorCode::none);
    restart();
    EXPECT_EQ(broker().transactions().describe("tx")->metadata.state,
              txn::TxnState::complete_commit);
    // The id keeps its producer id; the next incarnation gets the next epoch.
    auto again = init("tx");
    EXPECT_EQ(again.id, p.id);
    EXPECT_EQ(again.epoch, p.epoch + 1);
}

}  // namespace
}  // namespace skiff::broker::test
