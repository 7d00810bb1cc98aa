// What the console's cluster and topic route tests share: an authorizer with SCRAM users
// the tests sign in as with HTTP basic authentication (User:admin a super user, User:alice with
// the ACLs a test gives her).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "broker/security/acl.h"
#include "broker/security/scram.h"
#include "protocol/protocol.h"
#include "tests/broker/console/console_fixture.h"

namespace skiff::broker::test {

class ConsoleTopicsTest : public ConsoleTest {
  protected:
    // Turns on the authorizer with User:admin as super user and basic authentication, and adds
    // the SCRAM users admin and alice (password "pw"). Call before broker() is first used.
    void use_authorizer() {
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        config.super_users = "User:admin";
        basic_auth = true;
        for (const char* user : {"admin", "alice"}) {
            auto set = broker().credentials().set(
                user, security::ScramMechanism::sha256,
                security::new_scram_credential(security::ScramMechanism::sha256, "pw"));
            ASSERT_TRUE(set.has_value());
        }
    }
    void allow_alice(security::ResourceType type, const std::string& name,
                     security::PatternType pattern, security::AclOperation op) {
        auto error = broker().authorizer()->acls().add(
            {{type, name, pattern, "User:alice", "*", op, security::AclPermission::allow}});
        ASSERT_FALSE(error);
    }

    // `method` `target` signed in as `user`.
    http::HttpResponse as(const std::string& user, const std::string& method,
                          const std::string& target, const std::string& body = {}) {
        // "admin:pw" and "alice:pw" in base64.
        const std::string credentials = user == "admin" ? "YWRtaW46cHc=" : "YWxpY2U6cHc=";
        return request(method, target, body, {{"authorization", "Basic " + credentials}});
    }
};

}  // namespace skiff::broker::test
