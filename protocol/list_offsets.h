// ListOffsets (key 2), versions 0-11 served; flexible from 6.
//   v0 (kafka-python api_version (0, 9)): max_num_offsets in, old_style_offsets out (skiff
//   answers the one offset later versions give).
//   v2 adds isolation_level and throttle_time_ms; v4 current_leader_epoch / leader_epoch;
//   v7 allows timestamp -3 (max timestamp). Timestamps -1 = latest, -2 = earliest.
//   v8 allows -4 (earliest local, KIP-405) and v9 -5 (latest tiered, KIP-1005): without tiered
//   storage the local log is the whole log, and nothing is tiered (offset -1, epoch -1). v10
//   adds timeout_ms, for reads from remote storage (none here). v11 (Kafka 4.2, KIP-1023) allows
//   -6 (earliest pending upload): without remote storage offset -1, epoch -1, as Kafka answers.
//   A special timestamp in a version before the one that introduced it is UNSUPPORTED_VERSION
//   for that partition, as in Kafka.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

inline constexpr int64_t kListOffsetsLatest = -1;
inline constexpr int64_t kListOffsetsEarliest = -2;
inline constexpr int64_t kListOffsetsMaxTimestamp = -3;
inline constexpr int64_t kListOffsetsEarliestLocal = -4;
inline constexpr int64_t kListOffsetsLatestTiered = -5;
inline constexpr int64_t kListOffsetsEarliestPendingUpload = -6;

struct ListOffsetsPartition {
    int32_t partition_index = 0;
    int32_t current_leader_epoch = -1;
    int64_t timestamp = 0;
    int32_t max_num_offsets = 1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("current_leader_epoch", m.current_leader_epoch, since(4));
        v.field("timestamp", m.timestamp, since(0));
        v.field("max_num_offsets", m.max_num_offsets, only(0));
    }
};

struct ListOffsetsTopic {
    std::string name;
    std::vector<ListOffsetsPartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct ListOffsetsRequest {
    static constexpr ApiKey api_key = ApiKey::list_offsets;
    int32_t replica_id = -1;
    int8_t isolation_level = 0;
    std::vector<ListOffsetsTopic> topics;
    int32_t timeout_ms = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("replica_id", m.replica_id, since(0));
        v.field("isolation_level", m.isolation_level, since(2));
        v.field("topics", m.topics, since(0));
        v.field("timeout_ms", m.timeout_ms, since(10));
    }
};

struct ListOffsetsPartitionResponse {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;
    std::vector<int64_t> old_style_offsets;
    int64_t timestamp = -1;
    int64_t offset = -1;
    int32_t leader_epoch = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("old_style_offsets", m.old_style_offsets, only(0));
        v.field("timestamp", m.timestamp, since(1));
        v.field("offset", m.offset, since(1));
        v.field("leader_epoch", m.leader_epoch, since(4));
    }
};

struct ListOffsetsTopicResponse {
    std::string name;
    std::vector<ListOffsetsPartitionResponse> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct ListOffsetsResponse {
    static constexpr ApiKey api_key = ApiKey::list_offsets;
    int32_t throttle_time_ms = 0;
    std::vector<ListOffsetsTopicResponse> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(2));
        v.field("topics", m.topics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ListOffsetsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ListOffsetsResponse)
