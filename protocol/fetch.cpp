#include "protocol/fetch.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::FetchRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::FetchResponse)
