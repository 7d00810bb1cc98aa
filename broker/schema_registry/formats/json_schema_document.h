// One JSON Schema document as the registry hands it over: the text of the schema being parsed,
// or of one of the schemas it references, read as JSON (nlohmann's parser), with the draft it is
// written in and the URI its relative "$ref"s and "$id"s resolve against.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker/schema_registry/formats/json_schema_model.h"
#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry::json_schema {

// Deeper JSON is refused: every step after reading (shape checks, building, comparing) recurses
// once per level, and a schema nested thousands of levels deep would otherwise exhaust a
// broker thread's stack. Real schemas stay far below (a level is one object or array).
inline constexpr int kMaxNestingDepth = 256;

struct SchemaDocument {
    std::string name;            // empty for the schema being parsed, else the reference's name
    std::string base_uri;        // the document's URI: its "$id", or the name it is referenced by
    std::string registered_uri;  // for a reference, the URI a $ref names it by; else empty
    Draft draft = Draft::k7;
    // Shared with the graph built from it, whose nodes point into it.
    std::shared_ptr<const nlohmann::ordered_json> json;
};

// The draft "$schema" names: drafts 4, 6 and 7 by prefix as Everit matches them, 2019-09 and
// 2020-12 exactly (with or without a final '#') as Confluent does; anything else is draft 7.
Draft draft_named_by(const nlohmann::ordered_json& schema);
std::string_view id_keyword(Draft draft);  // "id" in draft 4, "$id" after

// The text as JSON; why not (not JSON, nested too deep) otherwise. Trailing text after the JSON
// value is refused too.
std::variant<nlohmann::ordered_json, std::string> read_json(std::string_view text);

// The schema being parsed and its references, each read and checked (JSON, an object or a
// boolean, every keyword of the right shape): documents[0] is the schema, then one per
// reference in the registry's order. Why not, naming the reference at fault, otherwise.
std::variant<std::vector<SchemaDocument>, std::string> read_documents(
    std::string_view text, const std::vector<ResolvedReference>& references);

}  // namespace skiff::schema_registry::json_schema
