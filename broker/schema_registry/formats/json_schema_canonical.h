// The text the registry stores for a JSON schema, as Confluent makes it.
//
// Confluent reads the schema with Jackson into a tree and writes the tree back compactly: key
// order kept, no whitespace, a repeated key keeping its first place and its last value, numbers
// as Jackson writes them (integers as their digits; decimals as the exact BigDecimal the text
// denotes, so 1.0 stays 1.0, 1.50 stays 1.50 and 1e2 becomes 1E+2), strings with only '"', '\'
// and control characters escaped. With normalize, its normalized form is the same tree read
// with sorted maps: every object's keys in order (Java's String order, which is UTF-8 byte order
// for all but characters outside the Basic Multilingual Plane). Arrays keep their order: in
// "enum", "required", "type" or "allOf" the order can mean something to a reader.
//
// nlohmann's tree cannot do this (it keeps a decimal as a double and forgets how it was
// written), so the text is read a second time here, through nlohmann's SAX interface, into a
// small tree of already-written scalars.
#pragma once

#include <string>
#include <string_view>

namespace skiff::schema_registry::json_schema {

// `json` must be valid JSON (read_json accepted it).
std::string canonical_text(std::string_view json, bool normalize);

}  // namespace skiff::schema_registry::json_schema
