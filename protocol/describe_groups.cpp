#include "protocol/describe_groups.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeGroupsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeGroupsResponse)
