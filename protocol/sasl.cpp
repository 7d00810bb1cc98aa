#include "protocol/sasl.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::SaslHandshakeRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::SaslHandshakeResponse)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::SaslAuthenticateRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::SaslAuthenticateResponse)
