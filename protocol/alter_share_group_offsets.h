// AlterShareGroupOffsets (key 91, KIP-932), version 0; flexible from 0. Sets the start offset of
// share-partitions of a group that has no members (NON_EMPTY_GROUP otherwise, as Kafka).
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

struct AlterShareGroupOffsetsRequestPartition {
    int32_t partition_index = 0;
    int64_t start_offset = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("start_offset", m.start_offset, since(0));
    }
    friend bool operator==(const AlterShareGroupOffsetsRequestPartition&,
                           const AlterShareGroupOffsetsRequestPartition&) = default;
};

struct AlterShareGroupOffsetsRequestTopic {
    std::string topic_name;
    std::vector<AlterShareGroupOffsetsRequestPartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_name", m.topic_name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
    friend bool operator==(const AlterShareGroupOffsetsRequestTopic&,
                           const AlterShareGroupOffsetsRequestTopic&) = default;
};

struct AlterShareGroupOffsetsRequest {
    static constexpr ApiKey api_key = ApiKey::alter_share_group_offsets;
    std::string group_id;
    std::vector<AlterShareGroupOffsetsRequestTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("topics", m.topics, since(0));
    }
};

struct AlterShareGroupOffsetsResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
    }
};

struct AlterShareGroupOffsetsResponseTopic {
    std::string topic_name;
    Uuid topic_id;
    std::vector<AlterShareGroupOffsetsResponsePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_name", m.topic_name, since(0));
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct AlterShareGroupOffsetsResponse {
    static constexpr ApiKey api_key = ApiKey::alter_share_group_offsets;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<AlterShareGroupOffsetsResponseTopic> responses;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("responses", m.responses, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::AlterShareGroupOffsetsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::AlterShareGroupOffsetsResponse)
