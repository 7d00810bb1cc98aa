#include "protocol/list_offsets.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ListOffsetsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ListOffsetsResponse)
