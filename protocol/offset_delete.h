// OffsetDelete (key 47, KIP-496), version 0 served; not flexible.
// Removes a group's committed offsets for some partitions (AdminClient.deleteConsumerGroupOffsets,
// `kafka-consumer-groups.sh --delete-offsets`). A group-level error comes with no topics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct OffsetDeleteRequestTopic {
    std::string name;
    std::vector<int32_t> partitions;  // partition indexes

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct OffsetDeleteRequest {
    static constexpr ApiKey api_key = ApiKey::offset_delete;
    std::string group_id;
    std::vector<OffsetDeleteRequestTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("topics", m.topics, since(0));
    }
};

struct OffsetDeleteResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
    }
};

struct OffsetDeleteResponseTopic {
    std::string name;
    std::vector<OffsetDeleteResponsePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct OffsetDeleteResponse {
    static constexpr ApiKey api_key = ApiKey::offset_delete;
    ErrorCode error_code = ErrorCode::none;
    int32_t throttle_time_ms = 0;
    std::vector<OffsetDeleteResponseTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("topics", m.topics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::OffsetDeleteRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::OffsetDeleteResponse)
