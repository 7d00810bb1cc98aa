// DescribeLogDirs (key 35), versions 0-4 served; flexible from 2.
// The log directory, each partition's size on disk (what `kafka-log-dirs.sh` and UIs show), v3
// a top-level error code, v4 the directory's total and usable bytes. A null topic list means
// every partition. OffsetLag is 0 and IsFutureKey false: one log dir, nothing being moved.
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

struct DescribableLogDirTopic {
    std::string topic;
    std::vector<int32_t> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic", m.topic, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct DescribeLogDirsRequest {
    static constexpr ApiKey api_key = ApiKey::describe_log_dirs;
    std::optional<std::vector<DescribableLogDirTopic>> topics;  // null: all

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, since(0), nullable(since(0)));
    }
};

struct DescribeLogDirsPartition {
    int32_t partition_index = 0;
    int64_t partition_size = 0;
    int64_t offset_lag = 0;
    bool is_future_key = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("partition_size", m.partition_size, since(0));
        v.field("offset_lag", m.offset_lag, since(0));
        v.field("is_future_key", m.is_future_key, since(0));
    }
};

struct DescribeLogDirsTopic {
    std::string name;
    std::vector<DescribeLogDirsPartition> partitions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("partitions", m.partitions, since(0));
    }
};

struct DescribeLogDirsResult {
    ErrorCode error_code = ErrorCode::none;
    std::string log_dir;
    std::vector<DescribeLogDirsTopic> topics;
    int64_t total_bytes = -1;
    int64_t usable_bytes = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("log_dir", m.log_dir, since(0));
        v.field("topics", m.topics, since(0));
        v.field("total_bytes", m.total_bytes, since(4));
        v.field("usable_bytes", m.usable_bytes, since(4));
    }
};

struct DescribeLogDirsResponse {
    static constexpr ApiKey api_key = ApiKey::describe_log_dirs;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::vector<DescribeLogDirsResult> results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(3));
        v.field("results", m.results, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeLogDirsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeLogDirsResponse)
