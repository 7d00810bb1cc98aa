// The JSON Schema compatibility check: Confluent's SchemaDiff.compare(original, update) on
// skiff's model of the two schemas (json_schema_model.h).
//
// It walks both schemas together from the root, following "$ref"s on both sides, and records a
// Difference wherever they differ: a keyword added, removed, raised or lowered, a property or a
// tuple item added or removed (judged by the content model: open, closed or partially open), a
// type changed, an allOf/anyOf/oneOf extended or narrowed (its subschemas matched pairwise as
// compatibly as possible). Each difference is compatible or not as Confluent's STRICT policy
// says (json_schema_difference.h); the change is compatible when all are.
#pragma once

#include <vector>

#include "broker/schema_registry/formats/json_schema_diff_ledger.h"
#include "broker/schema_registry/formats/json_schema_difference.h"
#include "broker/schema_registry/formats/json_schema_model.h"

namespace skiff::schema_registry::json_schema {

// Every difference, compatible or not, between the schema data was written with (`writer`) and
// the one reading it (`reader`). The limits bound its cost (json_schema_diff_ledger.h).
std::vector<Difference> diff_schemas(const SchemaNode* writer, const SchemaNode* reader,
                                     DiffLimits limits = {});

}  // namespace skiff::schema_registry::json_schema
