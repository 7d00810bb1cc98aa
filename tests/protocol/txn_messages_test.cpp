// Round trips of the transaction coordinator's messages (AddPartitionsToTxn, AddOffsetsToTxn,
// EndTxn, DescribeTransactions, ListTransactions) at every served version, and the exact bytes
// of the versions librdkafka sends (v0), checked against Kafka's schemas by hand.
#include <gtest/gtest.h>

#include "protocol/protocol.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;
using test::for_each_version;
using test::memory_of;
using test::round_trip;

TEST(TxnRoundTrip, AddPartitionsToTxnRequest) {
    AddPartitionsToTxnRequest m;
    m.v3_and_below_transactional_id = "tx-1";
    m.v3_and_below_producer_id = 1234567890123;
    m.v3_and_below_producer_epoch = 7;
    m.v3_and_below_topics = {{"orders", {0, 2}}, {"logs", {1}}};
    // v0-3, the clients' form (v4+ below).
    for_each_version(ApiKey::add_partitions_to_txn, [&](int16_t v) {
        if (v >= 4)
            return;
        round_trip(m, v, [&](const AddPartitionsToTxnRequest& d) {
            EXPECT_EQ(d.v3_and_below_transactional_id, "tx-1");
            EXPECT_EQ(d.v3_and_below_producer_id, 1234567890123);
            EXPECT_EQ(d.v3_and_below_producer_epoch, 7);
            ASSERT_EQ(d.v3_and_below_topics.size(), 2u);
            EXPECT_EQ(d.v3_and_below_topics[0].name, "orders");
            EXPECT_EQ(d.v3_and_below_topics[0].partitions, (std::vector<int32_t>{0, 2}));
            EXPECT_EQ(d.v3_and_below_topics[1].partitions, (std::vector<int32_t>{1}));
            EXPECT_TRUE(d.transactions.empty());
        });
    });
}

TEST(TxnRoundTrip, AddPartitionsToTxnResponse) {
    AddPartitionsToTxnResponse m;
    m.throttle_time_ms = 5;
    m.results_by_topic_v3_and_below = {
        {"orders", {{0, ErrorCode::none}, {2, ErrorCode::operation_not_attempted}}},
        {"nope", {{1, ErrorCode::unknown_topic_or_partition}}}};
    for_each_version(ApiKey::add_partitions_to_txn, [&](int16_t v) {
        if (v >= 4)
            return;
        round_trip(m, v, [&](const AddPartitionsToTxnResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, 5);
            ASSERT_EQ(d.results_by_topic_v3_and_below.size(), 2u);
            const auto& orders = d.results_by_topic_v3_and_below[0];
            EXPECT_EQ(orders.name, "orders");
            ASSERT_EQ(orders.results_by_partition.size(), 2u);
            EXPECT_EQ(orders.results_by_partition[1].partition_index, 2);
            EXPECT_EQ(orders.results_by_partition[1].partition_error_code,
                      ErrorCode::operation_not_attempted);
            EXPECT_EQ(
                d.results_by_topic_v3_and_below[1].results_by_partition[0].partition_error_code,
                ErrorCode::unknown_topic_or_partition);
        });
    });
}

// The broker-to-broker shape (v4+, KIP-890): batches of transactions, verify_only.
TEST(TxnRoundTrip, AddPartitionsToTxnV4ShapeEncodesBatchedTransactions) {
    AddPartitionsToTxnRequest m;
    m.transactions.push_back({"a", 1, 2, true, {{"t", {0}}}});
    m.transactions.push_back({"b", 3, 4, false, {{"t", {1, 2}}}});
    m.v3_and_below_transactional_id = "ignored at v4";
    for (int16_t v : {4, 5})
        round_trip(m, v, [](const AddPartitionsToTxnRequest& d) {
            ASSERT_EQ(d.transactions.size(), 2u);
            EXPECT_EQ(d.transactions[0].transactional_id, "a");
            EXPECT_TRUE(d.transactions[0].verify_only);
            EXPECT_FALSE(d.transactions[1].verify_only);
            EXPECT_EQ(d.transactions[1].topics[0].partitions, (std::vector<int32_t>{1, 2}));
            EXPECT_EQ(d.v3_and_below_transactional_id, "");
        });
    AddPartitionsToTxnResponse r;
    r.error_code = ErrorCode::cluster_authorization_failed;
    r.results_by_transaction.push_back({"a", {{"t", {{0, ErrorCode::transaction_abortable}}}}});
    round_trip(r, 5, [](const AddPartitionsToTxnResponse& d) {
        EXPECT_EQ(d.error_code, ErrorCode::cluster_authorization_failed);
        ASSERT_EQ(d.results_by_transaction.size(), 1u);
        EXPECT_EQ(d.results_by_transaction[0]
                      .topic_results[0]
                      .results_by_partition[0]
                      .partition_error_code,
                  ErrorCode::transaction_abortable);
    });
}

