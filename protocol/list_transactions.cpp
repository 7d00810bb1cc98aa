#include "protocol/list_transactions.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ListTransactionsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ListTransactionsResponse)
