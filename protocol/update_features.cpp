#include "protocol/update_features.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::UpdateFeaturesRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::UpdateFeaturesResponse)
