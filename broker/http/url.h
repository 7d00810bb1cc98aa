// Percent-decoding of request paths and queries (RFC 3986), strictly: a '%' not followed by two
// hex digits is an error rather than passed through, so that "%2" or "%zz" cannot mean one thing
// to skiff and another to the client or a proxy in front of it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::broker::http {

// Decodes %XX escapes; with `plus_is_space` ('+' in a query) a '+' becomes a space. nullopt for
// a malformed escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space = false);

// The '/'-separated segments of a still-encoded path, each decoded on its own (so an encoded
// "%2F" stays inside its segment instead of making a new one). nullopt when a segment is
// malformed. "/a//b/" gives {"a", "", "b", ""}.
std::optional<std::vector<std::string>> path_segments(std::string_view encoded_path);

// name=value pairs of a query string, decoded; a name without '=' has an empty value. nullopt
// when an escape is malformed.
std::optional<std::multimap<std::string, std::string>> parse_query(std::string_view query);

}  // namespace skiff::broker::http
