// Fetch (key 1), versions 0-18 served; flexible from 12.
//   Request: v3 max_bytes (v0-v2 have only per-partition limits), v4 isolation_level, v5
//   log_start_offset, v7 sessions (session_id 0 / epoch -1 = no session) and forgotten topics,
//   v9 current_leader_epoch, v11 rack_id, v12 last_fetched_epoch and the tagged cluster_id, v13
//   topic ids instead of names (topics and forgotten topics), v15 the tagged replica_state
//   replaces replica_id, v17 the tagged replica_directory_id per partition, v18 (Kafka 4.1,
//   KIP-1166) the tagged high_watermark per partition: a follower's, for its leader (v14 and v16
//   change nothing in the request; v18 nothing in the response).
//   Response: v1 throttle_time_ms, v4 last_stable_offset and nullable aborted_transactions, v5
//   log_start_offset, v7 top-level error_code and session_id, v11 preferred_read_replica, v12
//   tagged diverging_epoch / current_leader / snapshot_id, v13 topic ids instead of names, v16 the
//   tagged node_endpoints (leaders named in current_leader: broker/handlers/leader_hints.h).
// Response records are a RecordSet: inline bytes then file ranges the broker sends with sendfile.
// Fetch v0-v3 answers carry down-converted message sets instead (broker/handlers/
// fetch_down_convert.h): magic 0 for v0-v1, magic 1 for v2-v3.
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

struct FetchPartition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;
    int64_t log_start_offset = -1;
    int32_t partition_max_bytes = 0;
    std::optional<Uuid> replica_directory_id;  // tag 0, v17+: brokers' follower fetches only
    std::optional<int64_t> high_watermark;     // tag 1, v18+: followers' only; ignored here

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition", m.partition, since(0));
        v.field("current_leader_epoch", m.current_leader_epoch, since(9));
        v.field("fetch_offset", m.fetch_offset, since(0));
        v.field("last_fetched_epoch", m.last_fetched_epoch, since(12));
        v.field("log_start_offset", m.log_start_offset, since(5));
        v.field("partition_max_bytes", m.partition_max_bytes, since(0));
        v.field("replica_directory_id", m.replica_directory_id, since(17), tagged(0, since(17)));
        v.field("high_watermark", m.high_watermark, since(18), tagged(1, since(18)));
    }
};

struct FetchTopic {
    std::string topic;  // up to v12
    Uuid topic_id;      // v13+
    std::vector<FetchPartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic", m.topic, between(0, 12));
        v.field("topic_id", m.topic_id, since(13));
        v.field("partitions", m.partitions, since(0));
    }
};

struct ForgottenTopic {
    std::string topic;
    Uuid topic_id;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic", m.topic, between(7, 12));
        v.field("topic_id", m.topic_id, since(13));
        v.field("partitions", m.partitions, since(7));
    }
};

struct ReplicaState {
    int32_t replica_id = -1;
    int64_t replica_epoch = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("replica_id", m.replica_id, since(15));
        v.field("replica_epoch", m.replica_epoch, since(15));
    }
};

struct FetchRequest {
    static constexpr ApiKey api_key = ApiKey::fetch;
    std::optional<std::string> cluster_id;      // tag 0
    int32_t replica_id = -1;                    // up to v14
    std::optional<ReplicaState> replica_state;  // tag 1, v15+ (absent: a consumer)
    int32_t max_wait_ms = 0;
    int32_t min_bytes = 0;
    int32_t max_bytes = 0x7fffffff;
    int8_t isolation_level = 0;
    int32_t session_id = 0;
    int32_t session_epoch = -1;
    std::vector<FetchTopic> topics;
    std::vector<ForgottenTopic> forgotten_topics_data;
    std::string rack_id;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("cluster_id", m.cluster_id, since(12), nullable(since(12)), tagged(0, since(12)));
        v.field("replica_id", m.replica_id, between(0, 14));
        v.field("replica_state", m.replica_state, since(15), tagged(1, since(15)));
        v.field("max_wait_ms", m.max_wait_ms, since(0));
        v.field("min_bytes", m.min_bytes, since(0));
        v.field("max_bytes", m.max_bytes, since(3));
        v.field("isolation_level", m.isolation_level, since(4));
        v.field("session_id", m.session_id, since(7));
        v.field("session_epoch", m.session_epoch, since(7));
        v.field("topics", m.topics, since(0));
        v.field("forgotten_topics_data", m.forgotten_topics_data, since(7));
        v.field("rack_id", m.rack_id, since(11));
    }
};

struct EpochEndOffset {
    int32_t epoch = -1;
    int64_t end_offset = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("epoch", m.epoch, since(12));
        v.field("end_offset", m.end_offset, since(12));
    }
    friend bool operator==(const EpochEndOffset&, const EpochEndOffset&) = default;
};

struct LeaderIdAndEpoch {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("leader_id", m.leader_id, since(12));
        v.field("leader_epoch", m.leader_epoch, since(12));
    }
    friend bool operator==(const LeaderIdAndEpoch&, const LeaderIdAndEpoch&) = default;
};

struct SnapshotId {
    int64_t end_offset = -1;
    int32_t epoch = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("end_offset", m.end_offset, since(0));
        v.field("epoch", m.epoch, since(0));
    }
    friend bool operator==(const SnapshotId&, const SnapshotId&) = default;
};

struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("producer_id", m.producer_id, since(4));
        v.field("first_offset", m.first_offset, since(4));
    }
    friend bool operator==(const AbortedTransaction&, const AbortedTransaction&) = default;
};

struct PartitionData {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;
    int64_t high_watermark = 0;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
    std::optional<EpochEndOffset> diverging_epoch;   // tag 0
    std::optional<LeaderIdAndEpoch> current_leader;  // tag 1
    std::optional<SnapshotId> snapshot_id;           // tag 2
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;
    int32_t preferred_read_replica = -1;
    RecordSet records;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("high_watermark", m.high_watermark, since(0));
        v.field("last_stable_offset", m.last_stable_offset, since(4));
        v.field("log_start_offset", m.log_start_offset, since(5));
        v.field("diverging_epoch", m.diverging_epoch, since(12), tagged(0, since(12)));
        v.field("current_leader", m.current_leader, since(12), tagged(1, since(12)));
        v.field("snapshot_id", m.snapshot_id, since(12), tagged(2, since(12)));
        v.field("aborted_transactions", m.aborted_transactions, since(4), nullable(since(4)));
        v.field("preferred_read_replica", m.preferred_read_replica, since(11));
        v.field("records", m.records, since(0), nullable(since(0)));
    }
};

struct FetchableTopicResponse {
    std::string topic;  // up to v12
    Uuid topic_id;      // v13+
    std::vector<PartitionData> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic", m.topic, between(0, 12));
        v.field("topic_id", m.topic_id, since(13));
        v.field("partitions", m.partitions, since(0));
    }
};

struct NodeEndpoint {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("node_id", m.node_id, since(16));
        v.field("host", m.host, since(16));
        v.field("port", m.port, since(16));
        v.field("rack", m.rack, since(16), nullable(since(16)));
    }
};

struct FetchResponse {
    static constexpr ApiKey api_key = ApiKey::fetch;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    int32_t session_id = 0;
    std::vector<FetchableTopicResponse> responses;
    std::vector<NodeEndpoint> node_endpoints;  // tag 0, v16+

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("error_code", m.error_code, since(7));
        v.field("session_id", m.session_id, since(7));
        v.field("responses", m.responses, since(0));
        v.field("node_endpoints", m.node_endpoints, since(16), tagged(0, since(16)));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::FetchRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::FetchResponse)
