// The authorization check a request handler makes: may this request's client perform the
// operation on the resource? Answers yes when the broker runs without an authorizer (Kafka's
// behaviour when `authorizer.class.name` is empty); otherwise the authorizer decides from the
// connection's principal and host (docs/acls.md).
#pragma once

#include <string_view>

#include "broker/request_context.h"
#include "broker/security/acl.h"

namespace skiff::broker {

// The handlers name operations and resource types often enough to use them unqualified.
using security::AclOperation;
using security::ResourceType;

bool authorized(const RequestContext& ctx, security::AclOperation operation,
                security::ResourceType resource_type, std::string_view resource_name);

// The same for the cluster resource ("kafka-cluster").
bool authorized_on_cluster(const RequestContext& ctx, security::AclOperation operation);

// Whether the client may perform the operation on at least one resource of the type
// (Authorizer::authorize_by_resource_type); true without an authorizer.
bool authorized_on_some(const RequestContext& ctx, AclOperation operation,
                        ResourceType resource_type);

}  // namespace skiff::broker
