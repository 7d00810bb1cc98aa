// A schema's text as Avro Java's Schema.toString() writes it, which is what Confluent's
// registry stores, serves and compares (AvroSchema.canonicalString()):
//
//   - compact JSON, attributes in a fixed order per kind, whatever order the author used:
//     record: type, name, namespace, doc, fields, properties, aliases;
//     enum:   type, name, namespace, doc, symbols, default, properties, aliases;
//     fixed:  type, name, namespace, doc, size, properties, aliases;
//     field:  name, type, doc, default, order (unless ascending), aliases, properties;
//     array/map: type, items/values, properties; a primitive with properties: type, properties;
//     a primitive without any: its bare name ("int");
//   - a named type in full where first met, by name after; the name unqualified when its
//     namespace is the enclosing one (and it is not a type name like "record"), a "namespace"
//     attribute only where it differs from the enclosing one ("" for the null namespace inside
//     another);
//   - properties in the order written; docs, defaults and aliases as written.
//
// `known` are named types written by name even at their first use: Confluent passes the
// referenced schemas there for the canonical text, so that references stay references; the
// "resolved" format passes none and so inlines them where first used.
#pragma once

#include <string>
#include <vector>

#include "broker/schema_registry/formats/avro_schema_tree.h"

namespace skiff::schema_registry::avro {

std::string write_schema(const Node& root, const std::vector<const Node*>& known);

}  // namespace skiff::schema_registry::avro