TEST(TxnWire, AddPartitionsToTxnRequestV0Bytes) {
    AddPartitionsToTxnRequest m;
    m.v3_and_below_transactional_id = "tx";
    m.v3_and_below_producer_id = 5;
    m.v3_and_below_producer_epoch = 1;
    m.v3_and_below_topics = {{"t", {3}}};
    OutBuffer out;
    encode_message(m, 0, out);
    EXPECT_EQ(memory_of(out), bytes({0, 2, 't', 'x',                   // transactional id
                                     0, 0, 0,   0,   0, 0, 0,   5,     // producer id
                                     0, 1,                             // producer epoch
                                     0, 0, 0,   1,   0, 1, 't',        // one topic "t"
                                     0, 0, 0,   1,   0, 0, 0,   3}));  // partitions [3]
}

TEST(TxnRoundTrip, AddOffsetsToTxn) {
    AddOffsetsToTxnRequest m;
    m.transactional_id = "tx-1";
    m.producer_id = 42;
    m.producer_epoch = 3;
    m.group_id = "group";
    AddOffsetsToTxnResponse r;
    r.throttle_time_ms = 9;
    r.error_code = ErrorCode::concurrent_transactions;
    for_each_version(ApiKey::add_offsets_to_txn, [&](int16_t v) {
        round_trip(m, v, [&](const AddOffsetsToTxnRequest& d) {
            EXPECT_EQ(d.transactional_id, "tx-1");
            EXPECT_EQ(d.producer_id, 42);
            EXPECT_EQ(d.producer_epoch, 3);
            EXPECT_EQ(d.group_id, "group");
        });
        round_trip(r, v, [&](const AddOffsetsToTxnResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, 9);
            EXPECT_EQ(d.error_code, ErrorCode::concurrent_transactions);
        });
    });
}

TEST(TxnRoundTrip, EndTxn) {
    EndTxnRequest m;
    m.transactional_id = "tx-1";
    m.producer_id = 42;
    m.producer_epoch = 3;
    m.committed = true;
    EndTxnResponse r;
    r.throttle_time_ms = 1;
    r.error_code = ErrorCode::producer_fenced;
    r.producer_id = 42;
    r.producer_epoch = 4;
    for_each_version(ApiKey::end_txn, [&](int16_t v) {
        round_trip(m, v, [&](const EndTxnRequest& d) {
            EXPECT_EQ(d.transactional_id, "tx-1");
            EXPECT_EQ(d.producer_id, 42);
            EXPECT_EQ(d.producer_epoch, 3);
            EXPECT_TRUE(d.committed);
        });
        round_trip(r, v, [&](const EndTxnResponse& d) {
            EXPECT_EQ(d.error_code, ErrorCode::producer_fenced);
            EXPECT_EQ(d.producer_id, v >= 5 ? 42 : -1);  // v5+ only
            EXPECT_EQ(d.producer_epoch, v >= 5 ? 4 : -1);
        });
    });
    round_trip(r, 5, [](const EndTxnResponse& d) { EXPECT_EQ(d.producer_epoch, 4); });
}

TEST(TxnWire, EndTxnRequestV3IsFlexible) {
    EndTxnRequest m;
    m.transactional_id = "t";
    m.producer_id = 1;
    m.producer_epoch = 0;
    m.committed = false;
    OutBuffer out;
    encode_message(m, 3, out);
    EXPECT_EQ(memory_of(out), bytes({2, 't',                        // compact string
                                     0, 0, 0, 0, 0, 0, 0, 1, 0, 0,  // producer id, epoch
                                     0,                             // committed = false
                                     0}));                          // tag buffer
}

