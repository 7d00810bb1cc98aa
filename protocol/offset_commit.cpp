#include "protocol/offset_commit.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::OffsetCommitRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::OffsetCommitResponse)
