// OffsetFetch (key 9), versions 0-10 served; flexible from 6 (librdkafka sends 7).
//   v2 adds a top-level error_code and a null topic list meaning "every partition the group
//   committed"; v3 throttle_time_ms; v5 committed_leader_epoch; v7 require_stable: a partition
//   with a transactional commit awaiting its marker answers UNSTABLE_OFFSET_COMMIT. v8 batches:
//   the request's group_id/topics and the response's topics/error_code move into one `groups`
//   entry per group, each with its own error_code. v9 adds member_id/member_epoch per group,
//   checked by Kafka only for KIP-848 consumer groups; skiff's groups are all classic groups, so
//   they are read and ignored. v10 (Kafka 4.1) names topics by id instead of by name: an id no
//   topic holds is UNKNOWN_TOPIC_ID per partition, and a request for every offset leaves out
//   topics that have no id any more.
// A partition without a committed offset answers offset -1, metadata "" and no error.
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

struct OffsetFetchRequestTopic {
    std::string name;  // v0-9
    Uuid topic_id;     // v10+
    std::vector<int32_t> partition_indexes;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, between(0, 9));
        v.field("topic_id", m.topic_id, since(10));
        v.field("partition_indexes", m.partition_indexes, since(0));
    }
};

// One group of a v8+ request; `topics` null means every partition the group committed.
struct OffsetFetchRequestGroup {
    std::string group_id;
    std::optional<std::string> member_id;
    int32_t member_epoch = -1;
    std::optional<std::vector<OffsetFetchRequestTopic>> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(8));
        v.field("member_id", m.member_id, since(9), nullable(since(9)));
        v.field("member_epoch", m.member_epoch, since(9));
        v.field("topics", m.topics, since(8), nullable(since(8)));
    }
};

struct OffsetFetchRequest {
    static constexpr ApiKey api_key = ApiKey::offset_fetch;
    std::string group_id;                                        // v0-7
    std::optional<std::vector<OffsetFetchRequestTopic>> topics;  // v0-7
    std::vector<OffsetFetchRequestGroup> groups;                 // v8+
    bool require_stable = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, between(0, 7));
        v.field("topics", m.topics, between(0, 7), nullable(between(2, 7)));
        v.field("groups", m.groups, since(8));
        v.field("require_stable", m.require_stable, since(7));
    }
};

struct OffsetFetchResponsePartition {
    int32_t partition_index = 0;
    int64_t committed_offset = -1;
    int32_t committed_leader_epoch = -1;
    std::optional<std::string> metadata;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("committed_offset", m.committed_offset, since(0));
        v.field("committed_leader_epoch", m.committed_leader_epoch, since(5));
        v.field("metadata", m.metadata, since(0), nullable(since(0)));
        v.field("error_code", m.error_code, since(0));
    }
};

struct OffsetFetchResponseTopic {
    std::string name;  // v0-9
    Uuid topic_id;     // v10+
    std::vector<OffsetFetchResponsePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, between(0, 9));
        v.field("topic_id", m.topic_id, since(10));
        v.field("partitions", m.partitions, since(0));
    }
};

// One group of a v8+ response.
struct OffsetFetchResponseGroup {
    std::string group_id;
    std::vector<OffsetFetchResponseTopic> topics;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(8));
        v.field("topics", m.topics, since(8));
        v.field("error_code", m.error_code, since(8));
    }
};

struct OffsetFetchResponse {
    static constexpr ApiKey api_key = ApiKey::offset_fetch;
    int32_t throttle_time_ms = 0;
    std::vector<OffsetFetchResponseTopic> topics;  // v0-7
    ErrorCode error_code = ErrorCode::none;        // v2-7
    std::vector<OffsetFetchResponseGroup> groups;  // v8+

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(3));
        v.field("topics", m.topics, between(0, 7));
        v.field("error_code", m.error_code, between(2, 7));
        v.field("groups", m.groups, since(8));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::OffsetFetchRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::OffsetFetchResponse)
