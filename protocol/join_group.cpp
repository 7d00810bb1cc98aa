#include "protocol/join_group.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::JoinGroupRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::JoinGroupResponse)
