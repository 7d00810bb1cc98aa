// ListPartitionReassignments (key 46, KIP-455), version 0 served; flexible from 0.
// One broker never moves replicas, so the answer is always the empty list; tools and UIs (and
// `kafka-reassign-partitions.sh --list`) still need an answer rather than UNSUPPORTED_VERSION.
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

struct ListPartitionReassignmentsTopics {
    std::string name;
    std::vector<int32_t> partition_indexes;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partition_indexes", m.partition_indexes, since(0));
    }
};

struct ListPartitionReassignmentsRequest {
    static constexpr ApiKey api_key = ApiKey::list_partition_reassignments;
    int32_t timeout_ms = 60000;
    std::optional<std::vector<ListPartitionReassignmentsTopics>> topics;  // null: all

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("timeout_ms", m.timeout_ms, since(0));
        v.field("topics", m.topics, since(0), nullable(since(0)));
    }
};

struct OngoingPartitionReassignment {
    int32_t partition_index = 0;
    std::vector<int32_t> replicas;
    std::vector<int32_t> adding_replicas;
    std::vector<int32_t> removing_replicas;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("replicas", m.replicas, since(0));
        v.field("adding_replicas", m.adding_replicas, since(0));
        v.field("removing_replicas", m.removing_replicas, since(0));
    }
};

struct OngoingTopicReassignment {
    std::string name;
    std::vector<OngoingPartitionReassignment> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct ListPartitionReassignmentsResponse {
    static constexpr ApiKey api_key = ApiKey::list_partition_reassignments;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<OngoingTopicReassignment> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("topics", m.topics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ListPartitionReassignmentsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ListPartitionReassignmentsResponse)
