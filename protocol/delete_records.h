// DeleteRecords (key 21), versions 0-2 served; flexible from 2.
// Moves each partition's log start offset up to the offset given (-1: the high watermark), as
// `kafka-delete-records.sh` and AdminClient.deleteRecords do; the answer is the new log start
// offset (the "low watermark"). Versions differ only in encoding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct DeleteRecordsPartition {
    int32_t partition_index = 0;
    int64_t offset = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("offset", m.offset, since(0));
    }
};

struct DeleteRecordsTopic {
    std::string name;
    std::vector<DeleteRecordsPartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct DeleteRecordsRequest {
    static constexpr ApiKey api_key = ApiKey::delete_records;
    std::vector<DeleteRecordsTopic> topics;
    int32_t timeout_ms = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, since(0));
        v.field("timeout_ms", m.timeout_ms, since(0));
    }
};

struct DeleteRecordsPartitionResult {
    int32_t partition_index = 0;
    int64_t low_watermark = -1;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("low_watermark", m.low_watermark, since(0));
        v.field("error_code", m.error_code, since(0));
    }
};

struct DeleteRecordsTopicResult {
    std::string name;
    std::vector<DeleteRecordsPartitionResult> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct DeleteRecordsResponse {
    static constexpr ApiKey api_key = ApiKey::delete_records;
    int32_t throttle_time_ms = 0;
    std::vector<DeleteRecordsTopicResult> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("topics", m.topics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DeleteRecordsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DeleteRecordsResponse)
