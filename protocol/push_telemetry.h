// PushTelemetry (key 72, KIP-714), version 0 served; flexible from 0.
//   A client's metrics as an OpenTelemetry MetricsData protobuf, compressed with the record
//   batch codec ids (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). `terminating` is the client's
//   last push before it closes. Served only with client.telemetry.enable
//   (docs/client-telemetry.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct PushTelemetryRequest {
    static constexpr ApiKey api_key = ApiKey::push_telemetry;
    Uuid client_instance_id;
    int32_t subscription_id = 0;
    bool terminating = false;
    int8_t compression_type = 0;
    // Not nullable on the wire; a view into the request (pushes may be up to telemetry.max.bytes).
    std::optional<std::span<const std::byte>> metrics;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("client_instance_id", m.client_instance_id, since(0));
        v.field("subscription_id", m.subscription_id, since(0));
        v.field("terminating", m.terminating, since(0));
        v.field("compression_type", m.compression_type, since(0));
        v.field("metrics", m.metrics, since(0));
    }
};

struct PushTelemetryResponse {
    static constexpr ApiKey api_key = ApiKey::push_telemetry;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::PushTelemetryRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::PushTelemetryResponse)
