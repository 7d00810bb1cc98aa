#include "protocol/share_group_heartbeat.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ShareGroupHeartbeatRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ShareGroupHeartbeatResponse)
