// ShareGroupHeartbeat (key 76, KIP-932), version 1 (Kafka 4.1+; v0 was the early-access draft
// Kafka 4.1 dropped); flexible from 0.
// The one membership request of a share group: a member joins with member_epoch 0 and a member
// id it generated itself (KIP-1082), keeps heartbeating with the epoch it was given and leaves
// with -1. The coordinator assigns partitions (share groups have no revocation: a member may
// drop a partition at once, the share-partition's locks keep records safe) and answers with the
// member's epoch and, when it changed, the member's whole assignment, by topic id.
// subscribed_topic_names is null when unchanged since the last heartbeat.
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

struct ShareGroupHeartbeatRequest {
    static constexpr ApiKey api_key = ApiKey::share_group_heartbeat;
    std::string group_id;
    std::string member_id;
    int32_t member_epoch = 0;
    std::optional<std::string> rack_id;
    std::optional<std::vector<std::string>> subscribed_topic_names;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0));
        v.field("member_id", m.member_id, since(0));
        v.field("member_epoch", m.member_epoch, since(0));
        v.field("rack_id", m.rack_id, since(0), nullable(since(0)));
        v.field("subscribed_topic_names", m.subscribed_topic_names, since(0), nullable(since(0)));
    }
};

struct ShareGroupHeartbeatTopicPartitions {
    Uuid topic_id;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
    friend bool operator==(const ShareGroupHeartbeatTopicPartitions&,
                           const ShareGroupHeartbeatTopicPartitions&) = default;
};

struct ShareGroupHeartbeatAssignment {
    std::vector<ShareGroupHeartbeatTopicPartitions> topic_partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_partitions", m.topic_partitions, since(0));
    }
    friend bool operator==(const ShareGroupHeartbeatAssignment&,
                           const ShareGroupHeartbeatAssignment&) = default;
};

struct ShareGroupHeartbeatResponse {
    static constexpr ApiKey api_key = ApiKey::share_group_heartbeat;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::optional<std::string> member_id;
    int32_t member_epoch = 0;
    int32_t heartbeat_interval_ms = 0;
    // Null: unchanged; present (even empty): the member's whole assignment.
    std::optional<ShareGroupHeartbeatAssignment> assignment;

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

SKIFF_DECLARE_CODEC(skiff::protocol::ShareGroupHeartbeatRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ShareGroupHeartbeatResponse)
