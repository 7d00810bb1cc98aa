// SaslHandshake and SaslAuthenticate: round trips at every served version, and SaslAuthenticate
// v1 encoded by hand from Kafka's schema (session_lifetime_ms after auth_bytes). The KIP-554 user
// APIs: round trips, and an AlterUserScramCredentials request encoded by hand.
#include <gtest/gtest.h>

#include "protocol/api_table.h"
#include "protocol/sasl.h"
#include "protocol/user_scram_credentials.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;
using test::for_each_version;
using test::round_trip;

TEST(SaslRoundTrip, EveryVersion) {
    SaslHandshakeRequest hreq{"SCRAM-SHA-256"};
    SaslHandshakeResponse hresp;
    hresp.error_code = ErrorCode::unsupported_sasl_mechanism;
    hresp.mechanisms = {"PLAIN", "SCRAM-SHA-512"};
    for_each_version(ApiKey::sasl_handshake, [&](int16_t v) {
        round_trip(hreq, v,
                   [&](const SaslHandshakeRequest& d) { EXPECT_EQ(d.mechanism, "SCRAM-SHA-256"); });
        round_trip(hresp, v, [&](const SaslHandshakeResponse& d) {
            EXPECT_EQ(d.error_code, ErrorCode::unsupported_sasl_mechanism);
            EXPECT_EQ(d.mechanisms, hresp.mechanisms);
        });
    });
    SaslAuthenticateRequest areq;
    areq.auth_bytes = bytes({'n', ',', ',', 0});
    SaslAuthenticateResponse aresp;
    aresp.error_code = ErrorCode::sasl_authentication_failed;
    aresp.error_message = "no";
    aresp.auth_bytes = bytes({1, 2});
    aresp.session_lifetime_ms = 3600000;
    for_each_version(ApiKey::sasl_authenticate, [&](int16_t v) {
        round_trip(areq, v, [&](const SaslAuthenticateRequest& d) {
            EXPECT_EQ(d.auth_bytes, areq.auth_bytes);
        });
        round_trip(aresp, v, [&](const SaslAuthenticateResponse& d) {
            EXPECT_EQ(d.error_message, "no");
            EXPECT_EQ(d.auth_bytes, aresp.auth_bytes);
            EXPECT_EQ(d.session_lifetime_ms, v >= 1 ? 3600000 : 0);
        });
    });
}

TEST(SaslRoundTrip, AuthenticateResponseV1ByHand) {
    SaslAuthenticateResponse m;
    m.auth_bytes = bytes({'v'});
    m.session_lifetime_ms = 5;
    OutBuffer out;
    encode_message(m, 1, out);
    // error_code 0, error_message null, auth_bytes [1] 'v', session_lifetime_ms 5
    EXPECT_EQ(std::vector<std::byte>(out.bytes().begin(), out.bytes().end()),
              bytes({0, 0, 0xff, 0xff, 0, 0, 0, 1, 'v', 0, 0, 0, 0, 0, 0, 0, 5}));
}

TEST(UserScramCredentialsRoundTrip, EveryVersion) {
    DescribeUserScramCredentialsRequest dreq;
    dreq.users = std::vector<UserName>{{"alice"}};
    DescribeUserScramCredentialsResponse dresp;
    dresp.results.push_back({"alice", ErrorCode::none, std::nullopt, {{1, 4096}, {2, 8192}}});
    dresp.results.push_back({"bob", ErrorCode::resource_not_found, "no", {}});
    for_each_version(ApiKey::describe_user_scram_credentials, [&](int16_t v) {
        round_trip(dreq, v, [&](const DescribeUserScramCredentialsRequest& d) {
            ASSERT_TRUE(d.users);
            EXPECT_EQ(d.users->at(0).name, "alice");
        });
        round_trip(DescribeUserScramCredentialsRequest{}, v,
                   [&](const DescribeUserScramCredentialsRequest& d) { EXPECT_FALSE(d.users); });
        round_trip(dresp, v, [&](const DescribeUserScramCredentialsResponse& d) {
            ASSERT_EQ(d.results.size(), 2u);
            EXPECT_EQ(d.results[0].credential_infos[1].iterations, 8192);
            EXPECT_EQ(d.results[1].error_message, "no");
        });
    });
    AlterUserScramCredentialsResponse aresp;
    aresp.results.push_back({"alice", ErrorCode::unacceptable_credential, "Too few iterations"});
    for_each_version(ApiKey::alter_user_scram_credentials, [&](int16_t v) {
        round_trip(aresp, v, [&](const AlterUserScramCredentialsResponse& d) {
            EXPECT_EQ(d.results.at(0).error_message, "Too few iterations");
        });
    });
}

TEST(UserScramCredentialsRoundTrip, AlterRequestByHand) {
    AlterUserScramCredentialsRequest m;
    m.deletions.push_back({"a", 1});
    m.upsertions.push_back({"b", 2, 4096, bytes({7}), bytes({8, 9})});
    OutBuffer out;
    encode_message(m, 0, out);
    // Flexible: compact arrays and strings (length + 1), a tag buffer after each struct.
    EXPECT_EQ(test::memory_of(out),
              bytes({2, 2, 'a', 1, 0,                                // deletions
                     2, 2, 'b', 2, 0, 0, 0x10, 0, 2, 7, 3, 8, 9, 0,  // upsertions
                     0}));
}

}  // namespace
}  // namespace skiff::protocol
