#include "protocol/share_group_describe.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ShareGroupDescribeRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ShareGroupDescribeResponse)
