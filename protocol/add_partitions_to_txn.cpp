#include "protocol/add_partitions_to_txn.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::AddPartitionsToTxnRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::AddPartitionsToTxnResponse)
