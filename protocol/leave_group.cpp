#include "protocol/leave_group.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::LeaveGroupRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::LeaveGroupResponse)
