#include "protocol/metadata.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::MetadataRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::MetadataResponse)
