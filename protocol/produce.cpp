#include "protocol/produce.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ProduceRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ProduceResponse)
