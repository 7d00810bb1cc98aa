// A listener is one `NAME://host:port` entry of `listeners` / `advertised.listeners`.
//
// Syntax accepted (a comma-separated list, whitespace around entries ignored):
//   NAME://host:port     host is a name or IPv4 address
//   NAME://[v6addr]:port IPv6 literal in brackets, e.g. PLAINTEXT://[::1]:9092
//   NAME://:port         empty host: bind every IPv4 interface (stored as "0.0.0.0")
// NAME is letters, digits and '_' and is upper-cased, as Kafka normalises listener names. Port 0
// asks the OS for an ephemeral port (tests rely on it).
//
// A listener's security protocol is not part of the entry: as in Kafka, it is what
// `listener.security.protocol.map` maps the listener's name to (by default each protocol's own
// name maps to itself, so PLAINTEXT://... is plaintext and a custom name such as INTERNAL must
// be mapped). skiff serves all four; SSL and SASL_SSL need a keystore (ssl.keystore.*), which
// the broker checks when it builds its TLS context at start-up.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/expected.h"

namespace skiff::config {

struct Listener {
    std::string name = "PLAINTEXT";
    std::string host;  // without brackets; "0.0.0.0" when the configured host was empty
    uint16_t port = 9092;

    // NAME://host:port, with brackets around an IPv6 host.
    std::string to_string() const;
    bool operator==(const Listener&) const = default;
};

// Parses a listener list. The error is a clause saying what is allowed and what was wrong, such as
// `expected NAME://host:port entries separated by commas ("x" has no "://")`; the loader puts it
// after the key, value and source.
Expected<std::vector<Listener>, std::string> parse_listeners(std::string_view text);

// Renders a list back as the comma-separated form parse_listeners accepts.
std::string listeners_to_string(const std::vector<Listener>& listeners);

// metrics.listener: one HTTP://host:port entry (the name is case-insensitive, as listener names
// are), or nothing for an empty value (the endpoint is off).
Expected<std::optional<Listener>, std::string> parse_http_listener(std::string_view text);

// schema.registry.listeners: HTTP://host:port and HTTPS://host:port entries (names
// case-insensitive, Confluent writes them lower-case), comma-separated; empty for none.
Expected<std::vector<Listener>, std::string> parse_web_listeners(std::string_view text);

// Kafka's security protocols (org.apache.kafka.common.security.auth.SecurityProtocol).
enum class SecurityProtocol { plaintext, ssl, sasl_plaintext, sasl_ssl };

// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL".
std::string_view security_protocol_name(SecurityProtocol protocol);

// listener.security.protocol.map: upper-cased listener name -> security protocol.
using SecurityProtocolMap = std::map<std::string, SecurityProtocol>;

// Kafka's default for listener.security.protocol.map.
inline constexpr std::string_view kDefaultSecurityProtocolMap =
    "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL";

// Parses `NAME:PROTOCOL` entries separated by commas (whitespace around them ignored; names and
// protocols case-insensitive, as in Kafka). An empty value is an empty map. A name given twice is
// an error (Kafka keeps the last one silently; a repeated name is more likely a mistake).
Expected<SecurityProtocolMap, std::string> parse_security_protocol_map(std::string_view text);

// Checks that every listener has a security protocol in `map`, and that a keystore is set
// (`has_keystore`) when one of them is SSL or SASL_SSL.
// The error is a clause for the loader, like parse_listeners's.
Expected<void, std::string> check_listener_protocols(const std::vector<Listener>& listeners,
                                                     const SecurityProtocolMap& map,
                                                     bool has_keystore = false);

// sasl.enabled.mechanisms: nullopt when `value` names only mechanisms skiff serves (PLAIN,
// SCRAM-SHA-256, SCRAM-SHA-512; case as Kafka writes them), at least one; else why not.
std::optional<std::string> sasl_mechanisms_problem(std::string_view value);
// The items of a setting separated by `separator` (super.users uses ';'), in order, spaces and
// tabs around them trimmed, empty items dropped.
std::vector<std::string> split_list(std::string_view value, char separator);
// split_list with ',' (sasl.enabled.mechanisms, ssl.enabled.protocols, ssl.cipher.suites).
std::vector<std::string> split_comma_list(std::string_view value);

// What each listener advertises, one entry per listener in `listeners` order: the entry of
// `advertised` with the same name, or else the listener itself with a wildcard host replaced by
// loopback (0.0.0.0 -> 127.0.0.1, :: -> ::1). Entries of `advertised` naming no listener are
// ignored (the loader refuses them). A port of 0 stays 0: the broker fills in the bound port.
std::vector<Listener> effective_advertised(const std::vector<Listener>& listeners,
                                           const std::vector<Listener>& advertised);

// True for the wildcard bind addresses ("0.0.0.0", "::"), which clients cannot connect to.
bool is_wildcard_host(std::string_view host);

}  // namespace skiff::config
