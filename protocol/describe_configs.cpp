#include "protocol/describe_configs.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeConfigsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeConfigsResponse)
