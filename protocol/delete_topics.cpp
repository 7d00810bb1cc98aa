#include "protocol/delete_topics.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteTopicsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteTopicsResponse)
