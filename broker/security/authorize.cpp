#include "broker/security/authorize.h"

#include "broker/broker.h"

namespace skiff::broker {

namespace {

// Outside a connection (unit tests) the client is an anonymous one on no particular host.
std::string_view principal_of(const RequestContext& ctx) {
    return ctx.session ? std::string_view(ctx.session->principal) : kAnonymousPrincipal;
}
std::string_view host_of(const RequestContext& ctx) {
    return ctx.session ? std::string_view(ctx.session->host) : std::string_view();
}

}  // namespace

bool authorized(const RequestContext& ctx, security::AclOperation operation,
                security::ResourceType resource_type, std::string_view resource_name) {
    const auto* authorizer = ctx.broker.authorizer();
    return !authorizer || authorizer->authorize(principal_of(ctx), host_of(ctx), operation,
                                                resource_type, resource_name);
}

bool authorized_on_some(const RequestContext& ctx, AclOperation operation,
                        ResourceType resource_type) {
    const auto* authorizer = ctx.broker.authorizer();
    return !authorizer || authorizer->authorize_by_resource_type(principal_of(ctx), host_of(ctx),
                                                                 operation, resource_type);
}

bool authorized_on_cluster(const RequestContext& ctx, security::AclOperation operation) {
    return authorized(ctx, operation, security::ResourceType::cluster,
                      security::kClusterResourceName);
}

}  // namespace skiff::broker
