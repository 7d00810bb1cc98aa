#include "broker/schema_registry/service/registry_acls.h"

namespace skiff::broker::schema_registry_service {
namespace {
thread_local std::string t_caller_host = "*";
}  // namespace

RegistryCaller::RegistryCaller(std::string host) {
    t_caller_host = std::move(host);
}
RegistryCaller::~RegistryCaller() {
    t_caller_host = "*";
}
const std::string& RegistryCaller::host() {
    return t_caller_host;
}

AclTarget acl_target(std::string_view resource_type, std::string_view name) {
    if (resource_type != "SUBJECT")
        return {security::ResourceType::cluster, "kafka-cluster"};
    for (std::string_view suffix : {"-key", "-value"})
        if (name.size() > suffix.size() && name.ends_with(suffix))
            return {security::ResourceType::topic,
                    std::string(name.substr(0, name.size() - suffix.size()))};
    return {security::ResourceType::topic, std::string(name)};
}

security::AclOperation acl_operation(std::string_view operation) {
    using Op = security::AclOperation;
    if (operation == "READ")
        return Op::read;
    if (operation == "WRITE")
        return Op::write;
    if (operation == "DELETE")
        return Op::remove;
    if (operation == "DESCRIBE")
        return Op::describe;
    if (operation == "DESCRIBE_CONFIGS")
        return Op::describe_configs;
    if (operation == "ALTER_CONFIGS")
        return Op::alter_configs;
    return Op::unknown;
}

RegistryAuthorize authorize_with_acls(const security::Authorizer& authorizer) {
    return [&authorizer](const std::string& principal, std::string_view operation,
                         std::string_view resource_type, std::string_view name) {
        const auto op = acl_operation(operation);
        if (op == security::AclOperation::unknown)
            return false;  // an operation this mapping does not know is never granted
        const auto target = acl_target(resource_type, name);
        return authorizer.authorize(principal, RegistryCaller::host(), op, target.type,
                                    target.name);
    };
}

}  // namespace skiff::broker::schema_registry_service
