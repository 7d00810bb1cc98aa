// GetTelemetrySubscriptions (key 71, KIP-714), version 0 served; flexible from 0.
//   A client asks which of its metrics the broker wants pushed and how often. The zero client
//   instance id asks the broker to assign one. Served only with client.telemetry.enable
//   (docs/client-telemetry.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct GetTelemetrySubscriptionsRequest {
    static constexpr ApiKey api_key = ApiKey::get_telemetry_subscriptions;
    Uuid client_instance_id;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("client_instance_id", m.client_instance_id, since(0));
    }
};

struct GetTelemetrySubscriptionsResponse {
    static constexpr ApiKey api_key = ApiKey::get_telemetry_subscriptions;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    Uuid client_instance_id;  // the assigned one when the request's was zero, else zero
    int32_t subscription_id = 0;
    std::vector<int8_t> accepted_compression_types;
    int32_t push_interval_ms = 0;
    int32_t telemetry_max_bytes = 0;
    bool delta_temporality = false;
    // Metric name prefixes; empty: none, one empty string: all.
    std::vector<std::string> requested_metrics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("client_instance_id", m.client_instance_id, since(0));
        v.field("subscription_id", m.subscription_id, since(0));
        v.field("accepted_compression_types", m.accepted_compression_types, since(0));
        v.field("push_interval_ms", m.push_interval_ms, since(0));
        v.field("telemetry_max_bytes", m.telemetry_max_bytes, since(0));
        v.field("delta_temporality", m.delta_temporality, since(0));
        v.field("requested_metrics", m.requested_metrics, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::GetTelemetrySubscriptionsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::GetTelemetrySubscriptionsResponse)
