#include "protocol/sync_group.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::SyncGroupRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::SyncGroupResponse)
