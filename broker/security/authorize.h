// The authorization check a request handler makes: may this request's client perform the
// operation on the resource? Answers yes when the broker runs without an authorizer (Kafka's
// behaviour when `authorizer.class.name` is empty); otherwise the authorizer decides from the
// connection's principal and host (docs/acls.md).
#pragma once

#include <cstdint>
#include <span>
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

// KIP-430's authorized operations: the bit set (bit n for the operation whose code is n) of the
// operations valid on the resource type (Kafka's AclEntry.supportedOperations) that the client
// may perform on the resource; every valid one without an authorizer, as Kafka's
// AuthHelper.authorizedOperations. Metadata, DescribeCluster, DescribeGroups,
// DescribeTopicPartitions and ConsumerGroupDescribe answer it when the client asks.
int32_t authorized_operations(const RequestContext& ctx, ResourceType resource_type,
                              std::string_view resource_name);

namespace security {
// The operations an ACL may grant on a resource type (AclEntry.supportedOperations); empty for
// ANY and UNKNOWN.
std::span<const AclOperation> supported_operations(ResourceType resource_type);
}  // namespace security

}  // namespace skiff::broker
