#include "protocol/delete_groups.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteGroupsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteGroupsResponse)
