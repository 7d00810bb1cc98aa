// Reading a REST call's path and query as Confluent's JAX-RS layer reads them.
//
// The path is split on '/' first and each segment percent-decoded after, so an encoded slash
// (%2F) stays inside its segment (a subject name "a/b") and can never move the call to another
// route. A raw "." or ".." segment, an empty one ("//") or a bad escape ("%zz") matches no route:
// clients normalize dot segments themselves, so one that reaches us is a trick, not a name.
//
// Parameters are read as JAX-RS converts them: a boolean is true only for "true" (any case); an
// integer that does not parse makes the route not match (404, as Jersey answers); a version is
// "latest", -1, or 1..2^31-1, anything else being error 42202 with Confluent's message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/schema_registry/registry_errors.h"
#include "broker/schema_registry/rest.h"
#include "protocol/expected.h"

namespace skiff::schema_registry {

// The decoded segments of a path ("/subjects/a%2Fb/versions" -> {"subjects", "a/b",
// "versions"}; "/" -> {}); one trailing slash is ignored. nullopt when no route can match.
std::optional<std::vector<std::string>> split_path(std::string_view path);

// Whether a decoded subject name may be registered: not empty, valid UTF-8, no control
// characters, not one of Confluent's reserved names (__GLOBAL, __EMPTY), not "." or "..".
bool is_valid_subject(std::string_view subject);

// The first value of a query parameter, if given.
std::optional<std::string_view> query_value(const RestRequest& request, std::string_view name);
// A boolean parameter: true only for "true", any case (Java's Boolean.valueOf).
bool query_flag(const RestRequest& request, std::string_view name);
// An integer parameter, `fallback` when absent; nullopt when given and not an int32.
std::optional<int32_t> query_int(const RestRequest& request, std::string_view name,
                                 int32_t fallback);

// Java's Integer.parseInt: an optional sign and decimal digits, within int32.
std::optional<int32_t> parse_java_int(std::string_view text);

// A {version} path segment: "latest" (any case, blanks around it ignored) and "-1" are -1,
// otherwise 1..2^31-1; anything else is error 42202.
constexpr int kLatestVersion = -1;
Expected<int, RestError> parse_version(std::string_view text);

}  // namespace skiff::schema_registry
