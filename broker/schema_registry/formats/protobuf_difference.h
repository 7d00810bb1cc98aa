// The differences the PROTOBUF compatibility check finds between two versions of a schema, named
// and judged as Confluent's io.confluent.kafka.schemaregistry.protobuf.diff.Difference.Type and
// SchemaDiff.COMPATIBLE_CHANGES name and judge them, so that a verbose check answers as
// Confluent's does. Only the incompatible ones reach the registry (as Incompatibility); the
// compatible ones are kept so that tests and the doc can show every rule.
#pragma once

#include "broker/schema_registry/formats/schema_format.h"

#include <string>
#include <string_view>

namespace skiff::schema_registry::protobuf {

enum class DifferenceType {
    PACKAGE_CHANGED,
    MESSAGE_ADDED,
    MESSAGE_REMOVED,
    MESSAGE_MOVED,
    ENUM_ADDED,
    ENUM_REMOVED,
    ENUM_CONST_ADDED,
    ENUM_CONST_CHANGED,
    ENUM_CONST_REMOVED,
    FIELD_ADDED,
    FIELD_REMOVED,
    FIELD_NAME_CHANGED,
    FIELD_KIND_CHANGED,
    FIELD_SCALAR_KIND_CHANGED,
    FIELD_NAMED_TYPE_CHANGED,
    FIELD_NUMERIC_LABEL_CHANGED,
    FIELD_STRING_OR_BYTES_LABEL_CHANGED,
    REQUIRED_FIELD_ADDED,
    REQUIRED_FIELD_REMOVED,
    ONEOF_ADDED,
    ONEOF_REMOVED,
    ONEOF_FIELD_ADDED,
    ONEOF_FIELD_REMOVED,
    ONEOF_FIELD_MOVED_TO_TOP_LEVEL,
    MULTIPLE_FIELDS_MOVED_TO_ONEOF,
    FIELD_MOVED_TO_EXISTING_ONEOF,
};

struct Difference {
    DifferenceType type;
    std::string path;    // "#/Person/2", "#/Person/contact/3", "#/" for the file
    std::string detail;  // what changed, e.g. "int32 -> string"; may be empty
};

std::string_view difference_name(DifferenceType type);
// Whether a reader with the updated schema still reads data written with the previous one.
bool is_compatible(DifferenceType type);
// The registry's form: Confluent's errorType, a sentence, the path as additionalInfo.
Incompatibility to_incompatibility(const Difference& difference);

}  // namespace skiff::schema_registry::protobuf
