// SaslHandshake and SaslAuthenticate: round trips at every served version, and SaslAuthenticate
// v1 encoded by hand from Kafka's schema (session_lifetime_ms after auth_bytes).
#include <gtest/gtest.h>

#include "protocol/api_table.h"
#include "protocol/sasl.h"
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

}  // namespace
}  // namespace skiff::protocol
