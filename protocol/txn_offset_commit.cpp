#include "protocol/txn_offset_commit.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::TxnOffsetCommitRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::TxnOffsetCommitResponse)
