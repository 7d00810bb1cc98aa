#include "broker/broker.h"
#include "broker/handlers/acl_conversions.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

// DescribeAcls: the bindings matching the filter, grouped by resource pattern as Kafka's
// DescribeAclsResponse.aclsResources does. Without an authorizer SECURITY_DISABLED; a filter
// with an UNKNOWN element INVALID_REQUEST.
asio::awaitable<protocol::DescribeAclsResponse> handle_describe_acls(
    RequestContext& ctx, const protocol::DescribeAclsRequest& req) {
    protocol::DescribeAclsResponse resp;
    auto* authorizer = ctx.broker.authorizer();
    if (!authorizer) {
        answer_security_disabled(resp);
        co_return resp;
    }
    // DESCRIBE on the cluster (Kafka's AclApis), else CLUSTER_AUTHORIZATION_FAILED.
    if (!authorized_on_cluster(ctx, AclOperation::describe)) {
        resp.error_code = protocol::ErrorCode::cluster_authorization_failed;
        co_return resp;
    }
    const auto filter = acl_filter_from_wire(req, ctx.header.api_version);
    if (auto why = filter.invalid_reason()) {
        resp.error_code = protocol::ErrorCode::invalid_request;
        resp.error_message = std::move(*why);
        co_return resp;
    }
    // Sorted by resource type, name and pattern type (AclBinding's order): one group each.
    for (const auto& b : authorizer->acls().list(filter)) {
        if (resp.resources.empty() ||
            resp.resources.back().resource_type != acl_code(b.resource_type) ||
            resp.resources.back().resource_name != b.resource_name ||
            resp.resources.back().pattern_type != acl_code(b.pattern_type)) {
            protocol::DescribeAclsResource r;
            r.resource_type = acl_code(b.resource_type);
            r.resource_name = b.resource_name;
            r.pattern_type = acl_code(b.pattern_type);
            resp.resources.push_back(std::move(r));
        }
        protocol::AclDescription d;
        d.principal = b.principal;
        d.host = b.host;
        d.operation = acl_code(b.operation);
        d.permission_type = acl_code(b.permission);
        resp.resources.back().acls.push_back(std::move(d));
    }
    co_return resp;
}

}  // namespace skiff::broker
