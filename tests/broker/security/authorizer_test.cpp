// The authorization check (broker/security/authorizer.h) with Kafka's rules: super users, deny
// wins, wildcard resource / principal / host, prefixed patterns, implied operations, ALL, and
// allow.everyone.if.no.acl.found. No handler calls it yet; these tests pin its behaviour.
#include "broker/security/authorizer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <stdexcept>

namespace skiff::broker::security {
namespace {

namespace fs = std::filesystem;

AclBinding rule(ResourceType type, std::string name, PatternType pattern, std::string principal,
                AclOperation op, AclPermission permission = AclPermission::allow,
                std::string host = "*") {
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

class AuthorizerTest : public ::testing::Test {
  protected:
    AuthorizerTest() {
        std::string t = (fs::temp_directory_path() / "skiff-authorizer-XXXXXX").string();
        if (!mkdtemp(t.data()))
            throw std::runtime_error("mkdtemp failed");
        dir_ = t;
    }
    ~AuthorizerTest() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    Authorizer make(AuthorizerSettings settings = {}) {
        return Authorizer(dir_, std::move(settings));
    }
    fs::path dir_;
};

constexpr auto kTopic = ResourceType::topic;
constexpr auto kLiteral = PatternType::literal;
constexpr auto kPrefixed = PatternType::prefixed;

TEST(SuperUsers, KafkaFormat) {
    EXPECT_EQ(parse_super_users(""), std::vector<std::string>{});
    EXPECT_EQ(parse_super_users("User:admin"), std::vector<std::string>{"User:admin"});
    EXPECT_EQ(parse_super_users(" User:admin ; User:ops;;"),
              (std::vector<std::string>{"User:admin", "User:ops"}));
    EXPECT_EQ(parse_super_users("User:CN=a b,O=x;User:y"),
              (std::vector<std::string>{"User:CN=a b,O=x", "User:y"}));
}

TEST_F(AuthorizerTest, NoAclsDeniesByDefault) {
    auto a = make();
    EXPECT_FALSE(a.authorize("User:alice", "1.2.3.4", AclOperation::read, kTopic, "t"));
}

TEST_F(AuthorizerTest, AllowEveryoneIfNoAclFound) {
    auto a = make({.super_users = {}, .allow_everyone_if_no_acl_found = true});
    EXPECT_TRUE(a.authorize("User:alice", "1.2.3.4", AclOperation::read, kTopic, "t"));
    // Any ACL on the resource, even for someone else, takes that away.
    ASSERT_FALSE(a.acls().add({rule(kTopic, "t", kLiteral, "User:bob", AclOperation::read)}));
    EXPECT_FALSE(a.authorize("User:alice", "1.2.3.4", AclOperation::read, kTopic, "t"));
    EXPECT_TRUE(a.authorize("User:bob", "1.2.3.4", AclOperation::read, kTopic, "t"));
    // Another resource still has none.
    EXPECT_TRUE(a.authorize("User:alice", "1.2.3.4", AclOperation::read, kTopic, "u"));
    // A prefixed ACL covering the resource counts as an ACL on it.
    ASSERT_FALSE(a.acls().add({rule(kTopic, "u", kPrefixed, "User:bob", AclOperation::read)}));
    EXPECT_FALSE(a.authorize("User:alice", "1.2.3.4", AclOperation::read, kTopic, "u1"));
}

TEST_F(AuthorizerTest, SuperUsersAreAllowedEverything) {
    auto a = make({.super_users = {"User:admin"}, .allow_everyone_if_no_acl_found = false});
    ASSERT_FALSE(a.acls().add(
        {rule(kTopic, "*", kLiteral, "User:*", AclOperation::all, AclPermission::deny)}));
    EXPECT_TRUE(a.authorize("User:admin", "1.2.3.4", AclOperation::write, kTopic, "t"));
    EXPECT_TRUE(a.authorize("User:admin", "h", AclOperation::alter, ResourceType::cluster,
                            "kafka-cluster"));
    EXPECT_FALSE(a.authorize("User:administrator", "h", AclOperation::write, kTopic, "t"));
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::write, kTopic, "t"));
}

TEST_F(AuthorizerTest, LiteralPrefixedAndWildcardResources) {
    auto a = make();
    ASSERT_FALSE(
        a.acls().add({rule(kTopic, "orders", kLiteral, "User:alice", AclOperation::read),
                      rule(kTopic, "logs-", kPrefixed, "User:alice", AclOperation::write),
                      rule(ResourceType::group, "*", kLiteral, "User:alice", AclOperation::read)}));
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::read, kTopic, "orders"));
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::read, kTopic, "orders2"));
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::write, kTopic, "logs-"));
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::write, kTopic, "logs-eu"));
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::write, kTopic, "logs"));
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::read, ResourceType::group, "any"));
    // The resource type must agree.
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::read, ResourceType::transactional_id,
                             "orders"));
    // A literal "*" is the wildcard only when literal; a prefixed "*" means names starting with *.
    ASSERT_FALSE(a.acls().add({rule(kTopic, "*", kPrefixed, "User:bob", AclOperation::read)}));
    EXPECT_FALSE(a.authorize("User:bob", "h", AclOperation::read, kTopic, "orders"));
    EXPECT_TRUE(a.authorize("User:bob", "h", AclOperation::read, kTopic, "*x"));
}

