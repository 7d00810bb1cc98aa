#include "protocol/alter_configs.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::AlterConfigsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::AlterConfigsResponse)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::IncrementalAlterConfigsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::IncrementalAlterConfigsResponse)
