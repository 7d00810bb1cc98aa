#include "protocol/describe_log_dirs.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeLogDirsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeLogDirsResponse)
