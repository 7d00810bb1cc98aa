// Taking a "$ref" apart: URI reference resolution (RFC 3986 section 5) against the base URI in
// effect where the $ref is written, and JSON Pointers (RFC 6901) in the fragment.
//
// A $ref such as "address.json#/definitions/Street" names a document (the part before '#',
// resolved against the base: the referring document's URI, changed by any "$id" on the way) and
// a place in it (the fragment: a JSON Pointer, or in drafts 6+ a plain name an "$id"/"$anchor"
// declares). Bases here may be relative ("address.json"): the registry names references by the
// URL the $ref uses, which is often relative, and resolving relative against relative is
// well defined for the cases that occur ("a/b.json" + "c.json" = "a/c.json").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace skiff::schema_registry::json_schema {

// `reference` resolved against `base` (RFC 3986 5.2.2, with dot segments removed).
std::string resolve_uri(std::string_view base, std::string_view reference);

// The URI without its fragment, and the fragment alone (percent-decoded); "" when there is none.
std::string without_fragment(std::string_view uri);
std::string fragment_of(std::string_view uri);

// A JSON Pointer's reference tokens ("/a~1b/0" gives "a/b", "0"); nullopt when it is not one.
std::optional<std::vector<std::string>> parse_json_pointer(std::string_view pointer);
// A token escaped for a pointer ("a/b" gives "a~1b").
std::string escape_pointer_token(std::string_view token);
// The value a pointer's tokens lead to from `document`; null when there is none.
const nlohmann::ordered_json* evaluate_json_pointer(const nlohmann::ordered_json& document,
                                                    const std::vector<std::string>& tokens);

}  // namespace skiff::schema_registry::json_schema
