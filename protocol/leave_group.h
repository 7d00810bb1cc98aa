// LeaveGroup (key 13), versions 0-5 served; flexible from 4.
//   v1 adds throttle_time_ms; v3 replaces the single member_id with a batch of members
//   (member_id, group_instance_id) answered one by one; v5 (KIP-800) a reason per member, logged.
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

struct LeaveGroupMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> reason;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("member_id", m.member_id, since(3));
        v.field("group_instance_id", m.group_instance_id, since(3), nullable(since(3)));
        v.field("reason", m.reason, since(5), nullable(since(5)));
    }
};

struct LeaveGroupRequest {
    static constexpr ApiKey api_key = ApiKey::leave_group;
    std::string group_id;
    std::string member_id;
    std::vector<LeaveGroupMember> members;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("member_id", m.member_id, between(0, 2));
        v.field("members", m.members, since(3));
    }
};

struct LeaveGroupMemberResponse {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("member_id", m.member_id, since(3));
        v.field("group_instance_id", m.group_instance_id, since(3), nullable(since(3)));
        v.field("error_code", m.error_code, since(3));
    }
};

struct LeaveGroupResponse {
    static constexpr ApiKey api_key = ApiKey::leave_group;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::vector<LeaveGroupMemberResponse> members;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("error_code", m.error_code, since(0));
        v.field("members", m.members, since(3));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::LeaveGroupRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::LeaveGroupResponse)
