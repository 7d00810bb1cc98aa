// Who is on the other end of one connection, as far as the broker has established it. The
// connection owns it; every request it carries sees it through RequestContext::session. The
// SASL handlers change it (principal, authenticated); the TLS handshake sets the principal from
// a client certificate; the authorization checks read it.
#pragma once

#include <string>

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
};

}  // namespace skiff::broker
