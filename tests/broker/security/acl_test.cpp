// The ACL model (broker/security/acl.h): Kafka's enum codes and names, binding filters matched
// with Kafka's rules (ANY, MATCH, null fields) and the checks on a binding to create.
#include "broker/security/acl.h"

#include <gtest/gtest.h>

namespace skiff::broker::security {
namespace {

AclBinding acl_binding(ResourceType type, std::string name, PatternType pattern,
                       std::string principal = "User:alice", std::string host = "*",
                       AclOperation op = AclOperation::read,
                       AclPermission permission = AclPermission::allow) {
    AclBinding b;
    b.resource_type = type;
    b.resource_name = std::move(name);
    b.pattern_type = pattern;
    b.principal = std::move(principal);
    b.host = std::move(host);
    b.operation = op;
    b.permission = permission;
    return b;
}

TEST(AclModel, KafkaCodes) {
    EXPECT_EQ(resource_type_from_code(2), ResourceType::topic);
    EXPECT_EQ(resource_type_from_code(3), ResourceType::group);
    EXPECT_EQ(resource_type_from_code(4), ResourceType::cluster);
    EXPECT_EQ(resource_type_from_code(5), ResourceType::transactional_id);
    EXPECT_EQ(resource_type_from_code(6), ResourceType::delegation_token);
    EXPECT_EQ(resource_type_from_code(7), ResourceType::user);
    EXPECT_EQ(resource_type_from_code(8), ResourceType::unknown);
    EXPECT_EQ(resource_type_from_code(-1), ResourceType::unknown);
    EXPECT_EQ(pattern_type_from_code(3), PatternType::literal);
    EXPECT_EQ(pattern_type_from_code(4), PatternType::prefixed);
    EXPECT_EQ(pattern_type_from_code(5), PatternType::unknown);
    EXPECT_EQ(acl_operation_from_code(6), AclOperation::remove);
    EXPECT_EQ(acl_operation_from_code(12), AclOperation::idempotent_write);
    EXPECT_EQ(acl_operation_from_code(16), AclOperation::unknown);
    EXPECT_EQ(acl_permission_from_code(2), AclPermission::deny);
    EXPECT_EQ(acl_permission_from_code(3), AclPermission::allow);
    EXPECT_EQ(acl_permission_from_code(4), AclPermission::unknown);
}

TEST(AclModel, NamesRoundTrip) {
    for (int8_t c = 0; c <= 7; ++c)
        EXPECT_EQ(parse_resource_type(name_of(resource_type_from_code(c))),
                  resource_type_from_code(c));
    for (int8_t c = 0; c <= 15; ++c)
        EXPECT_EQ(parse_acl_operation(name_of(acl_operation_from_code(c))),
                  acl_operation_from_code(c));
    EXPECT_EQ(name_of(AclOperation::remove), "DELETE");
    EXPECT_EQ(name_of(AclOperation::describe_configs), "DESCRIBE_CONFIGS");
    EXPECT_EQ(parse_pattern_type("prefixed"), PatternType::prefixed);
    EXPECT_EQ(parse_acl_permission("Deny"), AclPermission::deny);
    EXPECT_FALSE(parse_acl_permission("MAYBE"));
}

TEST(AclFilter, AnyMatchesEverything) {
    AclBindingFilter any;
    EXPECT_TRUE(any.matches(acl_binding(ResourceType::topic, "t", PatternType::literal)));
    EXPECT_TRUE(
        any.matches(acl_binding(ResourceType::group, "g-", PatternType::prefixed, "User:bob",
                                "1.2.3.4", AclOperation::all, AclPermission::deny)));
}

TEST(AclFilter, LiteralAndPrefixedFiltersCompareNamesExactly) {
    const auto literal = acl_binding(ResourceType::topic, "orders", PatternType::literal);
    const auto prefixed = acl_binding(ResourceType::topic, "ord", PatternType::prefixed);
    AclBindingFilter f;
    f.resource_type = ResourceType::topic;
    f.resource_name = "orders";
    f.pattern_type = PatternType::literal;
    EXPECT_TRUE(f.matches(literal));
    EXPECT_FALSE(f.matches(prefixed));
    f.pattern_type = PatternType::prefixed;
    EXPECT_FALSE(f.matches(literal));
    EXPECT_FALSE(f.matches(prefixed));  // "ord" != "orders": a PREFIXED filter is exact too
    f.resource_name = "ord";
    EXPECT_TRUE(f.matches(prefixed));
    f.pattern_type = PatternType::any;  // any pattern type, exact name
    EXPECT_TRUE(f.matches(prefixed));
    EXPECT_FALSE(f.matches(literal));
    f.resource_name.reset();  // any name
    EXPECT_TRUE(f.matches(literal));
    f.resource_type = ResourceType::group;
    EXPECT_FALSE(f.matches(literal));
}

TEST(AclFilter, MatchFindsEveryPatternThatApplies) {
    AclBindingFilter f;
    f.resource_type = ResourceType::topic;
    f.resource_name = "orders-eu";
    f.pattern_type = PatternType::match;
    EXPECT_TRUE(f.matches(acl_binding(ResourceType::topic, "orders-eu", PatternType::literal)));
    EXPECT_TRUE(f.matches(acl_binding(ResourceType::topic, "*", PatternType::literal)));
    EXPECT_TRUE(f.matches(acl_binding(ResourceType::topic, "orders-", PatternType::prefixed)));
    EXPECT_TRUE(f.matches(acl_binding(ResourceType::topic, "orders-eu", PatternType::prefixed)));
    EXPECT_FALSE(f.matches(acl_binding(ResourceType::topic, "orders", PatternType::literal)));
    EXPECT_FALSE(f.matches(acl_binding(ResourceType::topic, "orders-eu-1", PatternType::prefixed)));
    EXPECT_FALSE(f.matches(acl_binding(ResourceType::group, "orders-eu", PatternType::literal)));
    f.resource_name.reset();  // MATCH without a name: every pattern
    EXPECT_TRUE(f.matches(acl_binding(ResourceType::topic, "x", PatternType::prefixed)));
}

TEST(AclFilter, EntryFields) {
    const auto b = acl_binding(ResourceType::topic, "t", PatternType::literal, "User:alice",
                               "10.0.0.1", AclOperation::write, AclPermission::deny);
    AclBindingFilter f;
    f.principal = "User:alice";
    EXPECT_TRUE(f.matches(b));
    f.principal = "User:*";  // a filter's principal is compared exactly, not as a wildcard
    EXPECT_FALSE(f.matches(b));
    f.principal.reset();
    f.host = "10.0.0.1";
    EXPECT_TRUE(f.matches(b));
    f.host = "*";
    EXPECT_FALSE(f.matches(b));
    f.host.reset();
    f.operation = AclOperation::write;
    EXPECT_TRUE(f.matches(b));
    f.operation = AclOperation::all;  // ALL is a value like any other in a filter
    EXPECT_FALSE(f.matches(b));
    f.operation = AclOperation::any;
    f.permission = AclPermission::allow;
    EXPECT_FALSE(f.matches(b));
    f.permission = AclPermission::deny;
    EXPECT_TRUE(f.matches(b));
}

TEST(AclFilter, UnknownElementsAreInvalid) {
    AclBindingFilter f;
    EXPECT_FALSE(f.invalid_reason());
    f.resource_type = ResourceType::unknown;
    EXPECT_EQ(f.invalid_reason(), "Unknown patternFilter.");
    f = {};
    f.pattern_type = PatternType::unknown;
    EXPECT_EQ(f.invalid_reason(), "Unknown patternFilter.");
    f = {};
    f.operation = AclOperation::unknown;
    EXPECT_EQ(f.invalid_reason(), "Unknown entryFilter.");
    f = {};
    f.permission = AclPermission::unknown;
    EXPECT_EQ(f.invalid_reason(), "Unknown entryFilter.");
}

TEST(AclBindingCheck, KafkaRefusals) {
    EXPECT_FALSE(
        invalid_binding_reason(acl_binding(ResourceType::topic, "t", PatternType::literal)));
    EXPECT_FALSE(invalid_binding_reason(
        acl_binding(ResourceType::cluster, "kafka-cluster", PatternType::literal)));
    EXPECT_FALSE(invalid_binding_reason(
        acl_binding(ResourceType::delegation_token, "tok", PatternType::literal)));
    EXPECT_FALSE(
        invalid_binding_reason(acl_binding(ResourceType::user, "User:x", PatternType::literal)));
    EXPECT_EQ(invalid_binding_reason(acl_binding(ResourceType::cluster, "c", PatternType::literal)),
              "The only valid name for the CLUSTER resource is kafka-cluster");
    EXPECT_EQ(invalid_binding_reason(acl_binding(ResourceType::topic, "", PatternType::literal)),
              "Invalid empty resource name");
    EXPECT_EQ(invalid_binding_reason(acl_binding(ResourceType::any, "t", PatternType::literal)),
              "Invalid resourceType ANY");
    EXPECT_EQ(invalid_binding_reason(acl_binding(ResourceType::unknown, "t", PatternType::literal)),
              "Invalid resourceType UNKNOWN");
    EXPECT_EQ(invalid_binding_reason(acl_binding(ResourceType::topic, "t", PatternType::match)),
              "Invalid patternType MATCH");
    EXPECT_EQ(invalid_binding_reason(acl_binding(ResourceType::topic, "t", PatternType::any)),
              "Invalid patternType ANY");
    EXPECT_EQ(invalid_binding_reason(acl_binding(ResourceType::topic, "t", PatternType::literal,
                                                 "User:a", "*", AclOperation::any)),
              "Invalid operation ANY");
    EXPECT_EQ(
        invalid_binding_reason(acl_binding(ResourceType::topic, "t", PatternType::literal, "User:a",
                                           "*", AclOperation::read, AclPermission::any)),
        "Invalid permissionType ANY");
    auto why = invalid_binding_reason(
        acl_binding(ResourceType::topic, "t", PatternType::literal, "alice"));
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("no colon"), std::string::npos);
}

}  // namespace
}  // namespace skiff::broker::security
