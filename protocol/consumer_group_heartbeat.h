// ConsumerGroupHeartbeat (key 68, KIP-848), versions 0-1; flexible from 0.
//   v1 (Kafka 4.0) adds subscribed_topic_regex: a member may subscribe by a regular expression
//   that the coordinator resolves against the topics, instead of listing names.
// The one request of the new consumer group protocol: a member joins with member_epoch 0, keeps
// heartbeating with the epoch it was given, and leaves with -1 (-2: a static member that will
// come back). The coordinator computes the assignment itself and answers with the member's epoch
// and, when it changed, the member's whole assignment.
// Request fields describing the member (subscription, owned partitions, ...) are null when they
// did not change since the last heartbeat, so null and empty mean different things ("unchanged"
// vs "subscribed to nothing") and the structs keep them apart with std::optional.
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

// Partitions of one topic, named by topic id only (the describe response's counterpart,
// DescribedConsumerTopicPartitions, also carries the name).
struct ConsumerGroupHeartbeatTopicPartitions {
    Uuid topic_id;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
    friend bool operator==(const ConsumerGroupHeartbeatTopicPartitions&,
                           const ConsumerGroupHeartbeatTopicPartitions&) = default;
};

struct ConsumerGroupHeartbeatRequest {
    static constexpr ApiKey api_key = ApiKey::consumer_group_heartbeat;
    std::string group_id;
    std::string member_id;
    int32_t member_epoch = 0;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t rebalance_timeout_ms = -1;  // -1: unchanged since the last heartbeat
    std::optional<std::vector<std::string>> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;  // v1+; always null from a v0 client
    std::optional<std::string> server_assignor;
    // The partitions the member owns now (its acknowledgement of revocations), null: unchanged.
    std::optional<std::vector<ConsumerGroupHeartbeatTopicPartitions>> topic_partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("member_id", m.member_id, since(0));
        v.field("member_epoch", m.member_epoch, since(0));
        v.field("instance_id", m.instance_id, since(0), nullable(since(0)));
        v.field("rack_id", m.rack_id, since(0), nullable(since(0)));
        v.field("rebalance_timeout_ms", m.rebalance_timeout_ms, since(0));
        v.field("subscribed_topic_names", m.subscribed_topic_names, since(0), nullable(since(0)));
        v.field("subscribed_topic_regex", m.subscribed_topic_regex, since(1), nullable(since(1)));
        v.field("server_assignor", m.server_assignor, since(0), nullable(since(0)));
        v.field("topic_partitions", m.topic_partitions, since(0), nullable(since(0)));
    }
};

struct ConsumerGroupHeartbeatAssignment {
    std::vector<ConsumerGroupHeartbeatTopicPartitions> topic_partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_partitions", m.topic_partitions, since(0));
    }
    friend bool operator==(const ConsumerGroupHeartbeatAssignment&,
                           const ConsumerGroupHeartbeatAssignment&) = default;
};

struct ConsumerGroupHeartbeatResponse {
    static constexpr ApiKey api_key = ApiKey::consumer_group_heartbeat;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::optional<std::string> member_id;
    int32_t member_epoch = 0;
    int32_t heartbeat_interval_ms = 0;
    // Null: the assignment did not change; present (even empty): the member's whole assignment,
    // replacing the previous one. A nullable struct on the wire: int8 -1, or 1 then the struct.
    std::optional<ConsumerGroupHeartbeatAssignment> assignment;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("member_id", m.member_id, since(0), nullable(since(0)));
        v.field("member_epoch", m.member_epoch, since(0));
        v.field("heartbeat_interval_ms", m.heartbeat_interval_ms, since(0));
        v.field("assignment", m.assignment, since(0), nullable(since(0)));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ConsumerGroupHeartbeatRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ConsumerGroupHeartbeatResponse)
