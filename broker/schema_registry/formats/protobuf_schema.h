// A parsed PROTOBUF schema: its resolved descriptor (in a pool of its own, with the files it
// imports), the canonical text the registry stores, and where each imported file was registered.
// Immutable once built, so it may be shared between threads (DescriptorPool lookups are
// thread-safe).
#pragma once

#include "broker/schema_registry/formats/protobuf_pool.h"
#include "broker/schema_registry/formats/schema_format.h"

#include <google/protobuf/descriptor.h>

#include <string>

namespace skiff::schema_registry::protobuf {

class ProtobufSchema final : public ParsedSchema {
  public:
    ProtobufSchema(ResolvedSchema resolved, std::string canonical);

    const std::string& canonical() const override { return canonical_; }
    // "serialized": the base64 of the resolved FileDescriptorProto (type names fully qualified),
    // as Confluent serves GET /schemas/ids/{id}?format=serialized.
    std::optional<std::string> formatted(std::string_view format) const override;

    const google::protobuf::FileDescriptor& file() const { return *resolved_.file; }
    // Where `file` (this schema's own or one it imports) was registered; null for a well-known
    // type loaded without a reference.
    const FileOrigin* origin(const google::protobuf::FileDescriptor& file) const;

  private:
    ResolvedSchema resolved_;
    std::string canonical_;
};

// Whether `type` is the message type protoc makes of a proto2 group (a field, or an extension,
// written `group Name = 3 { ... }`): printed and compared with its field, never as a message.
bool is_group_type(const google::protobuf::Descriptor& type);

}  // namespace skiff::schema_registry::protobuf
