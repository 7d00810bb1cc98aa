// DeleteTopics (key 20), versions 0-6 served; flexible from 4.
//   v1 adds throttle_time_ms; v5 the per-topic error_message; v6 names topics by name or by id
//   (`topics` replaces `topic_names`) and answers with both (the name nullable).
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

struct DeleteTopicState {
    std::optional<std::string> name;
    Uuid topic_id;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(6), nullable(since(6)));
        v.field("topic_id", m.topic_id, since(6));
    }
};

struct DeleteTopicsRequest {
    static constexpr ApiKey api_key = ApiKey::delete_topics;
    std::vector<DeleteTopicState> topics;  // v6+
    std::vector<std::string> topic_names;  // up to v5
    int32_t timeout_ms = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, since(6));
        v.field("topic_names", m.topic_names, between(0, 5));
        v.field("timeout_ms", m.timeout_ms, since(0));
    }
};

struct DeletableTopicResult {
    std::optional<std::string> name;
    Uuid topic_id;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0), nullable(since(6)));
        v.field("topic_id", m.topic_id, since(6));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(5), nullable(since(5)));
    }
};

struct DeleteTopicsResponse {
    static constexpr ApiKey api_key = ApiKey::delete_topics;
    int32_t throttle_time_ms = 0;
    std::vector<DeletableTopicResult> responses;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("responses", m.responses, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DeleteTopicsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DeleteTopicsResponse)
