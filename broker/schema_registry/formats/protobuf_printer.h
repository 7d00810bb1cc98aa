// The canonical text of a PROTOBUF schema: .proto text printed again from the resolved
// descriptor, as Confluent stores ProtobufSchema.canonicalString(). Whitespace, comments and the
// way the schema arrived (text or serialized descriptor) do not show in it; what the author chose
// does (order of fields and types, type names as written, one file's own options).
//
// Layout, after Confluent's printer: syntax, package, a blank line and the imports, a blank line
// and the file options, a blank line and the messages then the enums (the order of messages is
// kept: a record's message index counts them), the extends, the services. Inside a message the
// sections are reserved, options, fields, oneofs, extension ranges, extends, nested types, each
// after a blank line; a map field is written map<K, V>, never as its entry message.
//
// normalize (Confluent's `normalize=true`) also makes equivalent texts equal: type names fully
// qualified with a leading dot, fields and enum values by number, oneofs by their first field's
// number, reserved and extension ranges one per statement by number, imports sorted, no
// `syntax = "proto2"` line (the default). Options are sorted by name in both forms.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <string>

namespace skiff::schema_registry::protobuf {

// `written` is the file as read, before resolution: it has the type names as the author wrote them
// (the descriptor only has full names). Its elements are in the descriptor's order.
std::string print_schema(const google::protobuf::FileDescriptor& file,
                         const google::protobuf::FileDescriptorProto& written, bool normalize);

}  // namespace skiff::schema_registry::protobuf
