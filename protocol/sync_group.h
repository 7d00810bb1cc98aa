// SyncGroup (key 14), versions 0-5 served; flexible from 4.
//   v1 adds throttle_time_ms; v3 group_instance_id; v5 protocol_type and protocol_name (checked
//   against the group's when present).
// The leader sends every member's assignment; the others send none and wait for theirs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct SyncGroupRequestAssignment {
    std::string member_id;
    std::vector<std::byte> assignment;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("member_id", m.member_id, since(0));
        v.field("assignment", m.assignment, since(0));
    }
};

struct SyncGroupRequest {
    static constexpr ApiKey api_key = ApiKey::sync_group;
    std::string group_id;
    int32_t generation_id = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    std::vector<SyncGroupRequestAssignment> assignments;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("generation_id", m.generation_id, since(0));
        v.field("member_id", m.member_id, since(0));
        v.field("group_instance_id", m.group_instance_id, since(3), nullable(since(3)));
        v.field("protocol_type", m.protocol_type, since(5), nullable(since(5)));
        v.field("protocol_name", m.protocol_name, since(5), nullable(since(5)));
        v.field("assignments", m.assignments, since(0));
    }
};

struct SyncGroupResponse {
    static constexpr ApiKey api_key = ApiKey::sync_group;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    std::vector<std::byte> assignment;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("error_code", m.error_code, since(0));
        v.field("protocol_type", m.protocol_type, since(5), nullable(since(5)));
        v.field("protocol_name", m.protocol_name, since(5), nullable(since(5)));
        v.field("assignment", m.assignment, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::SyncGroupRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::SyncGroupResponse)
