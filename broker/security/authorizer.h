// skiff's built-in authorizer, what Kafka calls StandardAuthorizer (and AclAuthorizer before
// KRaft): the ACL store plus `super.users` and `allow.everyone.if.no.acl.found`, and the check
// that request handlers make. Only created when `authorizer.class.name` names it; without it the
// broker has no authorizer and the ACL APIs answer SECURITY_DISABLED, as Kafka does.
//
// authorize() follows Kafka's rules:
//   - a super user is allowed everything;
//   - the ACLs that apply to a resource are its LITERAL ones with the same name or `*`, and the
//     PREFIXED ones whose name starts the resource name; of those, the ones whose principal is the
//     caller's or `User:*` and whose host is the caller's or `*`;
//   - a DENY for the operation (or for ALL) wins over any ALLOW;
//   - an ALLOW for the operation or ALL allows it; ALLOW of READ, WRITE, DELETE or ALTER also
//     allows DESCRIBE, and ALLOW of ALTER_CONFIGS allows DESCRIBE_CONFIGS;
//   - with no ACL at all on the resource (whoever it names), allow.everyone.if.no.acl.found
//     decides; otherwise it is denied.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "broker/security/acl.h"
#include "broker/security/acl_store.h"

namespace skiff::broker::security {

// `super.users` as Kafka writes it: principals separated by semicolons ("User:admin;User:ops"),
// whitespace around each ignored, empty entries skipped.
std::vector<std::string> parse_super_users(std::string_view text);

struct AuthorizerSettings {
    std::vector<std::string> super_users;
    bool allow_everyone_if_no_acl_found = false;
};

class Authorizer {
  public:
    // Opens the ACL store in `data_dir` (throws std::runtime_error when its file is corrupt).
    Authorizer(const std::filesystem::path& data_dir, AuthorizerSettings settings);

    AclStore& acls() { return store_; }
    const AclStore& acls() const { return store_; }
    const AuthorizerSettings& settings() const { return settings_; }

    bool is_super_user(std::string_view principal) const;
    // May `principal` ("User:alice") connected from `host` (an IP address) perform `operation`
    // on the resource? `operation` must be a concrete one (not ANY/UNKNOWN).
    bool authorize(std::string_view principal, std::string_view host, AclOperation operation,
                   ResourceType resource_type, std::string_view resource_name) const;

    // Kafka's authorizeByResourceType: may `principal` perform `operation` on at least one
    // resource of the type? True when an ALLOW of the operation (or ALL) applies to the
    // principal and host on some pattern that no DENY covers (a DENY on the same literal name,
    // on the literal `*`, or on a prefix of the pattern's name); with no binding of the type at
    // all, allow.everyone.if.no.acl.found decides. Used where Kafka lets WRITE on any topic stand
    // for IDEMPOTENT_WRITE on the cluster (InitProducerId without a transactional id).
    bool authorize_by_resource_type(std::string_view principal, std::string_view host,
                                    AclOperation operation, ResourceType resource_type) const;

  private:
    AuthorizerSettings settings_;
    AclStore store_;
};

}  // namespace skiff::broker::security
