// EndTxn (key 26), versions 0-5 served; flexible from 3.
//   Commits (committed = true) or aborts the producer's ongoing transaction. v2 may answer
//   PRODUCER_FENCED (older versions get INVALID_PRODUCER_EPOCH); v4 TRANSACTION_ABORTABLE.
//   v5 (Kafka 4.0, KIP-890 transactions V2) bumps the epoch on every transaction and returns the
//   producer id and epoch to continue with; skiff does so when `transaction.version` is
//   finalized at 2 (otherwise v5 behaves as v4 and returns the unchanged id and epoch).
#pragma once

#include <cstdint>
#include <string>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct EndTxnRequest {
    static constexpr ApiKey api_key = ApiKey::end_txn;
    std::string transactional_id;
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool committed = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_id", m.transactional_id, since(0));
        v.field("producer_id", m.producer_id, since(0));
        v.field("producer_epoch", m.producer_epoch, since(0));
        v.field("committed", m.committed, since(0));
    }
};

struct EndTxnResponse {
    static constexpr ApiKey api_key = ApiKey::end_txn;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    int64_t producer_id = -1;     // v5+
    int16_t producer_epoch = -1;  // v5+

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("producer_id", m.producer_id, since(5));
        v.field("producer_epoch", m.producer_epoch, since(5));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::EndTxnRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::EndTxnResponse)
