#include "broker/broker.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

// GetTelemetrySubscriptions (KIP-714): the metric prefixes and push interval of
// client.telemetry.*, a client instance id for a client that sent the zero one
// (telemetry/client_telemetry.h). With client.telemetry.enable off the API is not advertised,
// and a client that asks anyway gets UNSUPPORTED_VERSION, as KafkaApis answers without a
// client metrics manager.
asio::awaitable<protocol::GetTelemetrySubscriptionsResponse> handle_get_telemetry_subscriptions(
    RequestContext& ctx, const protocol::GetTelemetrySubscriptionsRequest& req) {
    auto* telemetry = ctx.broker.client_telemetry();
    if (!telemetry) {
        protocol::GetTelemetrySubscriptionsResponse resp;
        resp.error_code = protocol::ErrorCode::unsupported_version;
        co_return resp;
    }
    // Who asks: the request header's client id and what ApiVersions v3 said of the software.
    telemetry::ClientIdentity who;
    who.client_id = ctx.header.client_id.value_or("");
    if (ctx.client_software) {
        who.software_name = ctx.client_software->name;
        who.software_version = ctx.client_software->version;
    }
    co_return telemetry->get_subscriptions(req, who);
}

}  // namespace skiff::broker
