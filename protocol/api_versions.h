// ApiVersions (key 18), versions 0-4; flexible from 3.
//   Request v3 adds client_software_name / client_software_version (compact strings).
//   Response: error_code, api_keys[], throttle_time_ms (v1+), and in v3 tagged fields for
//   feature flags (tags 0-3), which skiff never sets. v4 changes no field (KAFKA-17011: a
//   supported feature's min_version may be 0).
// The response always goes out with response header v0 (see api_table.h), and a request at an
// unsupported version gets encode_api_versions_unsupported(): a v0 body with UNSUPPORTED_VERSION
// listing what skiff supports, so the client can retry with a version both sides know.
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

struct ApiVersionsRequest {
    static constexpr ApiKey api_key = ApiKey::api_versions;
    std::string client_software_name;
    std::string client_software_version;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("client_software_name", m.client_software_name, since(3));
        v.field("client_software_version", m.client_software_version, since(3));
    }
};

struct ApiVersion {
    int16_t api_key = 0;
    int16_t min_version = 0;
    int16_t max_version = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("api_key", m.api_key, since(0));
        v.field("min_version", m.min_version, since(0));
        v.field("max_version", m.max_version, since(0));
    }
};

struct SupportedFeatureKey {
    std::string name;
    int16_t min_version = 0;
    int16_t max_version = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(3));
        v.field("min_version", m.min_version, since(3));
        v.field("max_version", m.max_version, since(3));
    }
};

struct FinalizedFeatureKey {
    std::string name;
    int16_t max_version_level = 0;
    int16_t min_version_level = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(3));
        v.field("max_version_level", m.max_version_level, since(3));
        v.field("min_version_level", m.min_version_level, since(3));
    }
};

struct ApiVersionsResponse {
    static constexpr ApiKey api_key = ApiKey::api_versions;
    ErrorCode error_code = ErrorCode::none;
    std::vector<ApiVersion> api_keys;
    int32_t throttle_time_ms = 0;
    std::vector<SupportedFeatureKey> supported_features;  // tag 0
    std::optional<int64_t> finalized_features_epoch;      // tag 1 (Kafka default -1)
    std::vector<FinalizedFeatureKey> finalized_features;  // tag 2
    std::optional<bool> zk_migration_ready;               // tag 3

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("api_keys", m.api_keys, since(0));
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("supported_features", m.supported_features, since(3), tagged(0, since(3)));
        v.field("finalized_features_epoch", m.finalized_features_epoch, since(3),
                tagged(1, since(3)));
        v.field("finalized_features", m.finalized_features, since(3), tagged(2, since(3)));
        v.field("zk_migration_ready", m.zk_migration_ready, since(3), tagged(3, since(3)));
    }
};

// The supported-API table as an ApiVersions answer (error none).
ApiVersionsResponse make_api_versions_response();

// Appends the whole answer to an ApiVersions request of an unsupported version: response header
// v0, v0 body, UNSUPPORTED_VERSION, listing the supported table (or `api_keys`, when given: an
// emulated release's).
void encode_api_versions_unsupported(int32_t correlation_id, OutBuffer& out,
                                     const std::vector<ApiVersion>* api_keys = nullptr);

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::ApiVersionsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::ApiVersionsResponse)
