// AddOffsetsToTxn (key 25), versions 0-4 served; flexible from 3.
//   Adds the group's __consumer_offsets partition to the transaction, so that TxnOffsetCommit
//   may write to it. v1 is v0; v2 may answer PRODUCER_FENCED (older versions get
//   INVALID_PRODUCER_EPOCH); v4 may answer TRANSACTION_ABORTABLE (KIP-890). No field changes.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct AddOffsetsToTxnRequest {
    static constexpr ApiKey api_key = ApiKey::add_offsets_to_txn;
    std::string transactional_id;
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    std::string group_id;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_id", m.transactional_id, since(0));
        v.field("producer_id", m.producer_id, since(0));
        v.field("producer_epoch", m.producer_epoch, since(0));
        v.field("group_id", m.group_id, since(0));
    }
};

struct AddOffsetsToTxnResponse {
    static constexpr ApiKey api_key = ApiKey::add_offsets_to_txn;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::AddOffsetsToTxnRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::AddOffsetsToTxnResponse)
