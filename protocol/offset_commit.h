// OffsetCommit (key 8), versions 0-10 served; flexible from 8.
//   v1 adds generation_id, member_id and a per-partition commit_timestamp (v1 only); v2-4 carry
//   retention_time_ms (ignored: offsets.retention.minutes applies, as in Kafka 2.1+); v3 adds
//   throttle_time_ms; v6 committed_leader_epoch; v7 group_instance_id. v9 has v8's fields (Kafka
//   names generation_id GenerationIdOrMemberEpoch: a member epoch for KIP-848 groups, which skiff
//   does not have); a generation >= 0 for a group that does not exist is GROUP_ID_NOT_FOUND
//   instead of ILLEGAL_GENERATION. v10 (Kafka 4.1) names topics by id instead of by name, in
//   the request and the response; an id no topic holds is UNKNOWN_TOPIC_ID.
// A generation of -1 with an empty member id is a "simple" commit from a consumer that assigns
// its partitions itself; it is accepted only while the group has no members.
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

struct OffsetCommitRequestPartition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;
    int64_t commit_timestamp = -1;
    std::optional<std::string> committed_metadata;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("committed_offset", m.committed_offset, since(0));
        v.field("committed_leader_epoch", m.committed_leader_epoch, since(6));
        v.field("commit_timestamp", m.commit_timestamp, only(1));
        v.field("committed_metadata", m.committed_metadata, since(0), nullable(since(0)));
    }
};

struct OffsetCommitRequestTopic {
    std::string name;  // v0-9
    Uuid topic_id;     // v10+
    std::vector<OffsetCommitRequestPartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, between(0, 9));
        v.field("topic_id", m.topic_id, since(10));
        v.field("partitions", m.partitions, since(0));
    }
};

struct OffsetCommitRequest {
    static constexpr ApiKey api_key = ApiKey::offset_commit;
    std::string group_id;
    int32_t generation_id = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    int64_t retention_time_ms = -1;
    std::vector<OffsetCommitRequestTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("generation_id", m.generation_id, since(1));
        v.field("member_id", m.member_id, since(1));
        v.field("group_instance_id", m.group_instance_id, since(7), nullable(since(7)));
        v.field("retention_time_ms", m.retention_time_ms, between(2, 4));
        v.field("topics", m.topics, since(0));
    }
};

struct OffsetCommitResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
    }
};

struct OffsetCommitResponseTopic {
    std::string name;  // v0-9
    Uuid topic_id;     // v10+
    std::vector<OffsetCommitResponsePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, between(0, 9));
        v.field("topic_id", m.topic_id, since(10));
        v.field("partitions", m.partitions, since(0));
    }
};

struct OffsetCommitResponse {
    static constexpr ApiKey api_key = ApiKey::offset_commit;
    int32_t throttle_time_ms = 0;
    std::vector<OffsetCommitResponseTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(3));
        v.field("topics", m.topics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::OffsetCommitRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::OffsetCommitResponse)
