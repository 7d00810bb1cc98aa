// What a SASL token does to a connection's Session, shared by SaslAuthenticate and the legacy
// unframed tokens that follow SaslHandshake v0 (request_router.cpp): the token goes through the
// session's exchange; a failure is logged (rate limited, with the peer) and ends the exchange; a
// completed exchange authenticates the session as User:<name>, or fails when a re-authentication
// names another user (Kafka: "Cannot change principals during re-authentication").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::broker {

class Broker;
struct Session;

struct SaslTokenResult {
    std::string response;                // the server's token
    std::optional<std::string> failure;  // authentication failed: close after answering
    bool complete = false;               // the session is authenticated now
    int64_t session_lifetime_ms = 0;     // connections.max.reauth.ms when complete, else 0
};

// `session.sasl` must be set (a handshake chose the mechanism). `authenticate_version`: the
// SaslAuthenticate version that carried the token, -1 for an unframed one.
SaslTokenResult take_sasl_token(Broker& broker, Session& session, const std::string& peer,
                                std::string_view token, int authenticate_version);

}  // namespace skiff::broker
