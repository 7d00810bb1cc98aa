// ListGroups (key 16), versions 0-5 served; flexible from 3.
//   v1 adds throttle_time_ms; v4 states_filter in the request and group_state in the response;
//   v5 (KIP-848) types_filter and group_type ("classic": the only kind of group skiff has).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct ListGroupsRequest {
    static constexpr ApiKey api_key = ApiKey::list_groups;
    std::vector<std::string> states_filter;
    std::vector<std::string> types_filter;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("states_filter", m.states_filter, since(4));
        v.field("types_filter", m.types_filter, since(5));
    }
};

struct ListedGroup {
    std::string group_id;
    std::string protocol_type;
    std::string group_state;
    std::string group_type;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("protocol_type", m.protocol_type, since(0));
        v.field("group_state", m.group_state, since(4));
        v.field("group_type", m.group_type, since(5));
    }
};

struct ListGroupsResponse {
    static constexpr ApiKey api_key = ApiKey::list_groups;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::vector<ListedGroup> groups;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("error_code", m.error_code, since(0));
        v.field("groups", m.groups, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ListGroupsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ListGroupsResponse)
