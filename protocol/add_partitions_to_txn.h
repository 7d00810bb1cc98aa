// AddPartitionsToTxn (key 24), versions 0-5 served; flexible from 3.
//   Clients send v0-3: one transaction (transactional id, producer id and epoch) and its topics.
//   v1 is v0; v2 may answer PRODUCER_FENCED (older versions get INVALID_PRODUCER_EPOCH instead).
//   v4+ (Kafka 3.6, KIP-890) is Kafka's broker-to-broker form: batches of transactions, each
//   added or, with verify_only, only checked; it needs CLUSTER_ACTION. v5 may answer
//   TRANSACTION_ABORTABLE and adds under transactions V2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct AddPartitionsToTxnTopic {
    std::string name;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct AddPartitionsToTxnTransaction {
    std::string transactional_id;
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool verify_only = false;
    std::vector<AddPartitionsToTxnTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_id", m.transactional_id, since(4));
        v.field("producer_id", m.producer_id, since(4));
        v.field("producer_epoch", m.producer_epoch, since(4));
        v.field("verify_only", m.verify_only, since(4));
        v.field("topics", m.topics, since(4));
    }
};

struct AddPartitionsToTxnRequest {
    static constexpr ApiKey api_key = ApiKey::add_partitions_to_txn;
    std::vector<AddPartitionsToTxnTransaction> transactions;  // v4+
    std::string v3_and_below_transactional_id;
    int64_t v3_and_below_producer_id = 0;
    int16_t v3_and_below_producer_epoch = 0;
    std::vector<AddPartitionsToTxnTopic> v3_and_below_topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactions", m.transactions, since(4));
        v.field("v3_and_below_transactional_id", m.v3_and_below_transactional_id, between(0, 3));
        v.field("v3_and_below_producer_id", m.v3_and_below_producer_id, between(0, 3));
        v.field("v3_and_below_producer_epoch", m.v3_and_below_producer_epoch, between(0, 3));
        v.field("v3_and_below_topics", m.v3_and_below_topics, between(0, 3));
    }
};

struct AddPartitionsToTxnPartitionResult {
    int32_t partition_index = 0;
    ErrorCode partition_error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("partition_error_code", m.partition_error_code, since(0));
    }
};

struct AddPartitionsToTxnTopicResult {
    std::string name;
    std::vector<AddPartitionsToTxnPartitionResult> results_by_partition;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("results_by_partition", m.results_by_partition, since(0));
    }
};

struct AddPartitionsToTxnResult {
    std::string transactional_id;
    std::vector<AddPartitionsToTxnTopicResult> topic_results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_id", m.transactional_id, since(4));
        v.field("topic_results", m.topic_results, since(4));
    }
};

struct AddPartitionsToTxnResponse {
    static constexpr ApiKey api_key = ApiKey::add_partitions_to_txn;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;                        // v4+
    std::vector<AddPartitionsToTxnResult> results_by_transaction;  // v4+
    std::vector<AddPartitionsToTxnTopicResult> results_by_topic_v3_and_below;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(4));
        v.field("results_by_transaction", m.results_by_transaction, since(4));
        v.field("results_by_topic_v3_and_below", m.results_by_topic_v3_and_below, between(0, 3));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::AddPartitionsToTxnRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::AddPartitionsToTxnResponse)
