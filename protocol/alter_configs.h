// AlterConfigs (key 33), versions 0-2 served (identical; 2 is flexible), and
// IncrementalAlterConfigs (key 44), versions 0-1 served (flexible from 1; Kafka's newest).
// AlterConfigs replaces a resource's whole set of overrides; IncrementalAlterConfigs applies
// per-key operations (0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT). Both answer one result per resource.
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

struct AlterableConfig {
    std::string name;
    std::optional<std::string> value;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("value", m.value, since(0), nullable(since(0)));
    }
};

struct AlterConfigsResource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<AlterableConfig> configs;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resource_type", m.resource_type, since(0));
        v.field("resource_name", m.resource_name, since(0));
        v.field("configs", m.configs, since(0));
    }
};

struct AlterConfigsRequest {
    static constexpr ApiKey api_key = ApiKey::alter_configs;
    std::vector<AlterConfigsResource> resources;
    bool validate_only = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resources", m.resources, since(0));
        v.field("validate_only", m.validate_only, since(0));
    }
};

// One per resource, in both responses.
struct AlterConfigsResourceResponse {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("resource_type", m.resource_type, since(0));
        v.field("resource_name", m.resource_name, since(0));
    }
};

struct AlterConfigsResponse {
    static constexpr ApiKey api_key = ApiKey::alter_configs;
    int32_t throttle_time_ms = 0;
    std::vector<AlterConfigsResourceResponse> responses;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("responses", m.responses, since(0));
    }
};

inline constexpr int8_t kConfigOpSet = 0;
inline constexpr int8_t kConfigOpDelete = 1;
inline constexpr int8_t kConfigOpAppend = 2;
inline constexpr int8_t kConfigOpSubtract = 3;

struct AlterableConfigOp {
    std::string name;
    int8_t config_operation = kConfigOpSet;
    std::optional<std::string> value;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("config_operation", m.config_operation, since(0));
        v.field("value", m.value, since(0), nullable(since(0)));
    }
};

struct IncrementalAlterConfigsResource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<AlterableConfigOp> configs;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resource_type", m.resource_type, since(0));
        v.field("resource_name", m.resource_name, since(0));
        v.field("configs", m.configs, since(0));
    }
};

struct IncrementalAlterConfigsRequest {
    static constexpr ApiKey api_key = ApiKey::incremental_alter_configs;
    std::vector<IncrementalAlterConfigsResource> resources;
    bool validate_only = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resources", m.resources, since(0));
        v.field("validate_only", m.validate_only, since(0));
    }
};

struct IncrementalAlterConfigsResponse {
    static constexpr ApiKey api_key = ApiKey::incremental_alter_configs;
    int32_t throttle_time_ms = 0;
    std::vector<AlterConfigsResourceResponse> responses;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("responses", m.responses, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::AlterConfigsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::AlterConfigsResponse)
SKIFF_DECLARE_CODEC(skiff::protocol::IncrementalAlterConfigsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::IncrementalAlterConfigsResponse)
