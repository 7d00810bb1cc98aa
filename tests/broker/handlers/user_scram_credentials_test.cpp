// DescribeUserScramCredentials and AlterUserScramCredentials (KIP-554): an upserted credential
// authenticates the password it was salted from (and only that one) and survives a restart;
// describe lists every user or the ones asked, with Kafka's DUPLICATE_RESOURCE and
// RESOURCE_NOT_FOUND; each of Kafka's per-user refusals; one bad change leaves the user's other
// changes unapplied; cluster ALTER / DESCRIBE are checked once an authorizer is configured.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "broker/net/session.h"
#include "broker/security/scram.h"
#include "handler_fixture.h"
#include "protocol/user_scram_credentials.h"

namespace skiff::broker::test {
namespace {

using protocol::AlterUserScramCredentialsRequest;
using protocol::DescribeUserScramCredentialsRequest;
using protocol::ScramCredentialDeletion;
using protocol::ScramCredentialUpsertion;
using security::ScramMechanism;

constexpr int8_t kSha256 = 1, kSha512 = 2;

std::vector<std::byte> bytes(std::string_view s) {
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return {p, p + s.size()};
}

// What a Kafka admin client sends for this password: a salt and PBKDF2 of the password.
ScramCredentialUpsertion upsertion(const std::string& user, int8_t mechanism,
                                   const std::string& password, int32_t iterations = 4096) {
    auto m = mechanism == kSha512 ? ScramMechanism::sha512 : ScramMechanism::sha256;
    std::string salt = "salt-of-" + user;
    return {user, mechanism, iterations, bytes(salt),
            bytes(security::scram_salted_password(m, password, salt, iterations))};
}

class UserScramCredentialsTest : public HandlerTest {
  protected:
    protocol::AlterUserScramCredentialsResponse alter(
        std::vector<ScramCredentialDeletion> deletions,
        std::vector<ScramCredentialUpsertion> upsertions) {
        AlterUserScramCredentialsRequest req;
        req.deletions = std::move(deletions);
        req.upsertions = std::move(upsertions);
        return run(handle_alter_user_scram_credentials, req, 0);
    }
    protocol::DescribeUserScramCredentialsResponse describe(
        std::optional<std::vector<std::string>> names) {
        DescribeUserScramCredentialsRequest req;
        if (names) {
            req.users.emplace();
            for (auto& n : *names)
                req.users->push_back({n});
        }
        return run(handle_describe_user_scram_credentials, req, 0);
    }
    // Whether the stored credential matches what a client derives from `password`.
    bool password_matches(const std::string& user, ScramMechanism m, const std::string& password) {
        auto stored = broker().credentials().lookup(user, m);
        if (!stored)
            return false;
        auto derived =
            security::derive_scram_credential(m, password, stored->salt, stored->iterations);
        return derived.stored_key == stored->stored_key && derived.server_key == stored->server_key;
    }
};

TEST_F(UserScramCredentialsTest, UpsertedCredentialMatchesItsPasswordAndSurvivesARestart) {
    auto resp = alter(
        {}, {upsertion("alice", kSha256, "secret"), upsertion("alice", kSha512, "secret", 8192)});
    ASSERT_EQ(resp.results.size(), 1u);
    EXPECT_EQ(resp.results[0].user, "alice");
    EXPECT_EQ(resp.results[0].error_code, ErrorCode::none);
    EXPECT_TRUE(password_matches("alice", ScramMechanism::sha256, "secret"));
    EXPECT_FALSE(password_matches("alice", ScramMechanism::sha256, "Secret"));
    restart();
    EXPECT_TRUE(password_matches("alice", ScramMechanism::sha512, "secret"));
    EXPECT_EQ(broker().credentials().lookup("alice", ScramMechanism::sha512)->iterations, 8192);
}

TEST_F(UserScramCredentialsTest, DescribeListsEveryUserOrTheOnesAsked) {
    ASSERT_EQ(alter({}, {upsertion("bob", kSha512, "pw"), upsertion("alice", kSha256, "pw")})
                  .results.size(),
              2u);
    auto all = describe(std::nullopt);
    EXPECT_EQ(all.error_code, ErrorCode::none);
    ASSERT_EQ(all.results.size(), 2u);
    EXPECT_EQ(all.results[0].user, "alice");
    ASSERT_EQ(all.results[0].credential_infos.size(), 1u);
    EXPECT_EQ(all.results[0].credential_infos[0].mechanism, kSha256);
    EXPECT_EQ(all.results[0].credential_infos[0].iterations, 4096);
    EXPECT_EQ(all.results[1].user, "bob");
    EXPECT_EQ(describe(std::vector<std::string>{}).results.size(), 2u);  // empty list: all

    auto some = describe(std::vector<std::string>{"bob", "carol", "alice", "alice"});
    ASSERT_EQ(some.results.size(), 3u);
    EXPECT_EQ(some.results[0].user, "bob");
    EXPECT_EQ(some.results[0].error_code, ErrorCode::none);
    EXPECT_EQ(some.results[0].credential_infos[0].mechanism, kSha512);
    EXPECT_EQ(some.results[1].user, "carol");
    EXPECT_EQ(some.results[1].error_code, ErrorCode::resource_not_found);
    EXPECT_EQ(some.results[1].error_message,
              "Attempt to describe a user credential that does not exist: carol");
    EXPECT_EQ(some.results[2].user, "alice");
    EXPECT_EQ(some.results[2].error_code, ErrorCode::duplicate_resource);
}

TEST_F(UserScramCredentialsTest, DeletionRemovesOneMechanismThenTheUser) {
    alter({}, {upsertion("alice", kSha256, "pw"), upsertion("alice", kSha512, "pw")});
    auto resp = alter({{"alice", kSha256}}, {});
    ASSERT_EQ(resp.results.size(), 1u);
    EXPECT_EQ(resp.results[0].error_code, ErrorCode::none);
    EXPECT_FALSE(broker().credentials().lookup("alice", ScramMechanism::sha256));
    EXPECT_TRUE(broker().credentials().lookup("alice", ScramMechanism::sha512));
    alter({{"alice", kSha512}}, {});
    EXPECT_EQ(broker().credentials().user_count(), 0u);
    auto again = alter({{"alice", kSha512}}, {});
    EXPECT_EQ(again.results[0].error_code, ErrorCode::resource_not_found);
    EXPECT_EQ(again.results[0].error_message,
              "Attempt to delete a user credential that does not exist");
}

TEST_F(UserScramCredentialsTest, KafkasRefusalsPerUserApplyNothingOfThatUser) {
    auto short_password = upsertion("dave", kSha256, "pw");
    short_password.salted_password.resize(16);
    auto resp = alter({{"carol", kSha256}},
                      {upsertion("", kSha256, "pw"), upsertion("bob", 3, "pw"),
                       upsertion("carol", kSha256, "pw"), upsertion("erin", kSha256, "pw", 1000),
                       upsertion("erin2", kSha256, "pw", 20000), short_password,
                       upsertion("frank", kSha256, "pw"), upsertion("frank", kSha512, "pw", 100)});
    std::vector<std::pair<std::string, ErrorCode>> got;
    for (auto& r : resp.results)
        got.emplace_back(r.user, r.error_code);
    std::vector<std::pair<std::string, ErrorCode>> want = {
        {"carol", ErrorCode::duplicate_resource},
        {"", ErrorCode::unacceptable_credential},
        {"bob", ErrorCode::unsupported_sasl_mechanism},
        {"erin", ErrorCode::unacceptable_credential},
        {"erin2", ErrorCode::unacceptable_credential},
        {"dave", ErrorCode::unacceptable_credential},
        {"frank", ErrorCode::unacceptable_credential},
    };
    EXPECT_EQ(got, want);
    EXPECT_EQ(resp.results[3].error_message, "Too few iterations");
    EXPECT_EQ(resp.results[4].error_message, "Too many iterations");
    // frank's valid SHA-256 upsertion went with the refused SHA-512 one.
    EXPECT_EQ(broker().credentials().user_count(), 0u);
}

TEST_F(UserScramCredentialsTest, ClusterPermissionsAreCheckedWithAnAuthorizer) {
    config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    Session alice;
    alice.principal = "User:alice";
    alice.host = "127.0.0.1";
    session = &alice;
    auto refused = alter({}, {upsertion("bob", kSha256, "pw")});
    ASSERT_EQ(refused.results.size(), 1u);
    EXPECT_EQ(refused.results[0].error_code, ErrorCode::cluster_authorization_failed);
    EXPECT_EQ(broker().credentials().user_count(), 0u);
    EXPECT_EQ(describe(std::nullopt).error_code, ErrorCode::cluster_authorization_failed);

    security::AclBinding alter_cluster{security::ResourceType::cluster,
                                       std::string(security::kClusterResourceName),
                                       security::PatternType::literal,
                                       "User:alice",
                                       "*",
                                       security::AclOperation::alter,
                                       security::AclPermission::allow};
    ASSERT_FALSE(broker().authorizer()->acls().add({alter_cluster}));
    EXPECT_EQ(alter({}, {upsertion("bob", kSha256, "pw")}).results[0].error_code, ErrorCode::none);
    // ALTER implies DESCRIBE.
    auto listed = describe(std::nullopt);
    EXPECT_EQ(listed.error_code, ErrorCode::none);
    ASSERT_EQ(listed.results.size(), 1u);
    EXPECT_EQ(listed.results[0].user, "bob");
}

}  // namespace
}  // namespace skiff::broker::test
