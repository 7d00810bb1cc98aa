#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

// One broker has nowhere to move a replica to: no reassignment is ever in progress.
asio::awaitable<protocol::ListPartitionReassignmentsResponse> handle_list_partition_reassignments(
    RequestContext& ctx, const protocol::ListPartitionReassignmentsRequest&) {
    protocol::ListPartitionReassignmentsResponse resp;
    // DESCRIBE on the cluster (docs/acls.md), else CLUSTER_AUTHORIZATION_FAILED.
    if (!authorized_on_cluster(ctx, AclOperation::describe))
        resp.error_code = protocol::ErrorCode::cluster_authorization_failed;
    co_return resp;
}

}  // namespace skiff::broker
