#include <vector>

#include "broker/broker.h"
#include "broker/handlers/acl_conversions.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

// CreateAcls: one result per creation, in request order. Without an authorizer every result is
// SECURITY_DISABLED; an invalid binding is INVALID_REQUEST with Kafka's message (an empty name, a
// CLUSTER name other than kafka-cluster, ANY/UNKNOWN/MATCH elements, a principal without a type);
// the valid ones are stored with one atomic write of the ACL file (a binding already present is
// a success). (AclApis.handleCreateAcls, AclControlManager.createAcls.)
asio::awaitable<protocol::CreateAclsResponse> handle_create_acls(
    RequestContext& ctx, const protocol::CreateAclsRequest& req) {
    protocol::CreateAclsResponse resp;
    resp.results.resize(req.creations.size());
    auto* authorizer = ctx.broker.authorizer();
    if (!authorizer) {
        answer_security_disabled(resp.results);
        co_return resp;
    }
    // ALTER on the cluster (Kafka's AclApis), else CLUSTER_AUTHORIZATION_FAILED per creation.
    if (!authorized_on_cluster(ctx, AclOperation::alter)) {
        for (auto& r : resp.results)
            r.error_code = protocol::ErrorCode::cluster_authorization_failed;
        co_return resp;
    }
    std::vector<security::AclBinding> valid;
    std::vector<size_t> valid_index;
    for (size_t i = 0; i < req.creations.size(); ++i) {
        auto binding = acl_binding_from_wire(req.creations[i]);
        if (auto why = security::invalid_binding_reason(binding)) {
            resp.results[i].error_code = protocol::ErrorCode::invalid_request;
            resp.results[i].error_message = std::move(*why);
            continue;
        }
        valid.push_back(std::move(binding));
        valid_index.push_back(i);
    }
    if (!valid.empty()) {
        if (auto error = authorizer->acls().add(valid)) {
            for (size_t i : valid_index) {
                resp.results[i].error_code = protocol::ErrorCode::unknown_server_error;
                resp.results[i].error_message = *error;
            }
        }
    }
    co_return resp;
}

}  // namespace skiff::broker
