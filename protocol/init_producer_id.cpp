#include "protocol/init_producer_id.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::InitProducerIdRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::InitProducerIdResponse)
