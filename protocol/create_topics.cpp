#include "protocol/create_topics.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::CreateTopicsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::CreateTopicsResponse)
