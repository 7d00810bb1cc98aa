#include "protocol/describe_share_group_offsets.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeShareGroupOffsetsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeShareGroupOffsetsResponse)
