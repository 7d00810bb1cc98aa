// DescribeGroups (key 15), versions 0-6 served; flexible from 5.
//   v1 adds throttle_time_ms; v3 include_authorized_operations / authorized_operations (KIP-430;
//   INT32_MIN, "not provided", unless asked); v4 group_instance_id of each member; v6 (Kafka 4.0,
//   KIP-1043) a per-group error_message.
// An unknown group is described as Dead: with no error before v6, as Kafka does, and from v6
// with GROUP_ID_NOT_FOUND and a message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct DescribeGroupsRequest {
    static constexpr ApiKey api_key = ApiKey::describe_groups;
    std::vector<std::string> groups;
    bool include_authorized_operations = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("groups", m.groups, since(0));
        v.field("include_authorized_operations", m.include_authorized_operations, since(3));
    }
};

struct DescribedGroupMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    std::vector<std::byte> member_metadata;
    std::vector<std::byte> member_assignment;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("member_id", m.member_id, since(0));
        v.field("group_instance_id", m.group_instance_id, since(4), nullable(since(4)));
        v.field("client_id", m.client_id, since(0));
        v.field("client_host", m.client_host, since(0));
        v.field("member_metadata", m.member_metadata, since(0));
        v.field("member_assignment", m.member_assignment, since(0));
    }
};

struct DescribedGroup {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;
    std::string protocol_type;
    std::string protocol_data;
    std::vector<DescribedGroupMember> members;
    int32_t authorized_operations = std::numeric_limits<int32_t>::min();

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(6), nullable(since(6)));
        v.field("group_id", m.group_id, since(0));
        v.field("group_state", m.group_state, since(0));
        v.field("protocol_type", m.protocol_type, since(0));
        v.field("protocol_data", m.protocol_data, since(0));
        v.field("members", m.members, since(0));
        v.field("authorized_operations", m.authorized_operations, since(3));
    }
};

struct DescribeGroupsResponse {
    static constexpr ApiKey api_key = ApiKey::describe_groups;
    int32_t throttle_time_ms = 0;
    std::vector<DescribedGroup> groups;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("groups", m.groups, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeGroupsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeGroupsResponse)
