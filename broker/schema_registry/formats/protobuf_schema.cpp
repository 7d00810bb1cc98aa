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

namespace {

template <typename Scope>
bool declares_group_of(const Scope& scope, const google::protobuf::Descriptor& type) {
    for (int i = 0; i < scope.extension_count(); ++i) {
        const auto* extension = scope.extension(i);
        if (extension->type() == google::protobuf::FieldDescriptor::TYPE_GROUP &&
            extension->message_type() == &type)
            return true;
    }
    return false;
}

}  // namespace

bool is_group_type(const google::protobuf::Descriptor& type) {
    // A group's type is declared in the scope of the field or extension that uses it.
    const auto* parent = type.containing_type();
    if (!parent)
        return declares_group_of(*type.file(), type);
    for (int i = 0; i < parent->field_count(); ++i) {
        const auto* field = parent->field(i);
        if (field->type() == google::protobuf::FieldDescriptor::TYPE_GROUP &&
            field->message_type() == &type)
            return true;
    }
    return declares_group_of(*parent, type);
}

}  // namespace skiff::schema_registry::protobuf
