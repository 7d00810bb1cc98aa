#include "broker/schema_registry/formats/protobuf_schema.h"

#include "broker/schema_registry/formats/protobuf_source.h"

#include <google/protobuf/descriptor.pb.h>

namespace skiff::schema_registry::protobuf {

ProtobufSchema::ProtobufSchema(ResolvedSchema resolved, std::string canonical)
    : resolved_(std::move(resolved)), canonical_(std::move(canonical)) {}

std::optional<std::string> ProtobufSchema::formatted(std::string_view format) const {
    if (format != "serialized")
        return std::nullopt;
    google::protobuf::FileDescriptorProto file;
    resolved_.file->CopyTo(&file);
    return base64_encode(file.SerializeAsString());
}

const FileOrigin* ProtobufSchema::origin(const google::protobuf::FileDescriptor& file) const {
    auto it = resolved_.origins.find(file.name());
    return it == resolved_.origins.end() ? nullptr : &it->second;
}

}  // namespace skiff::schema_registry::protobuf
