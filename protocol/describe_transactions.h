// DescribeTransactions (key 65, KIP-664), version 0; flexible from 0.
//   One entry per requested transactional id: its state name ("Ongoing", "CompleteCommit", ...),
//   timeout, start time (-1 when no transaction runs), producer id and epoch and partitions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct DescribeTransactionsRequest {
    static constexpr ApiKey api_key = ApiKey::describe_transactions;
    std::vector<std::string> transactional_ids;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_ids", m.transactional_ids, since(0));
    }
};

struct DescribeTransactionsTopic {
    std::string topic;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic", m.topic, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct DescribeTransactionsState {
    ErrorCode error_code = ErrorCode::none;
    std::string transactional_id;
    std::string transaction_state;
    int32_t transaction_timeout_ms = 0;
    int64_t transaction_start_time_ms = -1;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    std::vector<DescribeTransactionsTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("transactional_id", m.transactional_id, since(0));
        v.field("transaction_state", m.transaction_state, since(0));
        v.field("transaction_timeout_ms", m.transaction_timeout_ms, since(0));
        v.field("transaction_start_time_ms", m.transaction_start_time_ms, since(0));
        v.field("producer_id", m.producer_id, since(0));
        v.field("producer_epoch", m.producer_epoch, since(0));
        v.field("topics", m.topics, since(0));
    }
};

struct DescribeTransactionsResponse {
    static constexpr ApiKey api_key = ApiKey::describe_transactions;
    int32_t throttle_time_ms = 0;
    std::vector<DescribeTransactionsState> transaction_states;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("transaction_states", m.transaction_states, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeTransactionsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeTransactionsResponse)
