#include "broker/handlers/handlers.h"

namespace skiff::broker {

// One broker has nowhere to move a replica to: no reassignment is ever in progress.
asio::awaitable<protocol::ListPartitionReassignmentsResponse> handle_list_partition_reassignments(
    RequestContext&, const protocol::ListPartitionReassignmentsRequest&) {
    co_return protocol::ListPartitionReassignmentsResponse{};
}

}  // namespace skiff::broker
