// DeleteTopics (key 20), versions 0-3 served (v4 is the first flexible one, v6 adds topic ids).
//   v1 adds throttle_time_ms. The request lists topic names only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct DeleteTopicsRequest {
    static constexpr ApiKey api_key = ApiKey::delete_topics;
    std::vector<std::string> topic_names;
    int32_t timeout_ms = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_names", m.topic_names, since(0));
        v.field("timeout_ms", m.timeout_ms, since(0));
    }
};

struct DeletableTopicResult {
    std::string name;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("error_code", m.error_code, since(0));
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
