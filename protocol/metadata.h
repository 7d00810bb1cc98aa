// Metadata (key 3), versions 0-13; flexible from 9.
//   v0: topics is a plain array, empty = all topics. v1+: null = all topics, empty = none.
//   v1 adds rack, controller_id, is_internal; v2 cluster_id; v3 throttle_time_ms;
//   v4 allow_auto_topic_creation; v5 offline_replicas; v7 leader_epoch; v8 authorized
//   operations (cluster ones only up to v10); v10 topic ids, request topic names nullable;
//   v12 response topic names nullable; v13 (Kafka 4.0, KIP-1102) a top-level error_code, for
//   REBOOTSTRAP_REQUIRED, which a single broker never needs to send (0, unless a control-API
//   fault rule asks for it: broker/control/request_hook.h).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

// "Authorized operations not requested" in Kafka's bitfields.
inline constexpr int32_t kAuthorizedOperationsOmitted = std::numeric_limits<int32_t>::min();

struct MetadataRequestTopic {
    Uuid topic_id;
    std::optional<std::string> name;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(10));
        v.field("name", m.name, since(0), nullable(since(10)));
    }
};

struct MetadataRequest {
    static constexpr ApiKey api_key = ApiKey::metadata;
    std::optional<std::vector<MetadataRequestTopic>> topics;  // null (v1+): all topics
    bool allow_auto_topic_creation = true;
    bool include_cluster_authorized_operations = false;
    bool include_topic_authorized_operations = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, since(0), nullable(since(1)));
        v.field("allow_auto_topic_creation", m.allow_auto_topic_creation, since(4));
        v.field("include_cluster_authorized_operations", m.include_cluster_authorized_operations,
                between(8, 10));
        v.field("include_topic_authorized_operations", m.include_topic_authorized_operations,
                since(8));
    }
};

struct MetadataResponseBroker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("node_id", m.node_id, since(0));
        v.field("host", m.host, since(0));
        v.field("port", m.port, since(0));
        v.field("rack", m.rack, since(1), nullable(since(1)));
    }
};

struct MetadataResponsePartition {
    ErrorCode error_code = ErrorCode::none;
    int32_t partition_index = 0;
    int32_t leader_id = 0;
    int32_t leader_epoch = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::vector<int32_t> offline_replicas;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("partition_index", m.partition_index, since(0));
        v.field("leader_id", m.leader_id, since(0));
        v.field("leader_epoch", m.leader_epoch, since(7));
        v.field("replica_nodes", m.replica_nodes, since(0));
        v.field("isr_nodes", m.isr_nodes, since(0));
        v.field("offline_replicas", m.offline_replicas, since(5));
    }
};

struct MetadataResponseTopic {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> name;
    Uuid topic_id;
    bool is_internal = false;
    std::vector<MetadataResponsePartition> partitions;
    int32_t topic_authorized_operations = kAuthorizedOperationsOmitted;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("name", m.name, since(0), nullable(since(12)));
        v.field("topic_id", m.topic_id, since(10));
        v.field("is_internal", m.is_internal, since(1));
        v.field("partitions", m.partitions, since(0));
        v.field("topic_authorized_operations", m.topic_authorized_operations, since(8));
    }
};

struct MetadataResponse {
    static constexpr ApiKey api_key = ApiKey::metadata;
    int32_t throttle_time_ms = 0;
    std::vector<MetadataResponseBroker> brokers;
    std::optional<std::string> cluster_id;
    int32_t controller_id = -1;
    std::vector<MetadataResponseTopic> topics;
    int32_t cluster_authorized_operations = kAuthorizedOperationsOmitted;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(3));
        v.field("brokers", m.brokers, since(0));
        v.field("cluster_id", m.cluster_id, since(2), nullable(since(2)));
        v.field("controller_id", m.controller_id, since(1));
        v.field("topics", m.topics, since(0));
        v.field("cluster_authorized_operations", m.cluster_authorized_operations, between(8, 10));
        v.field("error_code", m.error_code, since(13));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::MetadataRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::MetadataResponse)
