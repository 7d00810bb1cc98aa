// DeleteShareGroupOffsets (key 92, KIP-932), version 0; flexible from 0. Forgets a group's
// share-partition state of whole topics (the next read starts by share.auto.offset.reset); only
// while the group has no members (NON_EMPTY_GROUP otherwise, as Kafka).
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

struct DeleteShareGroupOffsetsRequestTopic {
    std::string topic_name;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_name", m.topic_name, since(0));
    }
    friend bool operator==(const DeleteShareGroupOffsetsRequestTopic&,
                           const DeleteShareGroupOffsetsRequestTopic&) = default;
};

struct DeleteShareGroupOffsetsRequest {
    static constexpr ApiKey api_key = ApiKey::delete_share_group_offsets;
    std::string group_id;
    std::vector<DeleteShareGroupOffsetsRequestTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("topics", m.topics, since(0));
    }
};

struct DeleteShareGroupOffsetsResponseTopic {
    std::string topic_name;
    Uuid topic_id;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_name", m.topic_name, since(0));
        v.field("topic_id", m.topic_id, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
    }
};

struct DeleteShareGroupOffsetsResponse {
    static constexpr ApiKey api_key = ApiKey::delete_share_group_offsets;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<DeleteShareGroupOffsetsResponseTopic> responses;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("responses", m.responses, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DeleteShareGroupOffsetsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DeleteShareGroupOffsetsResponse)
