// ShareAcknowledge (key 79, KIP-932), versions 1-2; flexible from 0. Acknowledges records a
// member acquired through ShareFetch, without fetching more: within an open share session (it
// cannot open one: epoch 0 is INVALID_SHARE_SESSION_EPOCH), or with epoch -1 as the member's
// last word, which closes the session and releases what it still holds.
//   v2 (Kafka 4.2, KIP-1222): is_renew_ack (the batches carry RENEW, 4: the locks are extended)
//   and acquisition_lock_timeout_ms in the response.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"
#include "protocol/share_fetch.h"

namespace skiff::protocol {

struct ShareAcknowledgePartition {
    int32_t partition_index = 0;
    std::vector<ShareAcknowledgementBatch> acknowledgement_batches;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("acknowledgement_batches", m.acknowledgement_batches, since(0));
    }
    friend bool operator==(const ShareAcknowledgePartition&,
                           const ShareAcknowledgePartition&) = default;
};

struct ShareAcknowledgeTopic {
    Uuid topic_id;
    std::vector<ShareAcknowledgePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
    friend bool operator==(const ShareAcknowledgeTopic&, const ShareAcknowledgeTopic&) = default;
};

struct ShareAcknowledgeRequest {
    static constexpr ApiKey api_key = ApiKey::share_acknowledge;
    std::optional<std::string> group_id;
    std::optional<std::string> member_id;
    int32_t share_session_epoch = 0;
    bool is_renew_ack = false;  // v2+
    std::vector<ShareAcknowledgeTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, since(0), nullable(since(0)));
        v.field("member_id", m.member_id, since(0), nullable(since(0)));
        v.field("share_session_epoch", m.share_session_epoch, since(0));
        v.field("is_renew_ack", m.is_renew_ack, since(2));
        v.field("topics", m.topics, since(0));
    }
};

struct ShareAcknowledgePartitionData {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    ShareLeaderIdAndEpoch current_leader;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("current_leader", m.current_leader, since(0));
    }
};

struct ShareAcknowledgeTopicResponse {
    Uuid topic_id;
    std::vector<ShareAcknowledgePartitionData> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct ShareAcknowledgeResponse {
    static constexpr ApiKey api_key = ApiKey::share_acknowledge;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    int32_t acquisition_lock_timeout_ms = 0;  // v2+
    std::vector<ShareAcknowledgeTopicResponse> responses;
    std::vector<ShareNodeEndpoint> node_endpoints;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("acquisition_lock_timeout_ms", m.acquisition_lock_timeout_ms, since(2));
        v.field("responses", m.responses, since(0));
        v.field("node_endpoints", m.node_endpoints, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ShareAcknowledgeRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ShareAcknowledgeResponse)
