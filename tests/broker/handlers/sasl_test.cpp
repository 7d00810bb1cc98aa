// SaslHandshake and SaslAuthenticate against a Session: refused on a listener without SASL
// (ILLEGAL_SASL_STATE, as Kafka), a mechanism the listener does not enable, PLAIN and SCRAM
// succeeding and setting the principal, a wrong password and an unknown user failing alike and
// closing the connection, tokens without a handshake, re-authentication keeping the principal.
#include <gtest/gtest.h>

#include "broker/net/session.h"
#include "broker/security/scram.h"
#include "handler_fixture.h"
#include "protocol/sasl.h"

namespace skiff::broker::test {
namespace {

using protocol::SaslAuthenticateRequest;
using protocol::SaslHandshakeRequest;

std::vector<std::byte> token(std::string_view s) {
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return {p, p + s.size()};
}

std::string text(const std::vector<std::byte>& b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

class SaslTest : public HandlerTest {
  protected:
    SaslTest() {
        config.sasl_enabled_mechanisms = "PLAIN,SCRAM-SHA-256";
        sasl_session.security_protocol = config::SecurityProtocol::sasl_plaintext;
        sasl_session.authenticated = false;
        session = &sasl_session;
    }
    void add_user(const std::string& user, const std::string& password) {
        auto set = broker().credentials().set(
            user, security::ScramMechanism::sha256,
            security::new_scram_credential(security::ScramMechanism::sha256, password));
        ASSERT_TRUE(set);
    }
    protocol::SaslHandshakeResponse handshake(const std::string& mechanism, int16_t v = 1) {
        return run(handle_sasl_handshake, SaslHandshakeRequest{mechanism}, v);
    }
    protocol::SaslAuthenticateResponse authenticate(std::string_view t, int16_t v = 2) {
        return run(handle_sasl_authenticate, SaslAuthenticateRequest{token(t)}, v);
    }
    Session sasl_session;
};

TEST_F(SaslTest, RefusedOnAListenerWithoutSasl) {
    Session plaintext;
    session = &plaintext;
    EXPECT_EQ(handshake("PLAIN").error_code, ErrorCode::illegal_sasl_state);
    EXPECT_EQ(authenticate("x").error_code, ErrorCode::illegal_sasl_state);
    session = nullptr;
    EXPECT_EQ(handshake("PLAIN").error_code, ErrorCode::illegal_sasl_state);
}

TEST_F(SaslTest, MechanismNotEnabledIsAnsweredWithTheListThenClosed) {
    auto r = handshake("SCRAM-SHA-512");
    EXPECT_EQ(r.error_code, ErrorCode::unsupported_sasl_mechanism);
    EXPECT_EQ(r.mechanisms, (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256"}));
    EXPECT_TRUE(closed);
    listener = "INTERNAL";
    config.listener_sasl_enabled_mechanisms["INTERNAL"] = "SCRAM-SHA-512";
    restart();
    r = handshake("SCRAM-SHA-512");
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.mechanisms, (std::vector<std::string>{"SCRAM-SHA-512"}));
}

TEST_F(SaslTest, PlainSucceedsAndSetsThePrincipal) {
    add_user("alice", "secret");
    EXPECT_EQ(handshake("PLAIN").error_code, ErrorCode::none);
    EXPECT_FALSE(sasl_session.sasl_unframed);
    auto r = authenticate(std::string_view("\0alice\0secret", 13));
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_FALSE(closed);
    EXPECT_TRUE(sasl_session.authenticated);
    EXPECT_EQ(sasl_session.principal, "User:alice");
    EXPECT_EQ(r.session_lifetime_ms, 0);
}

TEST_F(SaslTest, WrongPasswordAndUnknownUserFailAlikeAndClose) {
    add_user("alice", "secret");
    std::vector<std::string> messages;
    for (std::string_view attempt :
         {std::string_view("\0alice\0wrong", 12), std::string_view("\0mallory\0secret", 15)}) {
        EXPECT_EQ(handshake("PLAIN").error_code, ErrorCode::none);
        auto r = authenticate(attempt);
        EXPECT_EQ(r.error_code, ErrorCode::sasl_authentication_failed);
        EXPECT_TRUE(closed);
        messages.push_back(r.error_message.value_or(""));
        EXPECT_FALSE(sasl_session.authenticated);
        EXPECT_FALSE(sasl_session.sasl);
    }
    EXPECT_EQ(messages[0], messages[1]);
}

TEST_F(SaslTest, ScramRoundTripThroughTheHandlers) {
    add_user("bob", "pw");
    EXPECT_EQ(handshake("SCRAM-SHA-256").error_code, ErrorCode::none);
    const std::string client_first_bare = "n=bob,r=abcdefgh";
    auto first = authenticate("n,," + client_first_bare);
    ASSERT_EQ(first.error_code, ErrorCode::none);
    const std::string server_first = text(first.auth_bytes);
    ASSERT_TRUE(server_first.starts_with("r=abcdefgh"));
    // The client side of RFC 5802 with the stored salt and iterations.
    const auto cred = broker().credentials().lookup("bob", security::ScramMechanism::sha256);
    ASSERT_TRUE(cred);
    const auto m = security::ScramMechanism::sha256;
    const std::string nonce = server_first.substr(2, server_first.find(',') - 2);
    const std::string without_proof = "c=biws,r=" + nonce;
    const std::string auth = client_first_bare + "," + server_first + "," + without_proof;
    const std::string salted =
        security::scram_salted_password(m, "pw", cred->salt, cred->iterations);
    std::string proof = security::scram_hmac(m, salted, "Client Key");
    const std::string signature = security::scram_hmac(m, security::scram_hash(m, proof), auth);
    for (size_t i = 0; i < proof.size(); ++i)
        proof[i] = static_cast<char>(proof[i] ^ signature[i]);
    auto final = authenticate(without_proof + ",p=" + security::base64_encode(proof));
    EXPECT_EQ(final.error_code, ErrorCode::none) << final.error_message.value_or("");
    EXPECT_TRUE(text(final.auth_bytes).starts_with("v="));
    EXPECT_EQ(sasl_session.principal, "User:bob");
    EXPECT_TRUE(sasl_session.authenticated);
}

TEST_F(SaslTest, TokensWithoutAHandshakeAreIllegal) {
    auto r = authenticate(std::string_view("\0alice\0secret", 13));
    EXPECT_EQ(r.error_code, ErrorCode::illegal_sasl_state);
    EXPECT_TRUE(closed);
    // After SaslHandshake v0 the tokens come unframed, not in SaslAuthenticate.
    EXPECT_EQ(handshake("PLAIN", 0).error_code, ErrorCode::none);
    EXPECT_TRUE(sasl_session.sasl_unframed);
    EXPECT_EQ(authenticate("x").error_code, ErrorCode::illegal_sasl_state);
}

TEST_F(SaslTest, ReauthenticationWithTheLifetimeKeepsThePrincipal) {
    config.connections_max_reauth_ms = 60000;
    add_user("alice", "secret");
    add_user("carol", "other");
    EXPECT_EQ(handshake("PLAIN").error_code, ErrorCode::none);
    EXPECT_EQ(authenticate(std::string_view("\0alice\0secret", 13)).session_lifetime_ms, 60000);
    ASSERT_TRUE(sasl_session.expires_at);
    // Re-authenticating as the same user is fine; as another, refused and closed.
    EXPECT_EQ(handshake("PLAIN").error_code, ErrorCode::none);
    EXPECT_EQ(authenticate(std::string_view("\0alice\0secret", 13)).error_code, ErrorCode::none);
    EXPECT_EQ(handshake("PLAIN").error_code, ErrorCode::none);
    auto other = authenticate(std::string_view("\0carol\0other", 12));
    EXPECT_EQ(other.error_code, ErrorCode::sasl_authentication_failed);
    EXPECT_TRUE(closed);
    EXPECT_EQ(sasl_session.principal, "User:alice");
}

}  // namespace
}  // namespace skiff::broker::test
