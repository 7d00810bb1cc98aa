// Kafka's ACL model: a binding (resource pattern + access control entry), a binding filter with
// Kafka's matching rules (ResourcePatternFilter / AccessControlEntryFilter), and the checks that a
// binding may be created (Kafka's AclApis.handleCreateAcls and AclControlManager.validateNewAcl).
// The enum values are the codes of Kafka's Java enums, as they travel in CreateAcls,
// DescribeAcls and DeleteAcls; a code Kafka does not know reads as `unknown`.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::broker::security {

enum class ResourceType : int8_t {
    unknown = 0,
    any = 1,
    topic = 2,
    group = 3,
    cluster = 4,
    transactional_id = 5,
    delegation_token = 6,
    user = 7,
};

enum class PatternType : int8_t {
    unknown = 0,
    any = 1,    // filters only: any pattern type, names compared exactly
    match = 2,  // filters only: every pattern that would apply to the named resource
    literal = 3,
    prefixed = 4,
};

enum class AclOperation : int8_t {
    unknown = 0,
    any = 1,  // filters only
    all = 2,
    read = 3,
    write = 4,
    create = 5,
    remove = 6,  // Kafka's DELETE
    alter = 7,
    describe = 8,
    cluster_action = 9,
    describe_configs = 10,
    alter_configs = 11,
    idempotent_write = 12,
    create_tokens = 13,
    describe_tokens = 14,
    two_phase_commit = 15,
};

enum class AclPermission : int8_t {
    unknown = 0,
    any = 1,  // filters only
    deny = 2,
    allow = 3,
};

// The name of the one CLUSTER resource, and the wildcards of Kafka's authorizer.
inline constexpr std::string_view kClusterResourceName = "kafka-cluster";
inline constexpr std::string_view kWildcardResource = "*";
inline constexpr std::string_view kWildcardPrincipal = "User:*";
inline constexpr std::string_view kWildcardHost = "*";

// Wire codes to enums: codes Kafka does not define become `unknown`.
ResourceType resource_type_from_code(int8_t code);
PatternType pattern_type_from_code(int8_t code);
AclOperation acl_operation_from_code(int8_t code);
AclPermission acl_permission_from_code(int8_t code);

// Kafka's names (TOPIC, PREFIXED, DESCRIBE_CONFIGS, ALLOW, ...) and back (case-insensitive;
// nullopt for an unknown name).
std::string_view name_of(ResourceType t);
std::string_view name_of(PatternType t);
std::string_view name_of(AclOperation op);
std::string_view name_of(AclPermission p);
std::optional<ResourceType> parse_resource_type(std::string_view name);
std::optional<PatternType> parse_pattern_type(std::string_view name);
std::optional<AclOperation> parse_acl_operation(std::string_view name);
std::optional<AclPermission> parse_acl_permission(std::string_view name);

struct AclBinding {
    ResourceType resource_type = ResourceType::topic;
    std::string resource_name;
    PatternType pattern_type = PatternType::literal;
    std::string principal;  // "User:alice", "User:*"
    std::string host = "*";
    AclOperation operation = AclOperation::all;
    AclPermission permission = AclPermission::allow;

    // clang-tidy 14 sees the `<=> 0` that a defaulted operator<=> is rewritten to as a null pointer
    auto operator<=>(const AclBinding&) const = default;  // NOLINT(modernize-use-nullptr)
    bool operator==(const AclBinding&) const = default;
};

// A null name, principal or host matches any; ANY matches every value of its enum.
struct AclBindingFilter {
    ResourceType resource_type = ResourceType::any;
    std::optional<std::string> resource_name;
    PatternType pattern_type = PatternType::any;
    std::optional<std::string> principal;
    std::optional<std::string> host;
    AclOperation operation = AclOperation::any;
    AclPermission permission = AclPermission::any;

    bool matches(const AclBinding& binding) const;
    // Kafka refuses a filter with an UNKNOWN element ("Unknown patternFilter." / "Unknown
    // entryFilter.", AclControlManager.validateFilter): that message, or nullopt.
    std::optional<std::string> invalid_reason() const;
};

// Why Kafka refuses to create `binding` (INVALID_REQUEST with this message), or nullopt.
std::optional<std::string> invalid_binding_reason(const AclBinding& binding);

}  // namespace skiff::broker::security
