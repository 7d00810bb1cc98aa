#include "broker/security/authorizer.h"

#include <algorithm>
#include <vector>

namespace skiff::broker::security {

namespace {

std::string_view trim_acl_text(std::string_view s) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && space(s.back()))
        s.remove_suffix(1);
    return s;
}

bool acl_applies_to_resource(const AclBinding& b, ResourceType type, std::string_view name) {
    if (b.resource_type != type)
        return false;
    switch (b.pattern_type) {
        case PatternType::literal:
            return b.resource_name == name || b.resource_name == kWildcardResource;
        case PatternType::prefixed:
            return name.starts_with(b.resource_name);
        default:
            return false;
    }
}

// Kafka's implied operations (StandardAuthorizerData / AclAuthorizer): which ACL operations
// grant `requested` when allowed.
bool allow_grants(AclOperation acl, AclOperation requested) {
    if (acl == AclOperation::all || acl == requested)
        return true;
    if (requested == AclOperation::describe)
        return acl == AclOperation::read || acl == AclOperation::write ||
               acl == AclOperation::remove || acl == AclOperation::alter;
    if (requested == AclOperation::describe_configs)
        return acl == AclOperation::alter_configs;
    return false;
}

}  // namespace

std::vector<std::string> parse_super_users(std::string_view text) {
    std::vector<std::string> out;
    while (true) {
        const auto semicolon = text.find(';');
        auto entry = trim_acl_text(text.substr(0, semicolon));
        if (!entry.empty())
            out.emplace_back(entry);
        if (semicolon == std::string_view::npos)
            break;
        text.remove_prefix(semicolon + 1);
    }
    return out;
}

Authorizer::Authorizer(const std::filesystem::path& data_dir, AuthorizerSettings settings)
    : settings_(std::move(settings)), store_(data_dir / kAclBindingsFile) {}

bool Authorizer::is_super_user(std::string_view principal) const {
    return std::find(settings_.super_users.begin(), settings_.super_users.end(), principal) !=
           settings_.super_users.end();
}

bool Authorizer::authorize(std::string_view principal, std::string_view host,
                           AclOperation operation, ResourceType resource_type,
                           std::string_view resource_name) const {
    if (is_super_user(principal))
        return true;
    bool resource_has_acls = false;
    bool denied = false;
    bool allowed = false;
    store_.for_each([&](const AclBinding& b) {
        if (!acl_applies_to_resource(b, resource_type, resource_name))
            return;
        resource_has_acls = true;
        if (b.principal != principal && b.principal != kWildcardPrincipal)
            return;
        if (b.host != host && b.host != kWildcardHost)
            return;
        if (b.permission == AclPermission::deny) {
            if (b.operation == operation || b.operation == AclOperation::all)
                denied = true;
        } else if (b.permission == AclPermission::allow && allow_grants(b.operation, operation)) {
            allowed = true;
        }
    });
    if (denied)
        return false;
    if (allowed)
        return true;
    return !resource_has_acls && settings_.allow_everyone_if_no_acl_found;
}

bool Authorizer::authorize_by_resource_type(std::string_view principal, std::string_view host,
                                            AclOperation operation,
                                            ResourceType resource_type) const {
    if (is_super_user(principal))
        return true;
    bool type_has_acls = false;
    std::vector<AclBinding> allows;
    std::vector<AclBinding> denies;
    store_.for_each([&](const AclBinding& b) {
        if (b.resource_type != resource_type)
            return;
        type_has_acls = true;
        if (b.principal != principal && b.principal != kWildcardPrincipal)
            return;
        if (b.host != host && b.host != kWildcardHost)
            return;
        if (b.operation != operation && b.operation != AclOperation::all)
            return;
        (b.permission == AclPermission::deny ? denies : allows).push_back(b);
    });
    if (!type_has_acls)
        return settings_.allow_everyone_if_no_acl_found;
    const auto covered = [&](const AclBinding& allow) {
        return std::any_of(denies.begin(), denies.end(), [&](const AclBinding& deny) {
            if (deny.pattern_type == PatternType::literal)
                return deny.resource_name == kWildcardResource ||
                       (allow.pattern_type == PatternType::literal &&
                        deny.resource_name == allow.resource_name);
            return deny.pattern_type == PatternType::prefixed &&
                   std::string_view(allow.resource_name).starts_with(deny.resource_name);
        });
    };
    return std::any_of(allows.begin(), allows.end(),
                       [&](const AclBinding& allow) { return !covered(allow); });
}

}  // namespace skiff::broker::security
