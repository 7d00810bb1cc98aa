// Comparing one field of two versions (Confluent's FieldSchemaDiff): its name, its kind (scalar,
// message or map), its scalar type within the groups the protobuf language guide declares
// wire-compatible, its label, and for a message field the message type itself.
#include "broker/schema_registry/formats/protobuf_diff_context.h"

namespace skiff::schema_registry::protobuf {
namespace {

namespace gp = google::protobuf;

// An enum is a scalar: on the wire it is a varint, like int32.
enum class Kind { SCALAR, MESSAGE, MAP };

// Scalar types a reader may swap for one another (language guide, "Updating A Message Type").
enum class ScalarKind {
    GENERAL_NUMBER,
    SIGNED_NUMBER,
    STRING_OR_BYTES,
    FIXED32,
    FIXED64,
    FLOAT,
    DOUBLE
};

// The label as the author wrote it, as Confluent's parser sees it: none for a proto3 field
// without `optional`, a map or a oneof member. Only two written labels are compared.
enum class Label { NONE, OPTIONAL, REQUIRED, REPEATED };

Kind kind_of(const gp::FieldDescriptor& field) {
    if (field.is_map())
        return Kind::MAP;
    return field.message_type() ? Kind::MESSAGE : Kind::SCALAR;
}

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::SCALAR:
            return "SCALAR";
        case Kind::MESSAGE:
            return "MESSAGE";
        case Kind::MAP:
            return "MAP";
    }
    return "";
}

ScalarKind scalar_kind_of(const gp::FieldDescriptor& field) {
    switch (field.type()) {
        case gp::FieldDescriptor::TYPE_INT32:
        case gp::FieldDescriptor::TYPE_INT64:
        case gp::FieldDescriptor::TYPE_UINT32:
        case gp::FieldDescriptor::TYPE_UINT64:
        case gp::FieldDescriptor::TYPE_BOOL:
        case gp::FieldDescriptor::TYPE_ENUM:
            return ScalarKind::GENERAL_NUMBER;
        case gp::FieldDescriptor::TYPE_SINT32:
        case gp::FieldDescriptor::TYPE_SINT64:
            return ScalarKind::SIGNED_NUMBER;
        case gp::FieldDescriptor::TYPE_STRING:
        case gp::FieldDescriptor::TYPE_BYTES:
            return ScalarKind::STRING_OR_BYTES;
        case gp::FieldDescriptor::TYPE_FIXED32:
        case gp::FieldDescriptor::TYPE_SFIXED32:
            return ScalarKind::FIXED32;
        case gp::FieldDescriptor::TYPE_FIXED64:
        case gp::FieldDescriptor::TYPE_SFIXED64:
            return ScalarKind::FIXED64;
        case gp::FieldDescriptor::TYPE_FLOAT:
            return ScalarKind::FLOAT;
        default:
            return ScalarKind::DOUBLE;
    }
}

Label written_label(const gp::FieldDescriptor& field) {
    if (field.is_map() || field.real_containing_oneof())
        return Label::NONE;
    if (field.is_repeated())
        return Label::REPEATED;
    if (field.is_required())
        return Label::REQUIRED;
    if (field.file()->syntax() == gp::FileDescriptor::SYNTAX_PROTO2 || field.has_optional_keyword())
        return Label::OPTIONAL;
    return Label::NONE;
}

const char* label_name(Label label) {
    switch (label) {
        case Label::NONE:
            return "none";
        case Label::OPTIONAL:
            return "optional";
        case Label::REQUIRED:
            return "required";
        case Label::REPEATED:
            return "repeated";
    }
    return "";
}

std::string scalar_type_name(const gp::FieldDescriptor& field) {
    return field.enum_type() ? "enum " + field.enum_type()->full_name() : field.type_name();
}

// A type's name inside its package: what stays the same when only the package changes (the
// package change itself is reported once, at the file).
std::string local_name(const gp::Descriptor& type) {
    const std::string& package = type.file()->package();
    const std::string& full = type.full_name();
    if (!package.empty() && full.compare(0, package.size() + 1, package + ".") == 0)
        return full.substr(package.size() + 1);
    return full;
}

