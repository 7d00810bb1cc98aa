#include "protocol/list_groups.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ListGroupsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ListGroupsResponse)
