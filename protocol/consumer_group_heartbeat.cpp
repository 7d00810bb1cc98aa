#include "protocol/consumer_group_heartbeat.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ConsumerGroupHeartbeatRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ConsumerGroupHeartbeatResponse)
