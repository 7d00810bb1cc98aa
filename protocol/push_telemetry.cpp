#include "protocol/push_telemetry.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::PushTelemetryRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::PushTelemetryResponse)
