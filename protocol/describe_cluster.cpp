#include "protocol/describe_cluster.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeClusterRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeClusterResponse)
