#include "protocol/delete_share_group_offsets.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteShareGroupOffsetsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteShareGroupOffsetsResponse)
