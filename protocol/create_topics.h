// CreateTopics (key 19), versions 0-7 served; flexible from 5.
//   v1 adds validate_only and the per-topic error message; v2 throttle_time_ms;
//   v4 lets num_partitions / replication_factor be -1 for the broker defaults; v5 answers with
//   the topic's partition count, replication factor and every config (and the tagged
//   topic_config_error_code); v6 changes nothing on the wire; v7 answers with the topic id.
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

struct CreatableReplicaAssignment {
    int32_t partition_index = 0;
    std::vector<int32_t> broker_ids;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("partition_index", m.partition_index, since(0));
        v.field("broker_ids", m.broker_ids, since(0));
    }
};

struct CreatableTopicConfig {
    std::string name;
    std::optional<std::string> value;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("value", m.value, since(0), nullable(since(0)));
    }
};

struct CreatableTopic {
    std::string name;
    int32_t num_partitions = -1;
    int16_t replication_factor = -1;
    std::vector<CreatableReplicaAssignment> assignments;
    std::vector<CreatableTopicConfig> configs;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("num_partitions", m.num_partitions, since(0));
        v.field("replication_factor", m.replication_factor, since(0));
        v.field("assignments", m.assignments, since(0));
        v.field("configs", m.configs, since(0));
    }
};

struct CreateTopicsRequest {
    static constexpr ApiKey api_key = ApiKey::create_topics;
    std::vector<CreatableTopic> topics;
    int32_t timeout_ms = 60000;
    bool validate_only = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, since(0));
        v.field("timeout_ms", m.timeout_ms, since(0));
        v.field("validate_only", m.validate_only, since(1));
    }
};

struct CreatableTopicConfigs {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    int8_t config_source = -1;
    bool is_sensitive = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(5));
        v.field("value", m.value, since(5), nullable(since(5)));
        v.field("read_only", m.read_only, since(5));
        v.field("config_source", m.config_source, since(5));
        v.field("is_sensitive", m.is_sensitive, since(5));
    }
};

struct CreatableTopicResult {
    std::string name;
    Uuid topic_id;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::optional<int16_t> topic_config_error_code;  // tag 0, v5+
    int32_t num_partitions = -1;
    int16_t replication_factor = -1;
    std::optional<std::vector<CreatableTopicConfigs>> configs;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("topic_id", m.topic_id, since(7));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(1), nullable(since(0)));
        v.field("topic_config_error_code", m.topic_config_error_code, since(5),
                tagged(0, since(5)));
        v.field("num_partitions", m.num_partitions, since(5));
        v.field("replication_factor", m.replication_factor, since(5));
        v.field("configs", m.configs, since(5), nullable(since(5)));
    }
};

struct CreateTopicsResponse {
    static constexpr ApiKey api_key = ApiKey::create_topics;
    int32_t throttle_time_ms = 0;
    std::vector<CreatableTopicResult> topics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(2));
        v.field("topics", m.topics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::CreateTopicsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::CreateTopicsResponse)