TEST(TxnRoundTrip, DescribeTransactions) {
    DescribeTransactionsRequest m;
    m.transactional_ids = {"a", "b"};
    DescribeTransactionsResponse r;
    r.throttle_time_ms = 2;
    DescribeTransactionsState s;
    s.transactional_id = "a";
    s.transaction_state = "Ongoing";
    s.transaction_timeout_ms = 60000;
    s.transaction_start_time_ms = 1700000000000;
    s.producer_id = 11;
    s.producer_epoch = 2;
    s.topics = {{"orders", {0, 1}}};
    r.transaction_states = {s, {ErrorCode::transactional_id_not_found, "b"}};
    for_each_version(ApiKey::describe_transactions, [&](int16_t v) {
        round_trip(m, v, [&](const DescribeTransactionsRequest& d) {
            EXPECT_EQ(d.transactional_ids, (std::vector<std::string>{"a", "b"}));
        });
        round_trip(r, v, [&](const DescribeTransactionsResponse& d) {
            ASSERT_EQ(d.transaction_states.size(), 2u);
            const auto& a = d.transaction_states[0];
            EXPECT_EQ(a.transaction_state, "Ongoing");
            EXPECT_EQ(a.transaction_timeout_ms, 60000);
            EXPECT_EQ(a.transaction_start_time_ms, 1700000000000);
            EXPECT_EQ(a.producer_id, 11);
            EXPECT_EQ(a.producer_epoch, 2);
            ASSERT_EQ(a.topics.size(), 1u);
            EXPECT_EQ(a.topics[0].partitions, (std::vector<int32_t>{0, 1}));
            EXPECT_EQ(d.transaction_states[1].error_code, ErrorCode::transactional_id_not_found);
        });
    });
}

TEST(TxnRoundTrip, ListTransactions) {
    ListTransactionsRequest m;
    m.state_filters = {"Ongoing", "Bogus"};
    m.producer_id_filters = {1, 2};
    m.duration_filter = 5000;
    m.transactional_id_pattern = "tx-.*";
    ListTransactionsResponse r;
    r.error_code = ErrorCode::none;
    r.unknown_state_filters = {"Bogus"};
    r.transaction_states = {{"tx-1", 1, "Ongoing"}};
    for_each_version(ApiKey::list_transactions, [&](int16_t v) {
        round_trip(m, v, [&](const ListTransactionsRequest& d) {
            EXPECT_EQ(d.state_filters, m.state_filters);
            EXPECT_EQ(d.producer_id_filters, m.producer_id_filters);
            EXPECT_EQ(d.duration_filter, v >= 1 ? 5000 : -1);
            EXPECT_EQ(d.transactional_id_pattern,
                      v >= 2 ? std::optional<std::string>("tx-.*") : std::nullopt);
        });
        round_trip(r, v, [&](const ListTransactionsResponse& d) {
            EXPECT_EQ(d.unknown_state_filters, (std::vector<std::string>{"Bogus"}));
            ASSERT_EQ(d.transaction_states.size(), 1u);
            EXPECT_EQ(d.transaction_states[0].transactional_id, "tx-1");
            EXPECT_EQ(d.transaction_states[0].producer_id, 1);
            EXPECT_EQ(d.transaction_states[0].transaction_state, "Ongoing");
        });
    });
    ListTransactionsRequest null_pattern;  // v2: null means every id
    round_trip(null_pattern, 2, [](const ListTransactionsRequest& d) {
        EXPECT_FALSE(d.transactional_id_pattern.has_value());
    });
}

// UpdateFeatures (KIP-584): v0's allow_downgrade, v1's upgrade_type and validate_only, v2's
// response without per-feature results.
TEST(TxnRoundTrip, UpdateFeatures) {
    UpdateFeaturesRequest m;
    m.timeout_ms = 5000;
    m.feature_updates.push_back({"transaction.version", 1, true, 2});
    m.validate_only = true;
    for_each_version(ApiKey::update_features, [&](int16_t v) {
        round_trip(m, v, [&](const UpdateFeaturesRequest& d) {
            ASSERT_EQ(d.feature_updates.size(), 1u);
            EXPECT_EQ(d.feature_updates[0].feature, "transaction.version");
            EXPECT_EQ(d.feature_updates[0].max_version_level, 1);
            EXPECT_EQ(d.feature_updates[0].allow_downgrade, v == 0);
            EXPECT_EQ(d.feature_updates[0].upgrade_type, v >= 1 ? 2 : 1);
            EXPECT_EQ(d.validate_only, v >= 1);
        });
    });
    UpdateFeaturesResponse r;
    r.error_code = ErrorCode::invalid_update_version;
    r.error_message = "no";
    r.results.push_back({"transaction.version", ErrorCode::invalid_update_version, "no"});
    for_each_version(ApiKey::update_features, [&](int16_t v) {
        round_trip(r, v, [&](const UpdateFeaturesResponse& d) {
            EXPECT_EQ(d.error_code, ErrorCode::invalid_update_version);
            EXPECT_EQ(d.results.size(), v <= 1 ? 1u : 0u);
        });
    });
}

}  // namespace
}  // namespace skiff::protocol
