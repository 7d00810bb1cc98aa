// A listener is one `NAME://host:port` entry of `listeners` / `advertised.listeners`.
//
// Syntax accepted (a comma-separated list, whitespace around entries ignored):
//   NAME://host:port     host is a name or IPv4 address
//   NAME://[v6addr]:port IPv6 literal in brackets, e.g. PLAINTEXT://[::1]:9092
//   NAME://:port         empty host: bind every IPv4 interface (stored as "0.0.0.0")
// NAME is letters, digits and '_' and is upper-cased, as Kafka normalises listener names. skiff
// speaks PLAINTEXT only, so any name is a plaintext listener except the names of the security
// protocols skiff lacks (SSL, SASL_PLAINTEXT, SASL_SSL), which are rejected rather than silently
// served in clear text. Port 0 asks the OS for an ephemeral port (tests rely on it).
#pragma once

#include <cstdint>
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

// True for the wildcard bind addresses ("0.0.0.0", "::"), which clients cannot connect to.
bool is_wildcard_host(std::string_view host);

}  // namespace skiff::config
