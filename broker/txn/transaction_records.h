// The records of the internal __transaction_state log, in Kafka's format (TransactionLogKey and
// TransactionLogValue of Kafka's transaction coordinator), so Kafka's tools could read the log:
//   key   int16 record type = 0 | transactional id (int16 length + UTF-8)
//   value int16 version = 0 | int64 producer id | int16 producer epoch | int32 timeout ms
//         | int8 state (TxnState) | partitions: int32 count (-1 = null) of
//           { topic (int16 length + UTF-8) | int32 count | int32 partition... }
//         | int64 last update timestamp | int64 transaction start timestamp
//   a null value (tombstone) removes the transactional id.
// Version 0 is written while the finalized transaction.version is 0, version 1 (flexible, with
// the tagged previous / next producer id and client transaction version) from level 1 on, as
// Kafka's TransactionVersion.transactionLogValueVersion; both are read. Tagged fields are written
// only when they differ from Kafka's defaults (-1, -1, 0). Partitions are written null in the
// Empty state, as Kafka does.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/decode_error.h"
#include "protocol/expected.h"
#include "protocol/field_spec.h"

namespace skiff::broker::txn {

struct TxnLogPartitions {
    std::string topic;
    std::vector<int32_t> partition_ids;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::since;
        v.field("topic", m.topic, since(0));
        v.field("partition_ids", m.partition_ids, since(0));
    }
};

struct TxnLogValue {
    static constexpr int16_t kMaxVersion = 1;
    int64_t producer_id = -1;
    std::optional<int64_t> previous_producer_id;  // v1+, tagged
    std::optional<int64_t> next_producer_id;      // v1+, tagged
    int16_t producer_epoch = -1;
    std::optional<int16_t> next_producer_epoch;  // v1+, tagged
    int32_t transaction_timeout_ms = 0;
    int8_t transaction_status = 0;
    std::optional<std::vector<TxnLogPartitions>> transaction_partitions;
    int64_t transaction_last_update_timestamp_ms = -1;
    int64_t transaction_start_timestamp_ms = -1;
    std::optional<int16_t> client_transaction_version;  // v1+, tagged

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::nullable;
        using protocol::since;
        using protocol::tagged;
        v.field("producer_id", m.producer_id, since(0));
        v.field("previous_producer_id", m.previous_producer_id, since(1), tagged(0, since(1)));
        v.field("next_producer_id", m.next_producer_id, since(1), tagged(1, since(1)));
        v.field("producer_epoch", m.producer_epoch, since(0));
        v.field("next_producer_epoch", m.next_producer_epoch, since(1), tagged(3, since(1)));
        v.field("transaction_timeout_ms", m.transaction_timeout_ms, since(0));
        v.field("transaction_status", m.transaction_status, since(0));
        v.field("transaction_partitions", m.transaction_partitions, since(0), nullable(since(0)));
        v.field("transaction_last_update_timestamp_ms", m.transaction_last_update_timestamp_ms,
                since(0));
        v.field("transaction_start_timestamp_ms", m.transaction_start_timestamp_ms, since(0));
        v.field("client_transaction_version", m.client_transaction_version, since(1),
                tagged(2, since(1)));
    }
};

// The key's bytes for a transactional id.
std::string encode_txn_key(const std::string& transactional_id);
// The value's bytes at `version` (0 or 1).
std::string encode_txn_value(const TxnLogValue& value, int16_t version = 0);
// The key's record type (the leading int16; 0 is a transaction record, others are skipped).
Expected<int16_t, protocol::DecodeError> txn_key_type(std::span<const std::byte> bytes);
Expected<std::string, protocol::DecodeError> decode_txn_key(std::span<const std::byte> bytes);
Expected<TxnLogValue, protocol::DecodeError> decode_txn_value(std::span<const std::byte> bytes);

}  // namespace skiff::broker::txn
