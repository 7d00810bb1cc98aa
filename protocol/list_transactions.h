// ListTransactions (key 66, KIP-664), versions 0-2 served; flexible from 0.
//   v1 (Kafka 3.8, KIP-994) adds duration_filter: only transactions running longer than it.
//   v2 (Kafka 4.1, KIP-1152) adds transactional_id_pattern, a regular expression the whole id
//   must match (null or empty: every id).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct ListTransactionsRequest {
    static constexpr ApiKey api_key = ApiKey::list_transactions;
    std::vector<std::string> state_filters;
    std::vector<int64_t> producer_id_filters;
    int64_t duration_filter = -1;
    std::optional<std::string> transactional_id_pattern;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("state_filters", m.state_filters, since(0));
        v.field("producer_id_filters", m.producer_id_filters, since(0));
        v.field("duration_filter", m.duration_filter, since(1));
        v.field("transactional_id_pattern", m.transactional_id_pattern, since(2),
                nullable(since(2)));
    }
};

struct ListTransactionsState {
    std::string transactional_id;
    int64_t producer_id = 0;
    std::string transaction_state;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_id", m.transactional_id, since(0));
        v.field("producer_id", m.producer_id, since(0));
        v.field("transaction_state", m.transaction_state, since(0));
    }
};

struct ListTransactionsResponse {
    static constexpr ApiKey api_key = ApiKey::list_transactions;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::vector<std::string> unknown_state_filters;
    std::vector<ListTransactionsState> transaction_states;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("unknown_state_filters", m.unknown_state_filters, since(0));
        v.field("transaction_states", m.transaction_states, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ListTransactionsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ListTransactionsResponse)
