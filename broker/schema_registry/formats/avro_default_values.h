// A record field's default value: whether it fits the field's type, and the form Confluent's
// normalization gives it.
//
// libavro ignores defaults entirely (it parses a schema whose int field defaults to "x"), so both
// jobs are skiff's. Validity follows Avro Java's Schema.isValidDefault, which Confluent applies to
// every new registration: a union's default belongs to its first branch, a record's default
// needs a value (or the field's own default) for every field.
#pragma once

#include "broker/schema_registry/formats/avro_schema_tree.h"

namespace skiff::schema_registry::avro {

bool is_valid_default(const Node& type, const Json& value);

// The default as Confluent's normalized text has it: Avro Java turns it into a Java value of
// the field's type (Field.defaultVal()) and writes that back, so an int written for a double
// field becomes 1.0, a float loses its extra digits and a bytes default keeps only what
// ISO-8859-1 holds. `type` may be null (inside a value of unknown type: kept as it is).
Json normalized_default(const Node* type, const Json& value);

}  // namespace skiff::schema_registry::avro
