// ShareGroupDescribe (key 77, KIP-932), version 1 (Kafka 4.1+); flexible from 0.
// A share group's epochs, state, assignor and members, each with its subscription and its
// assignment (topics by id and by name). Share groups have no target/current split on the wire:
// a member holds its target as soon as it heartbeats. Kafka answers an unknown group, and a
// group of another type, with GROUP_ID_NOT_FOUND and a message.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/consumer_group_describe.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct ShareGroupDescribeRequest {
    static constexpr ApiKey api_key = ApiKey::share_group_describe;
    std::vector<std::string> group_ids;
    bool include_authorized_operations = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_ids", m.group_ids, since(0));
        v.field("include_authorized_operations", m.include_authorized_operations, since(0));
    }
};

// The same shape as ConsumerGroupDescribe's (topic id, name, partitions).
using DescribedShareAssignment = DescribedConsumerAssignment;

struct DescribedShareGroupMember {
    std::string member_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    DescribedShareAssignment assignment;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("member_id", m.member_id, since(0));
        v.field("rack_id", m.rack_id, since(0), nullable(since(0)));
        v.field("member_epoch", m.member_epoch, since(0));
        v.field("client_id", m.client_id, since(0));
        v.field("client_host", m.client_host, since(0));
        v.field("subscribed_topic_names", m.subscribed_topic_names, since(0));
        v.field("assignment", m.assignment, since(0));
    }
};

struct DescribedShareGroup {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;
    std::vector<DescribedShareGroupMember> members;
    // INT32_MIN: "not provided", as when include_authorized_operations was false.
    int32_t authorized_operations = std::numeric_limits<int32_t>::min();

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("group_id", m.group_id, since(0));
        v.field("group_state", m.group_state, since(0));
        v.field("group_epoch", m.group_epoch, since(0));
        v.field("assignment_epoch", m.assignment_epoch, since(0));
        v.field("assignor_name", m.assignor_name, since(0));
        v.field("members", m.members, since(0));
        v.field("authorized_operations", m.authorized_operations, since(0));
    }
};

struct ShareGroupDescribeResponse {
    static constexpr ApiKey api_key = ApiKey::share_group_describe;
    int32_t throttle_time_ms = 0;
    std::vector<DescribedShareGroup> groups;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("groups", m.groups, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ShareGroupDescribeRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ShareGroupDescribeResponse)
