// Who is on the other end of one connection, as far as the broker has established it. The
// connection owns it; every request it carries sees it through RequestContext::session. The
// SASL handlers change it (principal, authenticated); the TLS handshake sets the principal from
// a client certificate; the authorization checks read it.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "broker/security/sasl_authenticator.h"
#include "config/listener.h"

namespace skiff::broker {

// Kafka's principal of a client that has not authenticated (PLAINTEXT, or SSL without a client
// certificate): KafkaPrincipal.ANONYMOUS.
inline constexpr std::string_view kAnonymousPrincipal = "User:ANONYMOUS";

struct Session {
    // The client's IP address without the port: what ACLs match as the host.
    std::string host;
    // The security protocol of the listener the connection came through.
    config::SecurityProtocol security_protocol = config::SecurityProtocol::plaintext;
    // "User:name", as Kafka writes principals in ACLs and super.users.
    std::string principal{kAnonymousPrincipal};
    // False on SASL listeners until SaslAuthenticate succeeds: until then only ApiVersions and
    // the SASL requests are served.
    bool authenticated = true;

    // SASL (handlers/sasl_handshake.cpp, sasl_authenticate.cpp; docs/security.md).
    bool sasl_listener() const {
        return security_protocol == config::SecurityProtocol::sasl_plaintext ||
               security_protocol == config::SecurityProtocol::sasl_ssl;
    }
    // The exchange under way, from SaslHandshake until it succeeds or fails.
    std::unique_ptr<security::SaslAuthenticator> sasl;
    // After SaslHandshake v0 the client's tokens come unframed: a size and the bytes, no request
    // header (the router answers them the same way).
    bool sasl_unframed = false;
    // Whether the client may re-authenticate (KIP-368): it authenticated with SaslAuthenticate
    // v1 or later. Re-authentication must keep the principal.
    bool reauthentication_supported = false;
    // When the authentication expires (connections.max.reauth.ms): after it only
    // re-authentication is served.
    std::optional<std::chrono::steady_clock::time_point> expires_at;
    // A request skiff makes of itself (the web console's, broker/console/kafka_call.h), not a
    // client's: version emulation (emulate.kafka.version) does not apply, since the console
    // speaks skiff's own versions whatever release the Kafka listeners pretend to be.
    bool in_process = false;
    // This connection's number among all the broker has accepted (from 1; 0 for in-process
    // callers), and whether it opened a share session: sessions go when their connection
    // closes (share/share_session_cache.h).
    uint64_t connection_id = 0;
    bool opened_share_session = false;
};

}  // namespace skiff::broker
