// ConsumerGroupDescribe (key 69, KIP-848), versions 0-1; flexible from 0.
//   v1 (Kafka 4.0, KIP-1099) adds each member's member_type; the request is the same in both.
// DescribeGroups for groups of the new consumer protocol: the coordinator computes assignments
// itself, so instead of opaque member metadata and assignment bytes a member is described by
// its subscription and by two assignments, the one it has now and the target the coordinator is
// moving it to, with topics named both by id and by name.
// Kafka answers an unknown group, and a group of the classic protocol, with GROUP_ID_NOT_FOUND
// and a message.
#pragma once

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

struct ConsumerGroupDescribeRequest {
    static constexpr ApiKey api_key = ApiKey::consumer_group_describe;
    std::vector<std::string> group_ids;
    bool include_authorized_operations = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_ids", m.group_ids, since(0));
        v.field("include_authorized_operations", m.include_authorized_operations, since(0));
    }
};

// Unlike the heartbeat's ConsumerGroupHeartbeatTopicPartitions, carries the topic name too: an
// admin tool shows names and should not need a Metadata round trip to resolve ids.
struct DescribedConsumerTopicPartitions {
    Uuid topic_id;
    std::string topic_name;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(0));
        v.field("topic_name", m.topic_name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
    friend bool operator==(const DescribedConsumerTopicPartitions&,
                           const DescribedConsumerTopicPartitions&) = default;
};

struct DescribedConsumerAssignment {
    std::vector<DescribedConsumerTopicPartitions> topic_partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_partitions", m.topic_partitions, since(0));
    }
    friend bool operator==(const DescribedConsumerAssignment&,
                           const DescribedConsumerAssignment&) = default;
};

struct DescribedConsumerGroupMember {
    // member_type values (KIP-1099): a consumer group may hold members that still speak the
    // classic protocol (JoinGroup/SyncGroup) during an online upgrade.
    static constexpr int8_t kMemberTypeUnknown = -1;
    static constexpr int8_t kMemberTypeClassic = 0;
    static constexpr int8_t kMemberTypeConsumer = 1;

    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    DescribedConsumerAssignment assignment;
    DescribedConsumerAssignment target_assignment;
    int8_t member_type = kMemberTypeUnknown;  // v1+; a v0 answer leaves it unknown

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("member_id", m.member_id, since(0));
        v.field("instance_id", m.instance_id, since(0), nullable(since(0)));
        v.field("rack_id", m.rack_id, since(0), nullable(since(0)));
        v.field("member_epoch", m.member_epoch, since(0));
        v.field("client_id", m.client_id, since(0));
        v.field("client_host", m.client_host, since(0));
        v.field("subscribed_topic_names", m.subscribed_topic_names, since(0));
        v.field("subscribed_topic_regex", m.subscribed_topic_regex, since(0), nullable(since(0)));
        v.field("assignment", m.assignment, since(0));
        v.field("target_assignment", m.target_assignment, since(0));
        v.field("member_type", m.member_type, since(1));
    }
};

struct DescribedConsumerGroup {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;
    std::vector<DescribedConsumerGroupMember> members;
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

struct ConsumerGroupDescribeResponse {
    static constexpr ApiKey api_key = ApiKey::consumer_group_describe;
    int32_t throttle_time_ms = 0;
    std::vector<DescribedConsumerGroup> groups;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("groups", m.groups, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ConsumerGroupDescribeRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ConsumerGroupDescribeResponse)
