// DescribeTopicPartitions (key 75, KIP-966), version 0; flexible from 0. Metadata for topics with
// their ids, in pages: at most response_partition_limit partitions per answer, the rest reached
// through the returned next_cursor (the topic and partition to continue from).
//   Request: topics (empty: every topic), response_partition_limit, the nullable cursor.
//   Response: per topic the error, name, id, partitions (leader, replicas, ISR, the nullable
//   eligible leader replicas and last known ELR of KIP-966) and next_cursor (null: the last page).
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

struct DescribeTopicPartitionsTopic {
    std::string name;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
    }
};

struct DescribeTopicPartitionsCursor {
    std::string topic_name;
    int32_t partition_index = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_name", m.topic_name, since(0));
        v.field("partition_index", m.partition_index, since(0));
    }
    friend bool operator==(const DescribeTopicPartitionsCursor&,
                           const DescribeTopicPartitionsCursor&) = default;
};

struct DescribeTopicPartitionsRequest {
    static constexpr ApiKey api_key = ApiKey::describe_topic_partitions;
    std::vector<DescribeTopicPartitionsTopic> topics;
    int32_t response_partition_limit = 2000;
    std::optional<DescribeTopicPartitionsCursor> cursor;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, since(0));
        v.field("response_partition_limit", m.response_partition_limit, since(0));
        v.field("cursor", m.cursor, since(0), nullable(since(0)));
    }
};

struct DescribeTopicPartitionsResponsePartition {
    ErrorCode error_code = ErrorCode::none;
    int32_t partition_index = 0;
    int32_t leader_id = 0;
    int32_t leader_epoch = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::optional<std::vector<int32_t>> eligible_leader_replicas;
    std::optional<std::vector<int32_t>> last_known_elr;
    std::vector<int32_t> offline_replicas;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("partition_index", m.partition_index, since(0));
        v.field("leader_id", m.leader_id, since(0));
        v.field("leader_epoch", m.leader_epoch, since(0));
        v.field("replica_nodes", m.replica_nodes, since(0));
        v.field("isr_nodes", m.isr_nodes, since(0));
        v.field("eligible_leader_replicas", m.eligible_leader_replicas, since(0),
                nullable(since(0)));
        v.field("last_known_elr", m.last_known_elr, since(0), nullable(since(0)));
        v.field("offline_replicas", m.offline_replicas, since(0));
    }
};

struct DescribeTopicPartitionsResponseTopic {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> name;
    Uuid topic_id;
    bool is_internal = false;
    std::vector<DescribeTopicPartitionsResponsePartition> partitions;
    int32_t topic_authorized_operations = std::numeric_limits<int32_t>::min();

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("name", m.name, since(0), nullable(since(0)));
        v.field("topic_id", m.topic_id, since(0));
        v.field("is_internal", m.is_internal, since(0));
        v.field("partitions", m.partitions, since(0));
        v.field("topic_authorized_operations", m.topic_authorized_operations, since(0));
    }
};

struct DescribeTopicPartitionsResponse {
    static constexpr ApiKey api_key = ApiKey::describe_topic_partitions;
    int32_t throttle_time_ms = 0;
    std::vector<DescribeTopicPartitionsResponseTopic> topics;
    std::optional<DescribeTopicPartitionsCursor> next_cursor;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("topics", m.topics, since(0));
        v.field("next_cursor", m.next_cursor, since(0), nullable(since(0)));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeTopicPartitionsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeTopicPartitionsResponse)
