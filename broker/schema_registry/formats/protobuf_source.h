// Reading a PROTOBUF schema as the registry receives it, before anything is resolved: either .proto
// text (parsed by libprotoc's own parser) or, as Confluent's registry also accepts and as
// confluent-kafka-python's ProtobufSerializer sends it, the base64 of a serialized
// FileDescriptorProto. The result is one FileDescriptorProto whose type names are still as the
// author wrote them; protobuf_pool.h resolves them.
#pragma once

#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/descriptor.pb.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::schema_registry::protobuf {

struct ProtoSource {
    google::protobuf::FileDescriptorProto file;
    // Where each element of `file` was written, so that errors found while building it can name
    // a line and column. Null when the schema came as a serialized descriptor (there are no
    // lines to name).
    std::unique_ptr<google::protobuf::compiler::SourceLocationTable> locations;
    bool from_serialized_descriptor = false;
};

struct SourceOutcome {
    std::optional<ProtoSource> source;
    std::string error;  // the .proto parser's errors, "line:column: message" each, when no source
};

// Reads `text` as .proto text; when that fails and the text is base64 of a FileDescriptorProto,
// reads that instead (Confluent tries them in the same order). The error reported is the .proto
// parser's, since text is by far the common case.
SourceOutcome read_proto_source(std::string_view text);

// Standard base64 (RFC 4648, with padding), as Confluent writes formatted("serialized").
std::string base64_encode(std::string_view bytes);
// Null when `text` is not canonical standard base64 (line breaks and other whitespace refused).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace skiff::schema_registry::protobuf
