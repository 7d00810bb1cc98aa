#include "broker/authorize.h"

#include "broker/broker.h"

namespace skiff::broker {

bool authorized(const RequestContext& ctx, security::AclOperation operation,
                security::ResourceType resource_type, std::string_view resource_name) {
    const auto* authorizer = ctx.broker.authorizer();
    if (!authorizer)
        return true;
    // Outside a connection (unit tests) the client is an anonymous one on no particular host.
    std::string_view principal = ctx.session ? ctx.session->principal : kAnonymousPrincipal;
    std::string_view host = ctx.session ? std::string_view(ctx.session->host) : "";
    return authorizer->authorize(principal, host, operation, resource_type, resource_name);
}

bool authorized_on_cluster(const RequestContext& ctx, security::AclOperation operation) {
    return authorized(ctx, operation, security::ResourceType::cluster,
                      security::kClusterResourceName);
}

}  // namespace skiff::broker
