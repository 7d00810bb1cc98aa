// InitProducerId (key 22), versions 0-6 served; flexible from 2.
//   v3 adds producer_id / producer_epoch in the request (an existing producer bumping its
//   epoch). A null transactional_id asks for an idempotent-only producer id. v4 (PRODUCER_FENCED
//   may be returned) and v5 (TRANSACTION_ABORTABLE, KIP-890) change no field. v6 (Kafka 4.1,
//   KIP-939 two-phase commit; "unstable" in Kafka 4.1-4.2) adds enable_2pc / keep_prepared_txn
//   and the ongoing transaction's producer id and epoch, which Kafka itself never fills (-1).
//   skiff answers it as a Kafka broker with two-phase commit off: enable_2pc is
//   TRANSACTIONAL_ID_AUTHORIZATION_FAILED, keep_prepared_txn UNSUPPORTED_VERSION.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct InitProducerIdRequest {
    static constexpr ApiKey api_key = ApiKey::init_producer_id;
    std::optional<std::string> transactional_id;
    int32_t transaction_timeout_ms = 0;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    bool enable_2pc = false;
    bool keep_prepared_txn = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_id", m.transactional_id, since(0), nullable(since(0)));
        v.field("transaction_timeout_ms", m.transaction_timeout_ms, since(0));
        v.field("producer_id", m.producer_id, since(3));
        v.field("producer_epoch", m.producer_epoch, since(3));
        v.field("enable_2pc", m.enable_2pc, since(6));
        v.field("keep_prepared_txn", m.keep_prepared_txn, since(6));
    }
};

struct InitProducerIdResponse {
    static constexpr ApiKey api_key = ApiKey::init_producer_id;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int64_t ongoing_txn_producer_id = -1;
    int16_t ongoing_txn_producer_epoch = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("producer_id", m.producer_id, since(0));
        v.field("producer_epoch", m.producer_epoch, since(0));
        v.field("ongoing_txn_producer_id", m.ongoing_txn_producer_id, since(6));
        v.field("ongoing_txn_producer_epoch", m.ongoing_txn_producer_epoch, since(6));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::InitProducerIdRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::InitProducerIdResponse)
