// The JSON Schema keywords skiff knows, per draft: which of them hold subschemas (the walk every
// other step uses to find all the schemas in a document), which keyword group each belongs to
// (how the builder splits a schema object the way Everit does), and the shape each value must
// have. A keyword skiff does not know is an annotation and may hold anything, as the
// specification says.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "broker/schema_registry/formats/json_schema_model.h"

namespace skiff::schema_registry::json_schema {

// Keyword groups: a schema object with keywords of several groups is split into one schema per
// group, joined by allOf (see json_schema_model.h).
std::span<const std::string_view> string_keywords();
std::span<const std::string_view> number_keywords();
std::span<const std::string_view> array_keywords(Draft draft);
std::span<const std::string_view> object_keywords(Draft draft);

// Calls `visit` with every subschema directly inside `schema` (an object) and the JSON Pointer
// from `schema` to it ("/properties/a", "/allOf/0", "/items"). Not recursive.
using SubschemaVisitor = std::function<void(const nlohmann::ordered_json& subschema,
                                            const std::string& relative_pointer)>;
void for_each_subschema(const nlohmann::ordered_json& schema, Draft draft,
                        const SubschemaVisitor& visit);

// Why the keywords of one schema object do not have the shapes `draft` gives them ("'minimum'
// must be a number, found a string"); empty when they do. Subschemas are only checked to be
// objects or booleans here; check_document walks into them.
std::string check_keyword_shapes(const nlohmann::ordered_json& schema, Draft draft);

// Checks every schema of a document, the root and every subschema it holds (definitions
// included, used or not). Returns "<JSON Pointer>: <why>" for the first schema that is not one,
// empty when all are.
std::string check_document(const nlohmann::ordered_json& document, Draft draft);

}  // namespace skiff::schema_registry::json_schema
