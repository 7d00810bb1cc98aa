// Produce (key 0), versions 0-13; flexible from 9.
//   v3 adds transactional_id and requires record batch v2 (magic 2); v2 adds
//   log_append_time_ms, v5 log_start_offset, v8 record_errors and error_message in the response.
//   v10 (KIP-951) adds the tagged current_leader per partition and node_endpoints, which Kafka
//   fills only with NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH: on skiff only from a
//   control-API fault rule (broker/handlers/leader_hints.h).
//   v11 (TRANSACTION_ABORTABLE for a partition outside the transaction) and v12 (Kafka 4.0,
//   KIP-890: with transaction.version 2 the produce itself adds its partition to the producer's
//   transaction, broker/txn/) change no field. v13 (Kafka 4.1, KIP-516) names topics by id instead
//   of by name in the request and the response; an id no topic holds is UNKNOWN_TOPIC_ID.
// Records are a view into the request frame (zero copy): the frame must outlive the request.
// acks = 0 means the client expects no response at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct PartitionProduceData {
    int32_t index = 0;
    std::optional<std::span<const std::byte>> records;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("index", m.index, since(0));
        v.field("records", m.records, since(0), nullable(since(0)));
    }
};

struct TopicProduceData {
    std::string name;  // v0-12
    Uuid topic_id;     // v13+
    std::vector<PartitionProduceData> partition_data;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, between(0, 12));
        v.field("topic_id", m.topic_id, since(13));
        v.field("partition_data", m.partition_data, since(0));
    }
};

struct ProduceRequest {
    static constexpr ApiKey api_key = ApiKey::produce;
    std::optional<std::string> transactional_id;
    int16_t acks = 0;
    int32_t timeout_ms = 0;
    std::vector<TopicProduceData> topic_data;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_id", m.transactional_id, since(3), nullable(since(3)));
        v.field("acks", m.acks, since(0));
        v.field("timeout_ms", m.timeout_ms, since(0));
        v.field("topic_data", m.topic_data, since(0));
    }
};

// v10+ tagged fields; Kafka's LeaderIdAndEpoch / NodeEndpoint for Produce.
struct ProduceLeaderIdAndEpoch {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("leader_id", m.leader_id, since(10));
        v.field("leader_epoch", m.leader_epoch, since(10));
    }
};

struct ProduceNodeEndpoint {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("node_id", m.node_id, since(10));
        v.field("host", m.host, since(10));
        v.field("port", m.port, since(10));
        v.field("rack", m.rack, since(10), nullable(since(10)));
    }
};

struct BatchIndexAndErrorMessage {
    int32_t batch_index = 0;
    std::optional<std::string> batch_index_error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("batch_index", m.batch_index, since(8));
        v.field("batch_index_error_message", m.batch_index_error_message, since(8),
                nullable(since(8)));
    }
};

struct PartitionProduceResponse {
    int32_t index = 0;
    ErrorCode error_code = ErrorCode::none;
    int64_t base_offset = 0;
    int64_t log_append_time_ms = -1;
    int64_t log_start_offset = -1;
    std::vector<BatchIndexAndErrorMessage> record_errors;
    std::optional<std::string> error_message;
    std::optional<ProduceLeaderIdAndEpoch> current_leader;  // tag 0, v10+

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("index", m.index, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("base_offset", m.base_offset, since(0));
        v.field("log_append_time_ms", m.log_append_time_ms, since(2));
        v.field("log_start_offset", m.log_start_offset, since(5));
        v.field("record_errors", m.record_errors, since(8));
        v.field("error_message", m.error_message, since(8), nullable(since(8)));
        v.field("current_leader", m.current_leader, since(10), tagged(0, since(10)));
    }
};

struct TopicProduceResponse {
    std::string name;  // v0-12
    Uuid topic_id;     // v13+
    std::vector<PartitionProduceResponse> partition_responses;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, between(0, 12));
        v.field("topic_id", m.topic_id, since(13));
        v.field("partition_responses", m.partition_responses, since(0));
    }
};

struct ProduceResponse {
    static constexpr ApiKey api_key = ApiKey::produce;
    std::vector<TopicProduceResponse> responses;
    int32_t throttle_time_ms = 0;
    std::vector<ProduceNodeEndpoint> node_endpoints;  // tag 0, v10+

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("responses", m.responses, since(0));
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("node_endpoints", m.node_endpoints, since(10), tagged(0, since(10)));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ProduceRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ProduceResponse)
