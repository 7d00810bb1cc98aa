#include "protocol/get_telemetry_subscriptions.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::GetTelemetrySubscriptionsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::GetTelemetrySubscriptionsResponse)
