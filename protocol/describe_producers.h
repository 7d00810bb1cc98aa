// DescribeProducers (key 61, KIP-664), version 0 served; flexible from 0.
//   The producer state of partitions (`kafka-transactions.sh describe-producers`,
//   AdminClient.describeProducers): per producer id its epoch (an int32 on the wire), last
//   sequence, last timestamp, the coordinator epoch of its last marker and the first offset of
//   its open transaction (-1: none).
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

struct DescribeProducersRequestTopic {
    std::string name;
    std::vector<int32_t> partition_indexes;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partition_indexes", m.partition_indexes, since(0));
    }
};

struct DescribeProducersRequest {
    static constexpr ApiKey api_key = ApiKey::describe_producers;
    std::vector<DescribeProducersRequestTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, since(0));
    }
};

struct DescribedProducer {
    int64_t producer_id = -1;
    int32_t producer_epoch = -1;
    int32_t last_sequence = -1;
    int64_t last_timestamp = -1;
    int32_t coordinator_epoch = -1;
    int64_t current_txn_start_offset = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("producer_id", m.producer_id, since(0));
        v.field("producer_epoch", m.producer_epoch, since(0));
        v.field("last_sequence", m.last_sequence, since(0));
        v.field("last_timestamp", m.last_timestamp, since(0));
        v.field("coordinator_epoch", m.coordinator_epoch, since(0));
        v.field("current_txn_start_offset", m.current_txn_start_offset, since(0));
    }
};

struct DescribeProducersResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<DescribedProducer> active_producers;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("active_producers", m.active_producers, since(0));
    }
};

struct DescribeProducersResponseTopic {
    std::string name;
    std::vector<DescribeProducersResponsePartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct DescribeProducersResponse {
    static constexpr ApiKey api_key = ApiKey::describe_producers;
    int32_t throttle_time_ms = 0;
    std::vector<DescribeProducersResponseTopic> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("topics", m.topics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeProducersRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeProducersResponse)
