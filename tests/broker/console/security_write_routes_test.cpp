// The console API's security writes (docs/console-api.md, "Cluster"): an ACL added with
// CreateAcls and removed with DeleteAcls, a SCRAM user's credential set and removed with
// AlterUserScramCredentials, all as the signed-in caller (ALTER on the cluster), malformed
// bodies refused before anything is sent, and none of it on a read-only console.
#include "tests/broker/console/console_topics_fixture.h"

namespace skiff::broker::test {
namespace {

using security::ScramMechanism;

const char* const kReadAcl =
    R"({"resource_type": "TOPIC", "resource_name": "orders", "principal": "User:alice",
        "operation": "READ"})";
const char* const kReadAclQuery =
    "/api/acls?resource_type=TOPIC&resource_name=orders&pattern_type=LITERAL"
    "&principal=User%3Aalice&host=*&operation=READ&permission=ALLOW";

TEST_F(ConsoleTopicsTest, AnAclIsAddedAndRemoved) {
    use_authorizer();
    create_topic("orders");
    EXPECT_EQ(as("alice", "GET", "/api/topics/orders").status, 403);
    auto r = as("admin", "POST", "/api/acls", kReadAcl);
    ASSERT_EQ(r.status, 201) << r.body;
    const nlohmann::json acl{{"resource_type", "TOPIC"},
                             {"resource_name", "orders"},
                             {"pattern_type", "LITERAL"},
                             {"principal", "User:alice"},
                             {"host", "*"},
                             {"operation", "READ"},
                             {"permission", "ALLOW"}};
    EXPECT_EQ(json_of(r), acl);  // the defaults filled in: LITERAL, host *, ALLOW
    EXPECT_EQ(json_of(as("admin", "GET", "/api/acls"))["acls"], nlohmann::json::array({acl}));
    // It is the authorizer's: READ implies DESCRIBE, so alice now sees the topic.
    EXPECT_EQ(as("alice", "GET", "/api/topics/orders").status, 200);

    r = as("admin", "DELETE", kReadAclQuery);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r)["deleted"], nlohmann::json::array({acl}));
    EXPECT_TRUE(json_of(as("admin", "GET", "/api/acls"))["acls"].empty());
    EXPECT_EQ(as("alice", "GET", "/api/topics/orders").status, 403);
    EXPECT_EQ(as("admin", "DELETE", kReadAclQuery).status, 404);
}

TEST_F(ConsoleTopicsTest, AclWritesNeedAlterOnTheClusterAndAWellFormedBinding) {
    use_authorizer();
    auto r = as("alice", "POST", "/api/acls", kReadAcl);
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "CLUSTER_AUTHORIZATION_FAILED");
    EXPECT_EQ(as("alice", "DELETE", kReadAclQuery).status, 403);
    for (const char* bad :
         {R"({"resource_type": "TABLE", "resource_name": "x", "principal": "User:a",
              "operation": "READ"})",
          R"({"resource_type": "TOPIC", "resource_name": "", "principal": "User:a",
              "operation": "READ"})",
          R"({"resource_type": "TOPIC", "resource_name": "x", "operation": "READ"})",
          R"({"resource_type": "TOPIC", "resource_name": "x", "principal": "User:a",
              "operation": "EAT"})",
          R"({"resource_type": "TOPIC", "resource_name": "x", "principal": "User:a",
              "operation": "READ", "permission": "MAYBE"})",
          R"([1, 2])", "not json"}) {
        r = as("admin", "POST", "/api/acls", bad);
        EXPECT_EQ(r.status, 400) << bad << ": " << r.body;
    }
    EXPECT_EQ(as("admin", "DELETE", "/api/acls?resource_type=TOPIC").status, 400);
    EXPECT_TRUE(json_of(as("admin", "GET", "/api/acls"))["acls"].empty());
}

TEST_F(ConsoleTopicsTest, AUsersPasswordIsSetAndRemoved) {
    use_authorizer();
    auto r = as("admin", "POST", "/api/users",
                R"({"name": "bob", "password": "bob-secret", "iterations": 8192})");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(
        json_of(r),
        (nlohmann::json{{"name", "bob"}, {"mechanism", "SCRAM-SHA-256"}, {"iterations", 8192}}));
    EXPECT_EQ(r.body.find("bob-secret"), std::string::npos);
    // The credential the broker keeps is bob-secret's: SCRAM with it would succeed.
    auto kept = broker().credentials().lookup("bob", ScramMechanism::sha256);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->iterations, 8192);
    EXPECT_EQ(kept->salt.size(), security::kScramSaltBytes);
    EXPECT_EQ(
        security::derive_scram_credential(ScramMechanism::sha256, "bob-secret", kept->salt, 8192)
            .stored_key,
        kept->stored_key);
    // SHA-512 beside it; Kafka's own bounds refuse too few iterations.
    EXPECT_EQ(as("admin", "POST", "/api/users",
                 R"({"name": "bob", "password": "x", "mechanism": "SCRAM-SHA-512"})")
                  .status,
              200);
    EXPECT_TRUE(broker().credentials().lookup("bob", ScramMechanism::sha512));
    r = as("admin", "POST", "/api/users",
           R"({"name": "carol", "password": "x", "iterations": 10})");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "UNACCEPTABLE_CREDENTIAL");
    EXPECT_FALSE(broker().credentials().lookup("carol", ScramMechanism::sha256));
    for (const char* bad : {R"({"password": "x"})", R"({"name": "d"})",
                            R"({"name": "d", "password": "x", "mechanism": "PLAIN"})",
                            R"({"name": "d", "password": "x", "iterations": "many"})"})
        EXPECT_EQ(as("admin", "POST", "/api/users", bad).status, 400) << bad;
    EXPECT_EQ(as("alice", "POST", "/api/users", R"({"name": "e", "password": "x"})").status, 403);

    r = as("admin", "DELETE", "/api/users/bob");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_FALSE(broker().credentials().lookup("bob", ScramMechanism::sha256));
    EXPECT_TRUE(broker().credentials().lookup("bob", ScramMechanism::sha512));
    EXPECT_EQ(as("admin", "DELETE", "/api/users/bob?mechanism=SCRAM-SHA-512").status, 200);
    EXPECT_FALSE(broker().credentials().lookup("bob", ScramMechanism::sha512));
    EXPECT_EQ(as("admin", "DELETE", "/api/users/bob?mechanism=MD5").status, 400);
    r = as("admin", "DELETE", "/api/users/nobody");
    EXPECT_NE(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "RESOURCE_NOT_FOUND") << r.body;
}

TEST_F(ConsoleTopicsTest, SecurityWritesAreRefusedOnAReadOnlyConsole) {
    settings.read_only = true;
    use_authorizer();
    EXPECT_EQ(as("admin", "POST", "/api/acls", kReadAcl).status, 403);
    EXPECT_EQ(as("admin", "DELETE", kReadAclQuery).status, 403);
    EXPECT_EQ(as("admin", "POST", "/api/users", R"({"name": "bob", "password": "x"})").status, 403);
    EXPECT_EQ(as("admin", "DELETE", "/api/users/alice").status, 403);
    EXPECT_TRUE(broker().credentials().lookup("alice", ScramMechanism::sha256));
    EXPECT_FALSE(broker().credentials().lookup("bob", ScramMechanism::sha256));
}

}  // namespace
}  // namespace skiff::broker::test
