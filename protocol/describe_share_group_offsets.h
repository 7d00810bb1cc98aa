// DescribeShareGroupOffsets (key 90, KIP-932), versions 0-1; flexible from 0. Each
// share-partition's start offset (-1: the group has no state for it), for the partitions asked, or
// (topics null) every partition the group has state for.
//   v1 (Kafka 4.2, KIP-1226): the lag per partition (-1: unknown).
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

struct DescribeShareGroupOffsetsRequestTopic {
    std::string topic_name;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_name", m.topic_name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
    friend bool operator==(const DescribeShareGroupOffsetsRequestTopic&,
                           const DescribeShareGroupOffsetsRequestTopic&) = default;
};

struct DescribeShareGroupOffsetsRequestGroup {
    std::string group_id;
    // Null: every topic partition the group has state for.
    std::optional<std::vector<DescribeShareGroupOffsetsRequestTopic>> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("topics", m.topics, since(0), nullable(since(0)));
    }
    friend bool operator==(const DescribeShareGroupOffsetsRequestGroup&,
                           const DescribeShareGroupOffsetsRequestGroup&) = default;
};

struct DescribeShareGroupOffsetsRequest {
    static constexpr ApiKey api_key = ApiKey::describe_share_group_offsets;
    std::vector<DescribeShareGroupOffsetsRequestGroup> groups;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("groups", m.groups, since(0));
    }
};

struct DescribeShareGroupOffsetsResponsePartition {
    int32_t partition_index = 0;
    int64_t start_offset = -1;
    int32_t leader_epoch = -1;
    int64_t lag = -1;  // v1+
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("start_offset", m.start_offset, since(0));
        v.field("leader_epoch", m.leader_epoch, since(0));
        v.field("lag", m.lag, since(1));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
    }
};

struct DescribeShareGroupOffsetsResponseTopic {
    std::string topic_name;
    Uuid topic_id;
    std::vector<DescribeShareGroupOffsetsResponsePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_name", m.topic_name, since(0));
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct DescribeShareGroupOffsetsResponseGroup {
    std::string group_id;
    std::vector<DescribeShareGroupOffsetsResponseTopic> topics;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("topics", m.topics, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
    }
};

struct DescribeShareGroupOffsetsResponse {
    static constexpr ApiKey api_key = ApiKey::describe_share_group_offsets;
    int32_t throttle_time_ms = 0;
    std::vector<DescribeShareGroupOffsetsResponseGroup> groups;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("groups", m.groups, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeShareGroupOffsetsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeShareGroupOffsetsResponse)
