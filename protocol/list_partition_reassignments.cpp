#include "protocol/list_partition_reassignments.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ListPartitionReassignmentsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ListPartitionReassignmentsResponse)
