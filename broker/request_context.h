// What a handler knows about the request it serves, besides the typed request itself.
#pragma once

#include <string>
#include <string_view>

#include "broker/net/session.h"
#include "protocol/request_header.h"

namespace skiff::broker {

class Broker;

// What a client says it is in ApiVersions v3+ (KIP-511); kept per connection.
struct ClientSoftware {
    std::string name;
    std::string version;
};

struct RequestContext {
    Broker& broker;
    const protocol::RequestHeader& header;
    const std::string& peer;  // "host:port" of the client, for log lines
    // The connection's record of the client software; null outside a connection (unit tests).
    ClientSoftware* client_software = nullptr;
    // Name of the listener the connection came through (config::Listener::name): Metadata,
    // FindCoordinator and DescribeCluster answer with that listener's advertised address. Empty
    // outside a connection (unit tests): the first listener's.
    std::string_view listener{};
    // The connection's client: its principal and authentication state. Null outside a connection
    // (unit tests), which handlers treat as an anonymous, authenticated PLAINTEXT client.
    Session* session = nullptr;
    // Set by a handler whose request gets no response (Produce with acks=0).
    bool suppress_response = false;
    // Set by a handler that wants the connection closed after this request: an acks=0 produce
    // that failed, so the client (which gets no answer) notices and refreshes its metadata, as
    // Kafka does.
    bool close_connection = false;
    // Set by Fetch when it waited for data (a long poll): its duration is measured apart.
    bool long_poll = false;
    // The request's size on the wire (its frame, without the size prefix): what Produce counts
    // against the client's producer_byte_rate.
    size_t request_bytes = 0;
    // Set by a handler whose client went over its quota (docs/quotas.md): the connection reads
    // nothing more from the client for this long after the response (Kafka mutes the channel).
    int32_t throttle_ms = 0;
};

// The user a client quota is for: the principal's name ("alice" of "User:alice"; ANONYMOUS for
// a client that did not authenticate), as Kafka's quota entities name users.
inline std::string_view quota_user(const RequestContext& ctx) {
    std::string_view principal = ctx.session ? ctx.session->principal : kAnonymousPrincipal;
    if (principal.starts_with("User:"))
        principal.remove_prefix(5);
    return principal;
}

}  // namespace skiff::broker
