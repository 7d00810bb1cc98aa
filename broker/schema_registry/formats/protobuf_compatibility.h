// The PROTOBUF compatibility check, after Confluent's io.confluent.kafka.schemaregistry.protobuf
// .diff (SchemaDiff, MessageSchemaDiff, FieldSchemaDiff, EnumSchemaDiff), on resolved descriptors
// rather than on parsed text: two versions are compared file to file, then type by type by name
// (nested types recursively, the first message included), fields by number. A message field's
// type is compared again where it was imported from a different subject or version.
#pragma once

#include "broker/schema_registry/formats/protobuf_difference.h"
#include "broker/schema_registry/formats/protobuf_schema.h"

#include <vector>

namespace skiff::schema_registry::protobuf {

// Every difference between the previous version (the writer's) and the updated one (the
// reader's), compatible or not, in a stable order.
std::vector<Difference> compare_schemas(const ProtobufSchema& previous,
                                        const ProtobufSchema& updated);

}  // namespace skiff::schema_registry::protobuf
