#include "protocol/describe_topic_partitions.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeTopicPartitionsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeTopicPartitionsResponse)
