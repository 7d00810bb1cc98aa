#include "protocol/share_fetch.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ShareFetchRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ShareFetchResponse)
