// How the schema registry's operations are authorized with skiff's Kafka ACLs (docs/
// schema-registry.md), so that one set of ACLs, managed with the tools people already use
// (kafka-acls, CreateAcls), governs the topics and their schemas. The mapping is Confluent's
// topic-based one (its TopicAclAuthorizer):
//
//   SUBJECT s   -> TOPIC t, where t is s without a "-key" or "-value" suffix (TopicNameStrategy
//                  subjects, the common case); any other subject (RecordNameStrategy) is a
//                  TOPIC of its own name, so prefixed ACLs can cover a namespace
//   REGISTRY    -> CLUSTER kafka-cluster
//
// with the operation as the registry names it: READ, WRITE, DELETE, DESCRIBE,
// DESCRIBE_CONFIGS, ALTER_CONFIGS (Kafka's operations of the same names). The client's
// address, which Kafka ACLs may name, is the one the HTTP request came from (set by the
// endpoint for the call on its thread: RegistryCaller).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "broker/security/acl.h"
#include "broker/security/authorizer.h"

namespace skiff::broker::schema_registry_service {

using RegistryAuthorize =
    std::function<bool(const std::string& principal, std::string_view operation,
                       std::string_view resource_type, std::string_view name)>;

// The Kafka resource an operation of the registry is checked on.
struct AclTarget {
    security::ResourceType type;
    std::string name;
};
AclTarget acl_target(std::string_view resource_type, std::string_view name);
// The Kafka operation of a registry operation name; unknown for a name it does not know.
security::AclOperation acl_operation(std::string_view operation);

// The registry's authorize hook over `authorizer` (which must outlive it).
RegistryAuthorize authorize_with_acls(const security::Authorizer& authorizer);

// The address of the HTTP client whose call runs on this thread, for the ACLs' host.
class RegistryCaller {
  public:
    explicit RegistryCaller(std::string host);
    ~RegistryCaller();
    RegistryCaller(const RegistryCaller&) = delete;
    RegistryCaller& operator=(const RegistryCaller&) = delete;
    static const std::string& host();
};

}  // namespace skiff::broker::schema_registry_service
