#include "protocol/offset_delete.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::OffsetDeleteRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::OffsetDeleteResponse)
