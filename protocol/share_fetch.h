// ShareFetch (key 78, KIP-932), versions 1-2; flexible from 0. Kafka 4.1 dropped v0 (the early
// access's draft, with per-partition max bytes); skiff serves what Kafka 4.2 does.
//   v1: max_records and batch_size in the request; acquisition_lock_timeout_ms top-level in the
//   response.
//   v2 (Kafka 4.2, KIP-1206 / KIP-1222): share_acquire_mode (0 batch-optimized: whole batches,
//   max_records may be exceeded; 1 record-limit: at most max_records) and is_renew_ack (the
//   acknowledgements carry RENEW, 4, and nothing is fetched).
// A share consumer names no offsets: the share-partition decides what is next, and the response
// carries the log's own batches (a RecordSet: file ranges sent with sendfile, as Fetch does)
// with the offset ranges acquired for the member beside them; the client drops the rest.
// Acknowledgements ride along per partition (ACCEPT 1, RELEASE 2, REJECT 3, RENEW 4, 0 a gap).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"
#include "protocol/record_set.h"

namespace skiff::protocol {

// One range of offsets and its acknowledgement: one type for the whole range, or one per offset.
// Shared with ShareAcknowledge (share_acknowledge.h).
struct ShareAcknowledgementBatch {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    std::vector<int8_t> acknowledge_types;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("first_offset", m.first_offset, since(0));
        v.field("last_offset", m.last_offset, since(0));
        v.field("acknowledge_types", m.acknowledge_types, since(0));
    }
    friend bool operator==(const ShareAcknowledgementBatch&,
                           const ShareAcknowledgementBatch&) = default;
};

struct ShareFetchPartition {
    int32_t partition_index = 0;
    std::vector<ShareAcknowledgementBatch> acknowledgement_batches;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("acknowledgement_batches", m.acknowledgement_batches, since(0));
    }
    friend bool operator==(const ShareFetchPartition&, const ShareFetchPartition&) = default;
};

struct ShareFetchTopic {
    Uuid topic_id;
    std::vector<ShareFetchPartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
    friend bool operator==(const ShareFetchTopic&, const ShareFetchTopic&) = default;
};

// Partitions that leave the member's share session.
struct ShareForgottenTopic {
    Uuid topic_id;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
    friend bool operator==(const ShareForgottenTopic&, const ShareForgottenTopic&) = default;
};

struct ShareFetchRequest {
    static constexpr ApiKey api_key = ApiKey::share_fetch;
    std::optional<std::string> group_id;  // null: INVALID_REQUEST
    std::optional<std::string> member_id;
    int32_t share_session_epoch = 0;  // 0 opens a session, -1 closes it, else the next epoch
    int32_t max_wait_ms = 0;
    int32_t min_bytes = 0;
    int32_t max_bytes = 0x7fffffff;
    int32_t max_records = 500;
    int32_t batch_size = 500;
    int8_t share_acquire_mode = 0;  // v2+
    bool is_renew_ack = false;      // v2+
    std::vector<ShareFetchTopic> topics;
    std::vector<ShareForgottenTopic> forgotten_topics_data;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0), nullable(since(0)));
        v.field("member_id", m.member_id, since(0), nullable(since(0)));
        v.field("share_session_epoch", m.share_session_epoch, since(0));
        v.field("max_wait_ms", m.max_wait_ms, since(0));
        v.field("min_bytes", m.min_bytes, since(0));
        v.field("max_bytes", m.max_bytes, since(0));
        v.field("max_records", m.max_records, since(1));
        v.field("batch_size", m.batch_size, since(1));
        v.field("share_acquire_mode", m.share_acquire_mode, since(2));
        v.field("is_renew_ack", m.is_renew_ack, since(2));
        v.field("topics", m.topics, since(0));
        v.field("forgotten_topics_data", m.forgotten_topics_data, since(0));
    }
};

// The partition's leader (on skiff always this broker, epoch 0); not tagged in share APIs.
struct ShareLeaderIdAndEpoch {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("leader_id", m.leader_id, since(0));
        v.field("leader_epoch", m.leader_epoch, since(0));
    }
    friend bool operator==(const ShareLeaderIdAndEpoch&, const ShareLeaderIdAndEpoch&) = default;
};

struct ShareAcquiredRecords {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    int16_t delivery_count = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("first_offset", m.first_offset, since(0));
        v.field("last_offset", m.last_offset, since(0));
        v.field("delivery_count", m.delivery_count, since(0));
    }
    friend bool operator==(const ShareAcquiredRecords&, const ShareAcquiredRecords&) = default;
};

struct ShareFetchPartitionData {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    ErrorCode acknowledge_error_code = ErrorCode::none;
    std::optional<std::string> acknowledge_error_message;
    ShareLeaderIdAndEpoch current_leader;
    RecordSet records;
    std::vector<ShareAcquiredRecords> acquired_records;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("acknowledge_error_code", m.acknowledge_error_code, since(0));
        v.field("acknowledge_error_message", m.acknowledge_error_message, since(0),
                nullable(since(0)));
        v.field("current_leader", m.current_leader, since(0));
        v.field("records", m.records, since(0), nullable(since(0)));
        v.field("acquired_records", m.acquired_records, since(0));
    }
};

struct ShareFetchTopicResponse {
    Uuid topic_id;
    std::vector<ShareFetchPartitionData> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct ShareNodeEndpoint {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("node_id", m.node_id, since(0));
        v.field("host", m.host, since(0));
        v.field("port", m.port, since(0));
        v.field("rack", m.rack, since(0), nullable(since(0)));
    }
    friend bool operator==(const ShareNodeEndpoint&, const ShareNodeEndpoint&) = default;
};

struct ShareFetchResponse {
    static constexpr ApiKey api_key = ApiKey::share_fetch;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    int32_t acquisition_lock_timeout_ms = 0;  // v1+
    std::vector<ShareFetchTopicResponse> responses;
    std::vector<ShareNodeEndpoint> node_endpoints;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("acquisition_lock_timeout_ms", m.acquisition_lock_timeout_ms, since(1));
        v.field("responses", m.responses, since(0));
        v.field("node_endpoints", m.node_endpoints, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ShareFetchRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ShareFetchResponse)
