// Resolving a PROTOBUF schema: building its FileDescriptorProto, and every file it imports, in a
// DescriptorPool of its own, so that libprotobuf checks what the parser cannot (that types exist
// and are used as the kind they are, that numbers are unique and in range, proto3's rules...).
//
// An import is found, in this order, among the schema's references (the registry passes one per
// imported file, transitively, named by the import path) and then among the well-known types that
// libprotobuf carries (google/protobuf/timestamp.proto and the others), which Confluent's registry
// also lets a schema import without a reference. A reference may also carry a well-known type
// itself, as confluent-kafka-python 1.7 registers every dependency it finds: it then wins.
#pragma once

#include "broker/schema_registry/formats/protobuf_source.h"
#include "broker/schema_registry/formats/schema_format.h"

#include <google/protobuf/descriptor.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace skiff::schema_registry::protobuf {

// Where the file that defines a type was registered. Compatibility needs it: a message type
// imported from the same subject and version on both sides is the same type and is not compared
// again (Confluent's rule).
struct FileOrigin {
    std::string subject;  // empty for the schema itself
    int version = -1;
};

struct ResolvedSchema {
    // The pool owns every descriptor below; it is shared so that a ParsedSchema can hold it.
    std::shared_ptr<const google::protobuf::DescriptorPool> pool;
    const google::protobuf::FileDescriptor* file = nullptr;
    // By file name: the schema itself and its references. Well-known types loaded without a
    // reference have no entry.
    std::map<std::string, FileOrigin> origins;
};

struct ResolveOutcome {
    std::optional<ResolvedSchema> schema;
    std::string error;
};

// The name a schema's own file gets when its text does not carry one (.proto text never does).
inline constexpr const char* kDefaultFileName = "default.proto";

// Names the schema's file kDefaultFileName when it has no name (or a reference's).
ResolveOutcome resolve_schema(ProtoSource& source,
                              const std::vector<ResolvedReference>& references);

// Whether `import_path` is a well-known type that needs no reference.
bool is_well_known_import(const std::string& import_path);

}  // namespace skiff::schema_registry::protobuf
