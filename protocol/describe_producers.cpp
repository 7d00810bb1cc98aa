#include "protocol/describe_producers.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeProducersRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeProducersResponse)