std::vector<std::string> split_name(const std::string& name) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t dot; (dot = name.find('.', start)) != std::string::npos; start = dot + 1)
        parts.push_back(name.substr(start, dot - start));
    parts.push_back(name.substr(start));
    return parts;
}

void compare_message_types(DiffContext& context, const gp::Descriptor& original,
                           const gp::Descriptor& update) {
    const std::string original_name = local_name(original);
    const std::string update_name = local_name(update);
    if (original_name != update_name) {
        context.add(DifferenceType::FIELD_NAMED_TYPE_CHANGED,
                    original.full_name() + " -> " + update.full_name());
        return;
    }
    // Types of the schema itself are compared where they are declared; an imported type is the
    // same type when both sides import it from the same subject and version.
    const auto* original_origin = context.original.origin(*original.file());
    const auto* update_origin = context.update.origin(*update.file());
    if (original_origin && update_origin && original_origin->subject == update_origin->subject &&
        original_origin->version == update_origin->version)
        return;
    // Otherwise the two imported types are compared at their own path; any incompatibility there
    // makes this field's type change incompatible too.
    std::vector<std::string> field_path = std::move(context.path);
    context.path = split_name(original_name);
    const size_t first = context.differences.size();
    compare_messages(context, original, update);
    context.path = std::move(field_path);
    for (size_t i = first; i < context.differences.size(); ++i) {
        if (!is_compatible(context.differences[i].type)) {
            context.add(DifferenceType::FIELD_NAMED_TYPE_CHANGED,
                        original.full_name() + " changed incompatibly");
            return;
        }
    }
}

void compare_labels_and_types(DiffContext& context, Label original_label, Label update_label,
                              const gp::FieldDescriptor& original,
                              const gp::FieldDescriptor& update) {
    const Kind original_kind = kind_of(original);
    const Kind update_kind = kind_of(update);
    if (original_kind != update_kind) {
        context.add(DifferenceType::FIELD_KIND_CHANGED,
                    std::string(kind_name(original_kind)) + " -> " + kind_name(update_kind));
        return;
    }
    switch (original_kind) {
        case Kind::SCALAR: {
            const ScalarKind scalar = scalar_kind_of(original);
            if (scalar != scalar_kind_of(update)) {
                context.add(DifferenceType::FIELD_SCALAR_KIND_CHANGED,
                            scalar_type_name(original) + " -> " + scalar_type_name(update));
            } else if (original_label != Label::NONE && update_label != Label::NONE &&
                       original_label != update_label) {
                context.add(
                    scalar == ScalarKind::STRING_OR_BYTES
                        ? DifferenceType::FIELD_STRING_OR_BYTES_LABEL_CHANGED
                        : DifferenceType::FIELD_NUMERIC_LABEL_CHANGED,
                    std::string(label_name(original_label)) + " -> " + label_name(update_label));
            }
            break;
        }
        case Kind::MESSAGE:
            compare_message_types(context, *original.message_type(), *update.message_type());
            break;
        case Kind::MAP:
            // A map's key and value are compared as fields without labels.
            compare_labels_and_types(context, Label::NONE, Label::NONE,
                                     *original.message_type()->map_key(),
                                     *update.message_type()->map_key());
            compare_labels_and_types(context, Label::NONE, Label::NONE,
                                     *original.message_type()->map_value(),
                                     *update.message_type()->map_value());
            break;
    }
}

}  // namespace

void compare_fields(DiffContext& context, const gp::FieldDescriptor& original,
                    const gp::FieldDescriptor& update) {
    if (original.name() != update.name())
        context.add(DifferenceType::FIELD_NAME_CHANGED, original.name() + " -> " + update.name());
    compare_labels_and_types(context, written_label(original), written_label(update), original,
                             update);
}

}  // namespace skiff::schema_registry::protobuf
