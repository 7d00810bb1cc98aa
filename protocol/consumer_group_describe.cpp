#include "protocol/consumer_group_describe.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ConsumerGroupDescribeRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ConsumerGroupDescribeResponse)
