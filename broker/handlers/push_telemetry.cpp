#include "broker/broker.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

// PushTelemetry (KIP-714): a client's metrics, checked as Kafka's ClientMetricsManager checks
// them and kept for /metrics (telemetry/client_telemetry.h). With client.telemetry.enable off:
// UNSUPPORTED_VERSION, as KafkaApis answers without a client metrics manager.
asio::awaitable<protocol::PushTelemetryResponse> handle_push_telemetry(
    RequestContext& ctx, const protocol::PushTelemetryRequest& req) {
    protocol::PushTelemetryResponse resp;
    auto* telemetry = ctx.broker.client_telemetry();
    if (!telemetry) {
        resp.error_code = protocol::ErrorCode::unsupported_version;
        co_return resp;
    }
    telemetry::ClientIdentity who;
    who.client_id = ctx.header.client_id.value_or("");
    if (ctx.client_software) {
        who.software_name = ctx.client_software->name;
        who.software_version = ctx.client_software->version;
    }
    resp.error_code = telemetry->push(req, who);
    co_return resp;
}

}  // namespace skiff::broker
