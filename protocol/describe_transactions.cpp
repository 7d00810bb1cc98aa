#include "protocol/describe_transactions.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeTransactionsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeTransactionsResponse)
