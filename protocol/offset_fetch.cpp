#include "protocol/offset_fetch.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::OffsetFetchRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::OffsetFetchResponse)
