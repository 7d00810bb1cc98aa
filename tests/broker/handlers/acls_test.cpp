// CreateAcls, DescribeAcls and DeleteAcls: SECURITY_DISABLED without an authorizer (Kafka's
// "No Authorizer is configured."), per-creation INVALID_REQUEST for bindings Kafka refuses,
// describe with literal / prefixed / MATCH / ANY filters grouped by resource pattern, delete
// returning what each filter removed, v0's implied LITERAL, and ACLs surviving a restart.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/acls.h"

namespace skiff::broker::test {
namespace {

using protocol::AclFilter;
using protocol::CreatableAcl;
using protocol::CreateAclsRequest;
using protocol::DeleteAclsRequest;
using protocol::DescribeAclsRequest;

// Kafka's codes.
constexpr int8_t kAny = 1;
constexpr int8_t kTopic = 2, kGroup = 3, kCluster = 4;
constexpr int8_t kMatch = 2, kLiteral = 3, kPrefixed = 4;
constexpr int8_t kAll = 2, kRead = 3, kWrite = 4;
constexpr int8_t kDeny = 2, kAllow = 3;

CreatableAcl creatable(int8_t type, std::string name, int8_t pattern, std::string principal,
                       int8_t op, int8_t permission = kAllow, std::string host = "*") {
    return {type, std::move(name), pattern, std::move(principal), std::move(host), op, permission};
}

DescribeAclsRequest describe_filter(int8_t type, std::optional<std::string> name, int8_t pattern) {
    DescribeAclsRequest r;
    r.resource_type_filter = type;
    r.resource_name_filter = std::move(name);
    r.pattern_type_filter = pattern;
    r.operation = kAny;
    r.permission_type = kAny;
    return r;
}

AclFilter delete_filter(int8_t type, std::optional<std::string> name, int8_t pattern) {
    AclFilter f;
    f.resource_type_filter = type;
    f.resource_name_filter = std::move(name);
    f.pattern_type_filter = pattern;
    f.operation = kAny;
    f.permission_type = kAny;
    return f;
}

class AclsTest : public HandlerTest {
  protected:
    void enable() {
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        // The test's client (anonymous) administers the ACLs: cluster ALTER / DESCRIBE.
        config.super_users = "User:ANONYMOUS";
    }
    void create_ok(std::vector<CreatableAcl> acls, int16_t version = 3) {
        CreateAclsRequest req;
        req.creations = std::move(acls);
        auto resp = run(handle_create_acls, req, version);
        ASSERT_EQ(resp.results.size(), req.creations.size());
        for (const auto& r : resp.results)
            ASSERT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    }
    void seed() {
        create_ok({creatable(kTopic, "orders", kLiteral, "User:alice", kRead),
                   creatable(kTopic, "orders", kLiteral, "User:bob", kWrite, kDeny, "10.0.0.1"),
                   creatable(kTopic, "orders-", kPrefixed, "User:alice", kWrite),
                   creatable(kTopic, "*", kLiteral, "User:ops", kAll),
                   creatable(kGroup, "g1", kLiteral, "User:alice", kRead),
                   creatable(kCluster, "kafka-cluster", kLiteral, "User:ops", kAll)});
    }
    size_t count(const protocol::DescribeAclsResponse& resp) {
        size_t n = 0;
        for (const auto& r : resp.resources)
            n += r.acls.size();
        return n;
    }
};

TEST_F(AclsTest, SecurityDisabledWithoutAuthorizer) {
    for (int16_t v = 0; v <= 3; ++v) {
        CreateAclsRequest create;
        create.creations = {creatable(kTopic, "t", kLiteral, "User:a", kRead),
                            creatable(kTopic, "u", kLiteral, "User:a", kRead)};
        auto c = run(handle_create_acls, create, v);
        ASSERT_EQ(c.results.size(), 2u);
        for (const auto& r : c.results) {
            EXPECT_EQ(r.error_code, ErrorCode::security_disabled);
            EXPECT_EQ(r.error_message, "No Authorizer is configured.");
        }
        auto d = run(handle_describe_acls, describe_filter(kAny, std::nullopt, kAny), v);
        EXPECT_EQ(d.error_code, ErrorCode::security_disabled);
        EXPECT_EQ(d.error_message, "No Authorizer is configured.");
        EXPECT_TRUE(d.resources.empty());
        DeleteAclsRequest del;
        del.filters = {delete_filter(kAny, std::nullopt, kAny)};
        auto x = run(handle_delete_acls, del, v);
        ASSERT_EQ(x.filter_results.size(), 1u);
        EXPECT_EQ(x.filter_results[0].error_code, ErrorCode::security_disabled);
        EXPECT_EQ(x.filter_results[0].error_message, "No Authorizer is configured.");
    }
    EXPECT_EQ(broker().authorizer(), nullptr);
}

TEST_F(AclsTest, CreateRefusesWhatKafkaRefuses) {
    enable();
    CreateAclsRequest req;
    req.creations = {creatable(kTopic, "good", kLiteral, "User:a", kRead),
                     creatable(kCluster, "other", kLiteral, "User:a", kAll),
                     creatable(kTopic, "", kLiteral, "User:a", kRead),
                     creatable(kAny, "t", kLiteral, "User:a", kRead),
                     creatable(kTopic, "t", kMatch, "User:a", kRead),
                     creatable(kTopic, "t", kLiteral, "User:a", kAny),
                     creatable(kTopic, "t", kLiteral, "User:a", kRead, kAny),
                     creatable(kTopic, "t", kLiteral, "alice", kRead),
                     creatable(kTopic, "t", kLiteral, "User:a", 99),
                     creatable(42, "t", kLiteral, "User:a", kRead)};
    auto resp = run(handle_create_acls, req, 3);
    ASSERT_EQ(resp.results.size(), req.creations.size());
    EXPECT_EQ(resp.results[0].error_code, ErrorCode::none);
    EXPECT_FALSE(resp.results[0].error_message);
    for (size_t i = 1; i < resp.results.size(); ++i)
        EXPECT_EQ(resp.results[i].error_code, ErrorCode::invalid_request) << i;
    EXPECT_EQ(resp.results[1].error_message,
              "The only valid name for the CLUSTER resource is kafka-cluster");
    EXPECT_EQ(resp.results[2].error_message, "Invalid empty resource name");
    EXPECT_EQ(resp.results[3].error_message, "Invalid resourceType ANY");
    EXPECT_EQ(resp.results[4].error_message, "Invalid patternType MATCH");
    EXPECT_EQ(resp.results[5].error_message, "Invalid operation ANY");
    EXPECT_EQ(resp.results[6].error_message, "Invalid permissionType ANY");
    EXPECT_EQ(resp.results[8].error_message, "Invalid operation UNKNOWN");
    EXPECT_EQ(resp.results[9].error_message, "Invalid resourceType UNKNOWN");
    auto all = run(handle_describe_acls, describe_filter(kAny, std::nullopt, kAny), 3);
    EXPECT_EQ(count(all), 1u);
}

TEST_F(AclsTest, DescribeFilters) {
    enable();
    seed();
    auto all = run(handle_describe_acls, describe_filter(kAny, std::nullopt, kAny), 3);
    EXPECT_EQ(all.error_code, ErrorCode::none);
    EXPECT_EQ(count(all), 6u);
    // Grouped by resource pattern: topic "*", "orders" (2 ACLs), "orders-" prefixed, group,
    // cluster.
    ASSERT_EQ(all.resources.size(), 5u);

    auto literal = run(handle_describe_acls, describe_filter(kTopic, "orders", kLiteral), 3);
    ASSERT_EQ(literal.resources.size(), 1u);
    EXPECT_EQ(literal.resources[0].resource_name, "orders");
    EXPECT_EQ(literal.resources[0].pattern_type, kLiteral);
    ASSERT_EQ(literal.resources[0].acls.size(), 2u);
    EXPECT_EQ(literal.resources[0].acls[0].principal, "User:alice");
    EXPECT_EQ(literal.resources[0].acls[1].principal, "User:bob");
    EXPECT_EQ(literal.resources[0].acls[1].host, "10.0.0.1");
    EXPECT_EQ(literal.resources[0].acls[1].permission_type, kDeny);

    auto prefixed = run(handle_describe_acls, describe_filter(kTopic, "orders-", kPrefixed), 3);
    ASSERT_EQ(prefixed.resources.size(), 1u);
    EXPECT_EQ(prefixed.resources[0].pattern_type, kPrefixed);

    // MATCH: what applies to topic "orders-eu": the prefixed ACL and the literal wildcard.
    auto match = run(handle_describe_acls, describe_filter(kTopic, "orders-eu", kMatch), 3);
    ASSERT_EQ(match.resources.size(), 2u);
    EXPECT_EQ(match.resources[0].resource_name, "*");
    EXPECT_EQ(match.resources[1].resource_name, "orders-");

    auto by_principal = describe_filter(kAny, std::nullopt, kAny);
    by_principal.principal_filter = "User:ops";
    EXPECT_EQ(count(run(handle_describe_acls, by_principal, 3)), 2u);
    auto by_op = describe_filter(kTopic, std::nullopt, kAny);
    by_op.operation = kWrite;
    by_op.permission_type = kAllow;
    EXPECT_EQ(count(run(handle_describe_acls, by_op, 3)), 1u);

    // v0 has no pattern type: LITERAL only.
    auto v0 = run(handle_describe_acls, describe_filter(kTopic, std::nullopt, kAny), 0);
    EXPECT_EQ(count(v0), 3u);

    auto unknown = describe_filter(kAny, std::nullopt, kAny);
    unknown.operation = 0;
    auto bad = run(handle_describe_acls, unknown, 2);
    EXPECT_EQ(bad.error_code, ErrorCode::invalid_request);
    EXPECT_EQ(bad.error_message, "Unknown entryFilter.");
}

TEST_F(AclsTest, DeleteReturnsTheRemovedBindings) {
    enable();
    seed();
    DeleteAclsRequest req;
    auto alice = delete_filter(kAny, std::nullopt, kAny);
    alice.principal_filter = "User:alice";
    auto nothing = delete_filter(kTopic, "nope", kLiteral);
    auto unknown = delete_filter(kTopic, std::nullopt, 0);
    req.filters = {alice, nothing, unknown};
    auto resp = run(handle_delete_acls, req, 3);
    ASSERT_EQ(resp.filter_results.size(), 3u);
    EXPECT_EQ(resp.filter_results[0].error_code, ErrorCode::none);
    ASSERT_EQ(resp.filter_results[0].matching_acls.size(), 3u);
    for (const auto& m : resp.filter_results[0].matching_acls) {
        EXPECT_EQ(m.principal, "User:alice");
        EXPECT_EQ(m.error_code, ErrorCode::none);
    }
    EXPECT_EQ(resp.filter_results[0].matching_acls[1].resource_name, "orders-");
    EXPECT_EQ(resp.filter_results[0].matching_acls[1].pattern_type, kPrefixed);
    EXPECT_EQ(resp.filter_results[0].matching_acls[1].operation, kWrite);
    EXPECT_EQ(resp.filter_results[1].error_code, ErrorCode::none);
    EXPECT_TRUE(resp.filter_results[1].matching_acls.empty());
    EXPECT_EQ(resp.filter_results[2].error_code, ErrorCode::invalid_request);
    EXPECT_EQ(resp.filter_results[2].error_message, "Unknown patternFilter.");
    auto left = run(handle_describe_acls, describe_filter(kAny, std::nullopt, kAny), 3);
    EXPECT_EQ(count(left), 3u);

    // MATCH deletes every pattern that applies to the named resource.
    DeleteAclsRequest match;
    match.filters = {delete_filter(kTopic, "orders", kMatch)};
    auto m = run(handle_delete_acls, match, 2);
    ASSERT_EQ(m.filter_results.size(), 1u);
    EXPECT_EQ(m.filter_results[0].matching_acls.size(), 2u);  // bob's DENY and ops' "*"
    EXPECT_EQ(count(run(handle_describe_acls, describe_filter(kAny, std::nullopt, kAny), 3)), 1u);
}

TEST_F(AclsTest, V0CreatesLiteral) {
    enable();
    create_ok({creatable(kTopic, "t", kPrefixed, "User:a", kRead)}, 0);  // pattern not sent in v0
    auto d = run(handle_describe_acls, describe_filter(kTopic, "t", kLiteral), 1);
    ASSERT_EQ(d.resources.size(), 1u);
    EXPECT_EQ(d.resources[0].pattern_type, kLiteral);
}

TEST_F(AclsTest, AclsSurviveRestartAndAuthorize) {
    enable();
    config.super_users = "User:admin;User:ANONYMOUS";
    seed();
    restart();
    auto all = run(handle_describe_acls, describe_filter(kAny, std::nullopt, kAny), 3);
    EXPECT_EQ(count(all), 6u);
    auto* authorizer = broker().authorizer();
    ASSERT_NE(authorizer, nullptr);
    using security::AclOperation;
    using security::ResourceType;
    EXPECT_TRUE(authorizer->authorize("User:alice", "1.1.1.1", AclOperation::write,
                                      ResourceType::topic, "orders-eu"));
    EXPECT_FALSE(authorizer->authorize("User:bob", "10.0.0.1", AclOperation::write,
                                       ResourceType::topic, "orders"));
    EXPECT_TRUE(authorizer->authorize("User:admin", "h", AclOperation::alter, ResourceType::cluster,
                                      "kafka-cluster"));
}

}  // namespace
}  // namespace skiff::broker::test