TEST_F(AuthorizerTest, PrincipalAndHostMatching) {
    auto a = make();
    ASSERT_FALSE(a.acls().add({rule(kTopic, "t", kLiteral, "User:*", AclOperation::read),
                               rule(kTopic, "u", kLiteral, "User:alice", AclOperation::read,
                                    AclPermission::allow, "10.0.0.1")}));
    EXPECT_TRUE(a.authorize("User:anyone", "h", AclOperation::read, kTopic, "t"));
    EXPECT_FALSE(a.authorize("Group:x", "h", AclOperation::read, kTopic, "u"));
    EXPECT_TRUE(a.authorize("User:alice", "10.0.0.1", AclOperation::read, kTopic, "u"));
    EXPECT_FALSE(a.authorize("User:alice", "10.0.0.2", AclOperation::read, kTopic, "u"));
    EXPECT_FALSE(a.authorize("User:bob", "10.0.0.1", AclOperation::read, kTopic, "u"));
}

TEST_F(AuthorizerTest, DenyWins) {
    auto a = make();
    ASSERT_FALSE(a.acls().add(
        {rule(kTopic, "*", kLiteral, "User:*", AclOperation::all),
         rule(kTopic, "secret-", kPrefixed, "User:alice", AclOperation::read, AclPermission::deny),
         rule(kTopic, "t", kLiteral, "User:bob", AclOperation::all, AclPermission::deny,
              "10.0.0.9")}));
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::read, kTopic, "public"));
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::read, kTopic, "secret-1"));
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::write, kTopic, "secret-1"));
    // Deny of READ does not deny the DESCRIBE it would imply when allowed.
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::describe, kTopic, "secret-1"));
    EXPECT_TRUE(a.authorize("User:carol", "h", AclOperation::read, kTopic, "secret-1"));
    // DENY ALL from one host.
    EXPECT_FALSE(a.authorize("User:bob", "10.0.0.9", AclOperation::describe, kTopic, "t"));
    EXPECT_TRUE(a.authorize("User:bob", "10.0.0.8", AclOperation::describe, kTopic, "t"));
    // A wildcard-principal DENY reaches everyone but super users.
    ASSERT_FALSE(a.acls().add(
        {rule(kTopic, "t", kLiteral, "User:*", AclOperation::write, AclPermission::deny)}));
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::write, kTopic, "t"));
}

TEST_F(AuthorizerTest, ImpliedOperations) {
    auto a = make();
    for (auto op :
         {AclOperation::read, AclOperation::write, AclOperation::remove, AclOperation::alter}) {
        // Appended piecewise: g++ 12 reports a false -Wrestrict on "t" + std::to_string(...).
        std::string name = "t";
        name += std::to_string(static_cast<int>(op));
        ASSERT_FALSE(a.acls().add({rule(kTopic, name, kLiteral, "User:alice", op)}));
        EXPECT_TRUE(a.authorize("User:alice", "h", op, kTopic, name));
        EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::describe, kTopic, name)) << name;
        EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::describe_configs, kTopic, name));
        EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::create, kTopic, name));
    }
    ASSERT_FALSE(
        a.acls().add({rule(kTopic, "c", kLiteral, "User:alice", AclOperation::alter_configs)}));
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::describe_configs, kTopic, "c"));
    EXPECT_TRUE(a.authorize("User:alice", "h", AclOperation::alter_configs, kTopic, "c"));
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::describe, kTopic, "c"));
    // DESCRIBE does not imply READ; CREATE implies nothing.
    ASSERT_FALSE(a.acls().add({rule(kTopic, "d", kLiteral, "User:alice", AclOperation::describe),
                               rule(kTopic, "e", kLiteral, "User:alice", AclOperation::create)}));
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::read, kTopic, "d"));
    EXPECT_FALSE(a.authorize("User:alice", "h", AclOperation::describe, kTopic, "e"));
    // ALL grants every operation.
    ASSERT_FALSE(a.acls().add(
        {rule(ResourceType::cluster, "kafka-cluster", kLiteral, "User:ops", AclOperation::all)}));
    for (auto op : {AclOperation::cluster_action, AclOperation::idempotent_write,
                    AclOperation::describe_configs, AclOperation::create})
        EXPECT_TRUE(a.authorize("User:ops", "h", op, ResourceType::cluster, "kafka-cluster"));
}

TEST_F(AuthorizerTest, AclsSurviveReopen) {
    {
        auto a = make();
        ASSERT_FALSE(a.acls().add({rule(kTopic, "t", kLiteral, "User:alice", AclOperation::read)}));
    }
    auto again = make();
    EXPECT_TRUE(again.authorize("User:alice", "h", AclOperation::read, kTopic, "t"));
}

}  // namespace
}  // namespace skiff::broker::security
