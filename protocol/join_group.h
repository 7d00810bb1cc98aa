// JoinGroup (key 11), versions 0-9 served; flexible from 6.
//   v1 adds rebalance_timeout_ms; v2 throttle_time_ms; v4 a member joining with an empty id gets
//   MEMBER_ID_REQUIRED with its new id and must join again with it; v5 group_instance_id (static
//   membership); v7 protocol_type in the response and a nullable protocol_name; v8 the reason
//   for joining (logged); v9 skip_assignment (KIP-814): a static leader that restarts into a
//   Stable group is told it leads, gets the members, and is told not to assign (before v9 it is
//   answered as a follower, with the old leader id).
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

struct JoinGroupRequestProtocol {
    std::string name;
    std::vector<std::byte> metadata;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("metadata", m.metadata, since(0));
    }
};

struct JoinGroupRequest {
    static constexpr ApiKey api_key = ApiKey::join_group;
    std::string group_id;
    int32_t session_timeout_ms = 0;
    int32_t rebalance_timeout_ms = -1;  // absent before v1: the session timeout applies
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string protocol_type;
    std::vector<JoinGroupRequestProtocol> protocols;
    std::optional<std::string> reason;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("session_timeout_ms", m.session_timeout_ms, since(0));
        v.field("rebalance_timeout_ms", m.rebalance_timeout_ms, since(1));
        v.field("member_id", m.member_id, since(0));
        v.field("group_instance_id", m.group_instance_id, since(5), nullable(since(5)));
        v.field("protocol_type", m.protocol_type, since(0));
        v.field("protocols", m.protocols, since(0));
        v.field("reason", m.reason, since(8), nullable(since(8)));
    }
};

struct JoinGroupResponseMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::vector<std::byte> metadata;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("member_id", m.member_id, since(0));
        v.field("group_instance_id", m.group_instance_id, since(5), nullable(since(5)));
        v.field("metadata", m.metadata, since(0));
    }
};

struct JoinGroupResponse {
    static constexpr ApiKey api_key = ApiKey::join_group;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    int32_t generation_id = -1;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    std::string leader;
    bool skip_assignment = false;
    std::string member_id;
    std::vector<JoinGroupResponseMember> members;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(2));
        v.field("error_code", m.error_code, since(0));
        v.field("generation_id", m.generation_id, since(0));
        v.field("protocol_type", m.protocol_type, since(7), nullable(since(7)));
        v.field("protocol_name", m.protocol_name, since(0), nullable(since(7)));
        v.field("leader", m.leader, since(0));
        v.field("skip_assignment", m.skip_assignment, since(9));
        v.field("member_id", m.member_id, since(0));
        v.field("members", m.members, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::JoinGroupRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::JoinGroupResponse)
