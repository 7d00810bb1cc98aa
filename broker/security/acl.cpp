#include "broker/security/acl.h"

#include <array>
#include <cctype>
#include <utility>

namespace skiff::broker::security {
namespace {

constexpr std::array<std::string_view, 8> kResourceTypeNames = {
    "UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"};
constexpr std::array<std::string_view, 5> kPatternTypeNames = {"UNKNOWN", "ANY", "MATCH", "LITERAL",
                                                               "PREFIXED"};
constexpr std::array<std::string_view, 16> kAclOperationNames = {"UNKNOWN",
                                                                 "ANY",
                                                                 "ALL",
                                                                 "READ",
                                                                 "WRITE",
                                                                 "CREATE",
                                                                 "DELETE",
                                                                 "ALTER",
                                                                 "DESCRIBE",
                                                                 "CLUSTER_ACTION",
                                                                 "DESCRIBE_CONFIGS",
                                                                 "ALTER_CONFIGS",
                                                                 "IDEMPOTENT_WRITE",
                                                                 "CREATE_TOKENS",
                                                                 "DESCRIBE_TOKENS",
                                                                 "TWO_PHASE_COMMIT"};
constexpr std::array<std::string_view, 4> kAclPermissionNames = {"UNKNOWN", "ANY", "DENY", "ALLOW"};

template <class E, size_t N>
E acl_enum_from_code(int8_t code) {
    return code >= 0 && static_cast<size_t>(code) < N ? static_cast<E>(code) : E::unknown;
}

template <class E, size_t N>
std::string_view acl_enum_name(const std::array<std::string_view, N>& names, E value) {
    const int code = static_cast<int>(value);  // Kafka's code: the enum's int8_t value
    return code >= 0 && static_cast<size_t>(code) < N ? names[static_cast<size_t>(code)] : names[0];
}

bool acl_name_equals(std::string_view a, std::string_view b) {
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::toupper(static_cast<unsigned char>(a[i])) !=
            std::toupper(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

template <class E, size_t N>
std::optional<E> acl_enum_parse(const std::array<std::string_view, N>& names,
                                std::string_view text) {
    for (size_t i = 0; i < N; ++i)
        if (acl_name_equals(names[i], text))
            return static_cast<E>(static_cast<int8_t>(i));
    return std::nullopt;
}

// ResourcePatternFilter.matches.
bool pattern_filter_matches(const AclBindingFilter& f, const AclBinding& b) {
    if (f.resource_type != ResourceType::any && f.resource_type != b.resource_type)
        return false;
    if (f.pattern_type != PatternType::any && f.pattern_type != PatternType::match &&
        f.pattern_type != b.pattern_type)
        return false;
    if (!f.resource_name)
        return true;
    const std::string& name = *f.resource_name;
    if (f.pattern_type == PatternType::any || f.pattern_type == b.pattern_type)
        return name == b.resource_name;
    // MATCH: every pattern that applies to the resource called `name`.
    switch (b.pattern_type) {
        case PatternType::literal:
            return name == b.resource_name || b.resource_name == kWildcardResource;
        case PatternType::prefixed:
            return name.starts_with(b.resource_name);
        default:
            return false;
    }
}

// AccessControlEntryFilter.matches.
bool entry_filter_matches(const AclBindingFilter& f, const AclBinding& b) {
    if (f.principal && *f.principal != b.principal)
        return false;
    if (f.host && *f.host != b.host)
        return false;
    if (f.operation != AclOperation::any && f.operation != b.operation)
        return false;
    return f.permission == AclPermission::any || f.permission == b.permission;
}

}  // namespace

ResourceType resource_type_from_code(int8_t code) {
    return acl_enum_from_code<ResourceType, kResourceTypeNames.size()>(code);
}
PatternType pattern_type_from_code(int8_t code) {
    return acl_enum_from_code<PatternType, kPatternTypeNames.size()>(code);
}
AclOperation acl_operation_from_code(int8_t code) {
    return acl_enum_from_code<AclOperation, kAclOperationNames.size()>(code);
}
AclPermission acl_permission_from_code(int8_t code) {
    return acl_enum_from_code<AclPermission, kAclPermissionNames.size()>(code);
}

std::string_view name_of(ResourceType t) {
    return acl_enum_name(kResourceTypeNames, t);
}
std::string_view name_of(PatternType t) {
    return acl_enum_name(kPatternTypeNames, t);
}
std::string_view name_of(AclOperation op) {
    return acl_enum_name(kAclOperationNames, op);
}
std::string_view name_of(AclPermission p) {
    return acl_enum_name(kAclPermissionNames, p);
}

std::optional<ResourceType> parse_resource_type(std::string_view name) {
    return acl_enum_parse<ResourceType>(kResourceTypeNames, name);
}
std::optional<PatternType> parse_pattern_type(std::string_view name) {
    return acl_enum_parse<PatternType>(kPatternTypeNames, name);
}
std::optional<AclOperation> parse_acl_operation(std::string_view name) {
    return acl_enum_parse<AclOperation>(kAclOperationNames, name);
}
std::optional<AclPermission> parse_acl_permission(std::string_view name) {
    return acl_enum_parse<AclPermission>(kAclPermissionNames, name);
}

bool AclBindingFilter::matches(const AclBinding& binding) const {
    return pattern_filter_matches(*this, binding) && entry_filter_matches(*this, binding);
}

std::optional<std::string> AclBindingFilter::invalid_reason() const {
    if (resource_type == ResourceType::unknown || pattern_type == PatternType::unknown)
        return "Unknown patternFilter.";
    if (operation == AclOperation::unknown || permission == AclPermission::unknown)
        return "Unknown entryFilter.";
    return std::nullopt;
}

std::optional<std::string> invalid_binding_reason(const AclBinding& b) {
    // AclApis.handleCreateAcls first, then AclControlManager.validateNewAcl, in Kafka's order.
    if (b.resource_type == ResourceType::cluster && b.resource_name != kClusterResourceName)
        return "The only valid name for the CLUSTER resource is " +
               std::string(kClusterResourceName);
    if (b.resource_name.empty())
        return "Invalid empty resource name";
    if (b.resource_type == ResourceType::unknown || b.resource_type == ResourceType::any)
        return "Invalid resourceType " + std::string(name_of(b.resource_type));
    if (b.pattern_type != PatternType::literal && b.pattern_type != PatternType::prefixed)
        return "Invalid patternType " + std::string(name_of(b.pattern_type));
    if (b.operation == AclOperation::unknown || b.operation == AclOperation::any)
        return "Invalid operation " + std::string(name_of(b.operation));
    if (b.permission != AclPermission::allow && b.permission != AclPermission::deny)
        return "Invalid permissionType " + std::string(name_of(b.permission));
    if (b.principal.find(':') == std::string::npos)
        return "Could not parse principal from `" + b.principal +
               "` (no colon is present separating the principal type from the principal name)";
    return std::nullopt;
}

}  // namespace skiff::broker::security
