// TxnOffsetCommit (key 28), versions 0-5 served; flexible from 3.
//   A transactional producer's offset commit for a consumer group (sendOffsetsToTransaction),
//   sent to the group coordinator after AddOffsetsToTxn. v2 adds committed_leader_epoch; v3 adds
//   generation_id, member_id and group_instance_id (the consumer's group identity, checked like
//   an OffsetCommit's) and is flexible; v4 changes only the errors a client may see
//   (TRANSACTION_ABORTABLE). v5 means transactions V2 (KIP-890): with `transaction.version`
//   finalized at 2 the offsets partition is added implicitly, without AddOffsetsToTxn.
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

struct TxnOffsetCommitRequestPartition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;
    std::optional<std::string> committed_metadata;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("committed_offset", m.committed_offset, since(0));
        v.field("committed_leader_epoch", m.committed_leader_epoch, since(2));
        v.field("committed_metadata", m.committed_metadata, since(0), nullable(since(0)));
    }
};

struct TxnOffsetCommitRequestTopic {
    std::string name;
    std::vector<TxnOffsetCommitRequestPartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct TxnOffsetCommitRequest {
    static constexpr ApiKey api_key = ApiKey::txn_offset_commit;
    std::string transactional_id;
    std::string group_id;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t generation_id = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::vector<TxnOffsetCommitRequestTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("transactional_id", m.transactional_id, since(0));
        v.field("group_id", m.group_id, since(0));
        v.field("producer_id", m.producer_id, since(0));
        v.field("producer_epoch", m.producer_epoch, since(0));
        v.field("generation_id", m.generation_id, since(3));
        v.field("member_id", m.member_id, since(3));
        v.field("group_instance_id", m.group_instance_id, since(3), nullable(since(3)));
        v.field("topics", m.topics, since(0));
    }
};

struct TxnOffsetCommitResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
    }
};

struct TxnOffsetCommitResponseTopic {
    std::string name;
    std::vector<TxnOffsetCommitResponsePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct TxnOffsetCommitResponse {
    static constexpr ApiKey api_key = ApiKey::txn_offset_commit;
    int32_t throttle_time_ms = 0;
    std::vector<TxnOffsetCommitResponseTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("topics", m.topics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::TxnOffsetCommitRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::TxnOffsetCommitResponse)
