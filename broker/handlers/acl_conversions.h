// Between the ACL messages (protocol/acls.h) and the ACL model (broker/security/acl.h), for the
// CreateAcls, DescribeAcls and DeleteAcls handlers.
#pragma once

#include <string>
#include <vector>

#include "broker/security/acl.h"
#include "protocol/acls.h"

namespace skiff::broker {

// Kafka's answer to the ACL APIs when no authorizer is configured: SECURITY_DISABLED with this
// message, on the DescribeAcls response itself and on every CreateAcls and DeleteAcls result.
inline constexpr const char* kNoAuthorizerMessage = "No Authorizer is configured.";

template <class Answer>
void answer_security_disabled(Answer& answer) {
    answer.error_code = protocol::ErrorCode::security_disabled;
    answer.error_message = kNoAuthorizerMessage;
}

template <class Result>
void answer_security_disabled(std::vector<Result>& results) {
    for (auto& r : results)
        answer_security_disabled(r);
}

inline security::AclBinding acl_binding_from_wire(const protocol::CreatableAcl& c) {
    security::AclBinding b;
    b.resource_type = security::resource_type_from_code(c.resource_type);
    b.resource_name = c.resource_name;
    b.pattern_type = security::pattern_type_from_code(c.resource_pattern_type);
    b.principal = c.principal;
    b.host = c.host;
    b.operation = security::acl_operation_from_code(c.operation);
    b.permission = security::acl_permission_from_code(c.permission_type);
    return b;
}

inline security::AclBindingFilter acl_filter_from_wire(const protocol::AclFilter& w,
                                                       int16_t version) {
    security::AclBindingFilter f;
    f.resource_type = security::resource_type_from_code(w.resource_type_filter);
    f.resource_name = w.resource_name_filter;
    f.pattern_type = security::pattern_type_from_code(w.pattern_type_filter);
    // v0 has no pattern type: only LITERAL bindings existed (Kafka's v0 requests mean LITERAL).
    if (version == 0)
        f.pattern_type = security::PatternType::literal;
    f.principal = w.principal_filter;
    f.host = w.host_filter;
    f.operation = security::acl_operation_from_code(w.operation);
    f.permission = security::acl_permission_from_code(w.permission_type);
    return f;
}

inline int8_t acl_code(security::ResourceType v) {
    return static_cast<int8_t>(v);
}
inline int8_t acl_code(security::PatternType v) {
    return static_cast<int8_t>(v);
}
inline int8_t acl_code(security::AclOperation v) {
    return static_cast<int8_t>(v);
}
inline int8_t acl_code(security::AclPermission v) {
    return static_cast<int8_t>(v);
}

}  // namespace skiff::broker
