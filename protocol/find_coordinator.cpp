#include "protocol/find_coordinator.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::FindCoordinatorRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::FindCoordinatorResponse)
