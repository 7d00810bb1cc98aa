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

namespace security {

std::span<const AclOperation> supported_operations(ResourceType resource_type) {
    using enum AclOperation;
    // Kafka 4.0's lists (AclEntry.supportedOperations); GROUP's config operations are for
    // KIP-848's group configs.
    static constexpr AclOperation kTopic[] = {read,   write, create,           describe,
                                              remove, alter, describe_configs, alter_configs};
    static constexpr AclOperation kGroup[] = {read, describe, remove, describe_configs,
                                              alter_configs};
    static constexpr AclOperation kCluster[] = {
        create, cluster_action, describe_configs, alter_configs, idempotent_write, alter, describe};
    static constexpr AclOperation kTransactionalId[] = {describe, write};
    static constexpr AclOperation kDelegationToken[] = {describe};
    static constexpr AclOperation kUser[] = {create_tokens, describe_tokens};
    switch (resource_type) {
        case ResourceType::topic:
            return kTopic;
        case ResourceType::group:
            return kGroup;
        case ResourceType::cluster:
            return kCluster;
        case ResourceType::transactional_id:
            return kTransactionalId;
        case ResourceType::delegation_token:
            return kDelegationToken;
        case ResourceType::user:
            return kUser;
        default:
            return {};
    }
}

}  // namespace security

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

int32_t authorized_operations(const RequestContext& ctx, ResourceType resource_type,
                              std::string_view resource_name) {
    uint32_t bits = 0;
    for (auto operation : security::supported_operations(resource_type))
        if (authorized(ctx, operation, resource_type, resource_name))
            bits |= uint32_t{1} << static_cast<int>(operation);
    return static_cast<int32_t>(bits);
}

bool authorized_on_cluster(const RequestContext& ctx, security::AclOperation operation) {
    return authorized(ctx, operation, security::ResourceType::cluster,
                      security::kClusterResourceName);
}

}  // namespace skiff::broker
