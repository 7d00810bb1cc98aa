// Builds the model (json_schema_model.h) of a schema from its documents, the way Everit's
// SchemaLoader builds Confluent's: a schema object becomes one node per keyword group it uses
// (enum, each of allOf/anyOf/oneOf, not, const, type, then the array, object, number and string
// keywords left over, then if/then/else), joined by a synthetic allOf when there are several;
// "type" with several names becomes an anyOf; in drafts 4 to 7 a "$ref" hides its siblings
// (except the annotations), from 2019-09 on it is one more part.
//
// Every "$ref" of the schema is resolved, in its definitions too, and every one of a referenced
// document that the schema reaches; one that resolves to nothing refuses the schema, and so does
// a chain of "$ref"s that loops without reaching a schema. Recursion through a schema is fine:
// each place of each document becomes one node, whatever the number of "$ref"s to it.
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "broker/schema_registry/formats/json_schema_document.h"
#include "broker/schema_registry/formats/json_schema_model.h"

namespace skiff::schema_registry::json_schema {

// The graph of documents[0] and of what it references in the other documents; why not
// otherwise.
std::variant<std::unique_ptr<SchemaGraph>, std::string> build_schema_graph(
    const std::vector<SchemaDocument>& documents);

}  // namespace skiff::schema_registry::json_schema
