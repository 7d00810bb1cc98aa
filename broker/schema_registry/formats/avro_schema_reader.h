// Reads an Avro schema's JSON text into a SchemaTree, with the rules Avro Java's Schema.Parser
// applies to a new registration in Confluent's registry (and its error messages, which users of
// the registry know): names and namespaces, named types defined once and used by name after,
// unions without nested unions or repeated types, record fields without repeats, enum symbols
// without repeats and an enum default among them, field defaults that fit their type.
//
// References: the referenced schemas are read first, in the order given, into the same tree
// and the same table of names, exactly as Confluent feeds every referenced schema to one
// Schema.Parser before the schema itself. A schema may then use any named type they define.
//
// libavro checks a schema's structure too (avro_libavro_check.h) but accepts much that Avro
// Java refuses (repeated fields, symbols or union branches, nested unions, any default value,
// types named "int"); this reader is where those are refused.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "broker/schema_registry/formats/avro_schema_tree.h"
#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry::avro {

struct ReadResult {
    std::unique_ptr<SchemaTree> tree;  // null when the text is not a valid schema
    std::string error;                 // why, for the registry's error 42201
};

ReadResult read_schema(std::string_view text, const std::vector<ResolvedReference>& references);

}  // namespace skiff::schema_registry::avro
