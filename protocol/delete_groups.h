// DeleteGroups (key 42), versions 0-2 served; flexible from 2.
// Only an empty group can be deleted (NON_EMPTY_GROUP otherwise); its committed offsets go too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct DeleteGroupsRequest {
    static constexpr ApiKey api_key = ApiKey::delete_groups;
    std::vector<std::string> groups_names;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("groups_names", m.groups_names, since(0));
    }
};

struct DeletableGroupResult {
    std::string group_id;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("error_code", m.error_code, since(0));
    }
};

struct DeleteGroupsResponse {
    static constexpr ApiKey api_key = ApiKey::delete_groups;
    int32_t throttle_time_ms = 0;
    std::vector<DeletableGroupResult> results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("results", m.results, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DeleteGroupsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DeleteGroupsResponse)
