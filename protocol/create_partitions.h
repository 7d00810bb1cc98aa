// CreatePartitions (key 37), versions 0-3 served (identical fields; v2 is the first flexible
//   one; v3 may answer THROTTLING_QUOTA_EXCEEDED, which skiff, without quotas, never does).
//   `count` is the new total partition count, not the number to add.
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

struct CreatePartitionsAssignment {
    std::vector<int32_t> broker_ids;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("broker_ids", m.broker_ids, since(0));
    }
};

struct CreatePartitionsTopic {
    std::string name;
    int32_t count = 0;
    std::optional<std::vector<CreatePartitionsAssignment>> assignments;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("count", m.count, since(0));
        v.field("assignments", m.assignments, since(0), nullable(since(0)));
    }
};

struct CreatePartitionsRequest {
    static constexpr ApiKey api_key = ApiKey::create_partitions;
    std::vector<CreatePartitionsTopic> topics;
    int32_t timeout_ms = 0;
    bool validate_only = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, since(0));
        v.field("timeout_ms", m.timeout_ms, since(0));
        v.field("validate_only", m.validate_only, since(0));
    }
};

struct CreatePartitionsTopicResult {
    std::string name;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
    }
};

struct CreatePartitionsResponse {
    static constexpr ApiKey api_key = ApiKey::create_partitions;
    int32_t throttle_time_ms = 0;
    std::vector<CreatePartitionsTopicResult> results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("results", m.results, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::CreatePartitionsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::CreatePartitionsResponse)
