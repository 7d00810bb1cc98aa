#include "protocol/end_txn.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::EndTxnRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::EndTxnResponse)
