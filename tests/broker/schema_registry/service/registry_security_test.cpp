// The schema registry's security pieces: HTTP basic authentication against the SCRAM users
// (right and wrong passwords, unknown users, malformed headers, a changed password checked again
// at once), and the mapping of the registry's operations onto Kafka ACL resources and operations.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "broker/schema_registry/service/basic_auth.h"
#include "broker/schema_registry/service/registry_acls.h"
#include "broker/security/scram.h"

namespace skiff::broker::schema_registry_service {
namespace {

namespace fs = std::filesystem;
using security::ScramMechanism;

class BasicAuthTest : public ::testing::Test {
  protected:
    BasicAuthTest() {
        std::string t = (fs::temp_directory_path() / "skiff-basic-XXXXXX").string();
        if (!mkdtemp(t.data()))
            throw std::runtime_error("mkdtemp failed");
        dir_ = t;
        auto opened = security::CredentialStore::open(dir_);
        if (!opened)
            throw std::runtime_error("cannot open the credential store");
        users_ = std::move(*opened);
    }
    ~BasicAuthTest() override { fs::remove_all(dir_); }

    void add(const std::string& user, const std::string& password, ScramMechanism m) {
        ASSERT_TRUE(users_->set(user, m, security::new_scram_credential(m, password, 4096)));
    }
    static std::string basic(const std::string& credentials) {
        return "Basic " + security::base64_encode(credentials);
    }

    fs::path dir_;
    std::unique_ptr<security::CredentialStore> users_;
};

TEST_F(BasicAuthTest, AScramUserWithTheRightPasswordIsThatPrincipal) {
    add("alice", "s3cret:with colon", ScramMechanism::sha512);
    add("bob", "pw", ScramMechanism::sha256);
    BasicAuthenticator auth(*users_);
    EXPECT_EQ(auth.authenticate(basic("alice:s3cret:with colon")).value_or(""), "User:alice");
    EXPECT_EQ(auth.authenticate(basic("alice:s3cret:with colon")).value_or(""), "User:alice");
    EXPECT_EQ(auth.authenticate(basic("bob:pw")).value_or(""), "User:bob");
    EXPECT_FALSE(auth.authenticate(basic("alice:wrong")));
    EXPECT_FALSE(auth.authenticate(basic("carol:pw")));
    for (const char* bad : {"", "Basic", "Basic !!!", "Bearer abc", "basic YWxpY2U6cHc="})
        EXPECT_FALSE(auth.authenticate(std::string(bad))) << bad;
    EXPECT_FALSE(auth.authenticate(basic("no-colon")));
    EXPECT_FALSE(auth.authenticate(basic(":pw")));
    EXPECT_FALSE(auth.authenticate(std::nullopt));
}

TEST_F(BasicAuthTest, AChangedPasswordIsCheckedAgainAtOnce) {
    add("alice", "old", ScramMechanism::sha256);
    BasicAuthenticator auth(*users_);
    ASSERT_TRUE(auth.authenticate(basic("alice:old")));  // remembered now
    add("alice", "new", ScramMechanism::sha256);
    EXPECT_FALSE(auth.authenticate(basic("alice:old")));
    EXPECT_TRUE(auth.authenticate(basic("alice:new")));
    ASSERT_TRUE(users_->remove_user("alice"));
    EXPECT_FALSE(auth.authenticate(basic("alice:new")));
}

TEST(RegistryAcls, SubjectsAreTheirTopicsAndTheRegistryIsTheCluster) {
    auto value = acl_target("SUBJECT", "orders-value");
    EXPECT_EQ(value.type, security::ResourceType::topic);
    EXPECT_EQ(value.name, "orders");
    EXPECT_EQ(acl_target("SUBJECT", "orders-key").name, "orders");
    EXPECT_EQ(acl_target("SUBJECT", "shop.Order").name, "shop.Order");
    EXPECT_EQ(acl_target("SUBJECT", "-value").name, "-value");  // no topic left: itself
    auto registry = acl_target("REGISTRY", "");
    EXPECT_EQ(registry.type, security::ResourceType::cluster);
    EXPECT_EQ(registry.name, "kafka-cluster");
    EXPECT_EQ(acl_operation("READ"), security::AclOperation::read);
    EXPECT_EQ(acl_operation("WRITE"), security::AclOperation::write);
    EXPECT_EQ(acl_operation("DELETE"), security::AclOperation::remove);
    EXPECT_EQ(acl_operation("DESCRIBE"), security::AclOperation::describe);
    EXPECT_EQ(acl_operation("DESCRIBE_CONFIGS"), security::AclOperation::describe_configs);
    EXPECT_EQ(acl_operation("ALTER_CONFIGS"), security::AclOperation::alter_configs);
    EXPECT_EQ(acl_operation("ALTER"), security::AclOperation::unknown);
}

TEST(RegistryAcls, TheCallersHostIsTheOneOfTheRequestOnThisThread) {
    EXPECT_EQ(RegistryCaller::host(), "*");
    {
        RegistryCaller caller("10.1.2.3");
        EXPECT_EQ(RegistryCaller::host(), "10.1.2.3");
    }
    EXPECT_EQ(RegistryCaller::host(), "*");
}

}  // namespace
}  // namespace skiff::broker::schema_registry_service
