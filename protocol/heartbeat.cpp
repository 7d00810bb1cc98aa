#include "protocol/heartbeat.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::HeartbeatRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::HeartbeatResponse)
