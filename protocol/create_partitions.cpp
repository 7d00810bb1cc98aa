#include "protocol/create_partitions.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::CreatePartitionsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::CreatePartitionsResponse)
