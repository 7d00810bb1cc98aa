#include "protocol/add_offsets_to_txn.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::AddOffsetsToTxnRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::AddOffsetsToTxnResponse)
