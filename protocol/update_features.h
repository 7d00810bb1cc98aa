// UpdateFeatures (key 57), versions 0-2 served; flexible from 0.
//   Changes finalized feature levels (KIP-584; Kafka's admin updateFeatures, kafka-features.sh).
//   v0 carries allow_downgrade per update; v1 replaces it with upgrade_type (1 upgrade, 2 safe
//   downgrade, 3 unsafe downgrade) and adds validate_only; v2 drops the per-feature results from
//   the response (only the top-level error remains). Kafka's brokers forward it to the
//   controller, which needs ALTER on the cluster; skiff is its own controller.
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

struct FeatureUpdateKey {
    std::string feature;
    int16_t max_version_level = 0;
    bool allow_downgrade = false;  // v0
    int8_t upgrade_type = 1;       // v1+

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("feature", m.feature, since(0));
        v.field("max_version_level", m.max_version_level, since(0));
        v.field("allow_downgrade", m.allow_downgrade, between(0, 0));
        v.field("upgrade_type", m.upgrade_type, since(1));
    }
};

struct UpdateFeaturesRequest {
    static constexpr ApiKey api_key = ApiKey::update_features;
    int32_t timeout_ms = 60000;
    std::vector<FeatureUpdateKey> feature_updates;
    bool validate_only = false;  // v1+

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("timeout_ms", m.timeout_ms, since(0));
        v.field("feature_updates", m.feature_updates, since(0));
        v.field("validate_only", m.validate_only, since(1));
    }
};

struct UpdatableFeatureResult {
    std::string feature;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("feature", m.feature, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
    }
};

struct UpdateFeaturesResponse {
    static constexpr ApiKey api_key = ApiKey::update_features;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<UpdatableFeatureResult> results;  // v0-1

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("results", m.results, between(0, 1));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::UpdateFeaturesRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::UpdateFeaturesResponse)
