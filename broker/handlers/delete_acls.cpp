#include <vector>

#include "broker/broker.h"
#include "broker/handlers/acl_conversions.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

// DeleteAcls: one result per filter, in request order, listing the bindings it matched and
// removed (a binding matched by two filters is listed under both). Without an authorizer every
// result is SECURITY_DISABLED; a filter with an UNKNOWN element INVALID_REQUEST ("Unknown
// patternFilter." / "Unknown entryFilter.", AclControlManager.validateFilter). The removal is one
// atomic write of the ACL file.
asio::awaitable<protocol::DeleteAclsResponse> handle_delete_acls(
    RequestContext& ctx, const protocol::DeleteAclsRequest& req) {
    protocol::DeleteAclsResponse resp;
    resp.filter_results.resize(req.filters.size());
    auto* authorizer = ctx.broker.authorizer();
    if (!authorizer) {
        answer_security_disabled(resp.filter_results);
        co_return resp;
    }
    // ALTER on the cluster (Kafka's AclApis), else CLUSTER_AUTHORIZATION_FAILED per filter.
    if (!authorized_on_cluster(ctx, AclOperation::alter)) {
        for (auto& r : resp.filter_results)
            r.error_code = protocol::ErrorCode::cluster_authorization_failed;
        co_return resp;
    }
    std::vector<security::AclBindingFilter> valid;
    std::vector<size_t> valid_index;
    for (size_t i = 0; i < req.filters.size(); ++i) {
        auto filter = acl_filter_from_wire(req.filters[i], ctx.header.api_version);
        if (auto why = filter.invalid_reason()) {
            resp.filter_results[i].error_code = protocol::ErrorCode::invalid_request;
            resp.filter_results[i].error_message = std::move(*why);
            continue;
        }
        valid.push_back(std::move(filter));
        valid_index.push_back(i);
    }
    if (valid.empty())
        co_return resp;
    auto removed = authorizer->acls().remove(valid);
    for (size_t k = 0; k < valid_index.size(); ++k) {
        auto& result = resp.filter_results[valid_index[k]];
        if (removed.error) {
            result.error_code = protocol::ErrorCode::unknown_server_error;
            result.error_message = *removed.error;
            continue;
        }
        for (const auto& b : removed.per_filter[k]) {
            protocol::DeleteAclsMatchingAcl m;
            m.resource_type = acl_code(b.resource_type);
            m.resource_name = b.resource_name;
            m.pattern_type = acl_code(b.pattern_type);
            m.principal = b.principal;
            m.host = b.host;
            m.operation = acl_code(b.operation);
            m.permission_type = acl_code(b.permission);
            result.matching_acls.push_back(std::move(m));
        }
    }
    co_return resp;
}

}  // namespace skiff::broker
