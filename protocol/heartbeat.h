// Heartbeat (key 12), versions 0-4 served; flexible from 4.
//   v1 adds throttle_time_ms; v3 group_instance_id.
// A member heartbeats to stay in the group; REBALANCE_IN_PROGRESS tells it to join again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct HeartbeatRequest {
    static constexpr ApiKey api_key = ApiKey::heartbeat;
    std::string group_id;
    int32_t generation_id = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("generation_id", m.generation_id, since(0));
        v.field("member_id", m.member_id, since(0));
        v.field("group_instance_id", m.group_instance_id, since(3), nullable(since(3)));
    }
};

struct HeartbeatResponse {
    static constexpr ApiKey api_key = ApiKey::heartbeat;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("error_code", m.error_code, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::HeartbeatRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::HeartbeatResponse)
