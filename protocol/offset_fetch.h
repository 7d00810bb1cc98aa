// OffsetFetch (key 9), versions 0-7 served; flexible from 6 (librdkafka sends 7).
//   v2 adds a top-level error_code and a null topic list meaning "every partition the group
//   committed"; v3 throttle_time_ms; v5 committed_leader_epoch; v7 require_stable (no
//   transactions here, so nothing is ever pending). v8 (several groups at once) is not served.
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
    std::string name;
    std::vector<int32_t> partition_indexes;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partition_indexes", m.partition_indexes, since(0));
    }
};

struct OffsetFetchRequest {
    static constexpr ApiKey api_key = ApiKey::offset_fetch;
    std::string group_id;
    std::optional<std::vector<OffsetFetchRequestTopic>> topics;
    bool require_stable = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("topics", m.topics, since(0), nullable(since(2)));
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
    std::string name;
    std::vector<OffsetFetchResponsePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct OffsetFetchResponse {
    static constexpr ApiKey api_key = ApiKey::offset_fetch;
    int32_t throttle_time_ms = 0;
    std::vector<OffsetFetchResponseTopic> topics;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(3));
        v.field("topics", m.topics, since(0));
        v.field("error_code", m.error_code, since(2));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::OffsetFetchRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::OffsetFetchResponse)
