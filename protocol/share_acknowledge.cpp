#include "protocol/share_acknowledge.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ShareAcknowledgeRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ShareAcknowledgeResponse)
