// Confluent's normalization of an Avro schema (normalize=true on register and lookup), so that
// schemas equal under the spec get one canonical text and one id.
//
// Confluent's AvroSchema.normalize() writes the schema in a normal form (AvroSchemaUtils
// .toNormalizedString, adapted from Avro's SchemaNormalization) and parses that back; the stored
// text is the re-parsed schema's Schema.toString(). What survives that round trip, and so what
// normalization means for the stored text, is:
//
//   - properties sorted by name, except that a logical type Avro Java knows comes first:
//     "logicalType", then for a decimal "precision" and "scale" (unless 0), then the rest sorted;
//   - type aliases sorted by full name, field aliases sorted;
//   - a named type's empty "doc" dropped (a field's is kept);
//   - field defaults rewritten as Avro Java's value of the field's type writes them: an int
//     given to a double field becomes 1.0, a float keeps only a float's digits, a bytes or fixed
//     default only what ISO-8859-1 holds.
//
// Attribute order and namespaces need nothing here: the writer fixes the order and writes names
// relative to their enclosing namespace whatever the author wrote. Types defined by references
// are left alone: Confluent writes them by name and never normalizes them.
#pragma once

#include "broker/schema_registry/formats/avro_schema_tree.h"

namespace skiff::schema_registry::avro {

void normalize_schema(SchemaTree& tree);

}  // namespace skiff::schema_registry::avro
