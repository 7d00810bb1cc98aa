// DescribeConfigs (key 32), versions 0-4 served; flexible from 4.
//   v0 has is_default per entry; v1 replaces it with config_source and adds include_synonyms and
//   synonyms. v3 adds include_documentation, and config_type and documentation per entry. v4 is
//   v3 in the flexible encoding.
//   Resource types, config sources and config types are Kafka's numbers (below).
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

// ConfigResource.Type in Kafka.
inline constexpr int8_t kResourceTypeTopic = 2;
inline constexpr int8_t kResourceTypeBroker = 4;
inline constexpr int8_t kResourceTypeGroup = 32;  // group configs (KIP-848, KIP-932)

// DescribeConfigsResponse.ConfigSource in Kafka.
enum class ConfigSource : int8_t {
    unknown = 0,
    dynamic_topic_config = 1,
    dynamic_broker_config = 2,
    dynamic_default_broker_config = 3,
    static_broker_config = 4,
    default_config = 5,
    group_config = 8,  // a group's own value (GROUP resources, KIP-848 / KIP-932)
};

// DescribeConfigsResponse.ConfigType in Kafka (v3+).
enum class ConfigType : int8_t {
    unknown = 0,
    boolean = 1,
    string = 2,
    int_type = 3,
    short_type = 4,
    long_type = 5,
    double_type = 6,
    list = 7,
    class_type = 8,
    password = 9,
};

struct DescribeConfigsResource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::optional<std::vector<std::string>> configuration_keys;  // null: every key

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resource_type", m.resource_type, since(0));
        v.field("resource_name", m.resource_name, since(0));
        v.field("configuration_keys", m.configuration_keys, since(0), nullable(since(0)));
    }
};

struct DescribeConfigsRequest {
    static constexpr ApiKey api_key = ApiKey::describe_configs;
    std::vector<DescribeConfigsResource> resources;
    bool include_synonyms = false;
    bool include_documentation = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resources", m.resources, since(0));
        v.field("include_synonyms", m.include_synonyms, since(1));
        v.field("include_documentation", m.include_documentation, since(3));
    }
};

struct DescribeConfigsSynonym {
    std::string name;
    std::optional<std::string> value;
    int8_t source = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(1));
        v.field("value", m.value, since(1), nullable(since(0)));
        v.field("source", m.source, since(1));
    }
};

struct DescribeConfigsResourceResult {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    bool is_default = false;
    int8_t config_source = -1;
    bool is_sensitive = false;
    std::vector<DescribeConfigsSynonym> synonyms;
    int8_t config_type = 0;                    // ConfigType
    std::optional<std::string> documentation;  // null unless asked for

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("value", m.value, since(0), nullable(since(0)));
        v.field("read_only", m.read_only, since(0));
        v.field("is_default", m.is_default, only(0));
        v.field("config_source", m.config_source, since(1));
        v.field("is_sensitive", m.is_sensitive, since(0));
        v.field("synonyms", m.synonyms, since(1));
        v.field("config_type", m.config_type, since(3));
        v.field("documentation", m.documentation, since(3), nullable(since(0)));
    }
};

struct DescribeConfigsResult {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<DescribeConfigsResourceResult> configs;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("resource_type", m.resource_type, since(0));
        v.field("resource_name", m.resource_name, since(0));
        v.field("configs", m.configs, since(0));
    }
};

struct DescribeConfigsResponse {
    static constexpr ApiKey api_key = ApiKey::describe_configs;
    int32_t throttle_time_ms = 0;
    std::vector<DescribeConfigsResult> results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("results", m.results, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeConfigsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeConfigsResponse)
