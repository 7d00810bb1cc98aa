#include "protocol/alter_share_group_offsets.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::AlterShareGroupOffsetsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::AlterShareGroupOffsetsResponse)
