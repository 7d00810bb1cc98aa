#include "broker/schema_registry/formats/protobuf_difference.h"

namespace skiff::schema_registry::protobuf {
namespace {

// The reader is the updated schema, the writer the previous one (check(updated, previous)); the
// registry swaps them for FORWARD, so the sentences never say "new" or "old".
std::string sentence(const Difference& d) {
    const std::string at = "'" + d.path + "'";
    const std::string detail = d.detail.empty() ? "" : " (" + d.detail + ")";
    switch (d.type) {
        case DifferenceType::PACKAGE_CHANGED:
            return "The package of the reader's schema differs from the writer's" + detail +
                   ": every type's full name changes";
        case DifferenceType::MESSAGE_ADDED:
            return "The reader's schema adds the message type at " + at;
        case DifferenceType::MESSAGE_REMOVED:
            return "The reader's schema is missing the message type at " + at +
                   " that the writer's schema has";
        case DifferenceType::MESSAGE_MOVED:
            return "The message type at " + at + " moved; message indexes are per schema id";
        case DifferenceType::ENUM_ADDED:
            return "The reader's schema adds the enum at " + at;
        case DifferenceType::ENUM_REMOVED:
            return "The reader's schema removes the enum at " + at;
        case DifferenceType::ENUM_CONST_ADDED:
            return "The reader's schema adds the enum value at " + at;
        case DifferenceType::ENUM_CONST_CHANGED:
            return "The enum value at " + at + " was renamed" + detail;
        case DifferenceType::ENUM_CONST_REMOVED:
            return "The reader's schema removes the enum value at " + at;
        case DifferenceType::FIELD_ADDED:
            return "The reader's schema adds the field at " + at;
        case DifferenceType::FIELD_REMOVED:
            return "The reader's schema removes the field at " + at;
        case DifferenceType::FIELD_NAME_CHANGED:
            return "The field at " + at + " was renamed" + detail +
                   "; the wire format uses its number";
        case DifferenceType::FIELD_KIND_CHANGED:
            return "The field at " + at + " changes kind" + detail +
                   " between the writer's and the reader's schema";
        case DifferenceType::FIELD_SCALAR_KIND_CHANGED:
            return "The scalar field at " + at + " changes type" + detail +
                   " to one whose wire encoding the writer's data does not have";
        case DifferenceType::FIELD_NAMED_TYPE_CHANGED:
            return "The message field at " + at + " changes type" + detail +
                   " incompatibly between the writer's and the reader's schema";
        case DifferenceType::FIELD_NUMERIC_LABEL_CHANGED:
            return "The numeric field at " + at + " changes label" + detail +
                   "; packed repeated numbers cannot be read as a single value";
        case DifferenceType::FIELD_STRING_OR_BYTES_LABEL_CHANGED:
            return "The string or bytes field at " + at + " changes label" + detail;
        case DifferenceType::REQUIRED_FIELD_ADDED:
            return "The reader's schema requires the field at " + at +
                   ", which the writer's schema does not have";
        case DifferenceType::REQUIRED_FIELD_REMOVED:
            return "The reader's schema is missing the required field at " + at +
                   " of the writer's schema";
        case DifferenceType::ONEOF_ADDED:
            return "The reader's schema adds the oneof at " + at;
        case DifferenceType::ONEOF_REMOVED:
            return "The reader's schema removes the oneof at " + at;
        case DifferenceType::ONEOF_FIELD_ADDED:
            return "The reader's schema adds the oneof field at " + at;
        case DifferenceType::ONEOF_FIELD_REMOVED:
            return "The reader's schema is missing the oneof field at " + at +
                   " of the writer's schema";
        case DifferenceType::ONEOF_FIELD_MOVED_TO_TOP_LEVEL:
            return "The oneof field at " + at + " is a top-level field in the reader's schema";
        case DifferenceType::MULTIPLE_FIELDS_MOVED_TO_ONEOF:
            return "The oneof at " + at + " of the reader's schema holds several fields that are " +
                   "independent in the writer's schema" + detail +
                   ": data that sets more than one of them loses all but the last";
        case DifferenceType::FIELD_MOVED_TO_EXISTING_ONEOF:
            return "The oneof at " + at + " of the reader's schema holds a field that is " +
                   "outside it in the writer's schema together with fields of an existing " +
                   "oneof" + detail + ": data that sets both loses one";
    }
    return {};
}

}  // namespace

std::string_view difference_name(DifferenceType type) {
    switch (type) {
#define SKIFF_PROTOBUF_DIFFERENCE(name) \
    case DifferenceType::name:          \
        return #name;
        SKIFF_PROTOBUF_DIFFERENCE(PACKAGE_CHANGED)
        SKIFF_PROTOBUF_DIFFERENCE(MESSAGE_ADDED)
        SKIFF_PROTOBUF_DIFFERENCE(MESSAGE_REMOVED)
        SKIFF_PROTOBUF_DIFFERENCE(MESSAGE_MOVED)
        SKIFF_PROTOBUF_DIFFERENCE(ENUM_ADDED)
        SKIFF_PROTOBUF_DIFFERENCE(ENUM_REMOVED)
        SKIFF_PROTOBUF_DIFFERENCE(ENUM_CONST_ADDED)
        SKIFF_PROTOBUF_DIFFERENCE(ENUM_CONST_CHANGED)
        SKIFF_PROTOBUF_DIFFERENCE(ENUM_CONST_REMOVED)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_ADDED)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_REMOVED)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_NAME_CHANGED)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_KIND_CHANGED)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_SCALAR_KIND_CHANGED)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_NAMED_TYPE_CHANGED)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_NUMERIC_LABEL_CHANGED)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_STRING_OR_BYTES_LABEL_CHANGED)
        SKIFF_PROTOBUF_DIFFERENCE(REQUIRED_FIELD_ADDED)
        SKIFF_PROTOBUF_DIFFERENCE(REQUIRED_FIELD_REMOVED)
        SKIFF_PROTOBUF_DIFFERENCE(ONEOF_ADDED)
        SKIFF_PROTOBUF_DIFFERENCE(ONEOF_REMOVED)
        SKIFF_PROTOBUF_DIFFERENCE(ONEOF_FIELD_ADDED)
        SKIFF_PROTOBUF_DIFFERENCE(ONEOF_FIELD_REMOVED)
        SKIFF_PROTOBUF_DIFFERENCE(ONEOF_FIELD_MOVED_TO_TOP_LEVEL)
        SKIFF_PROTOBUF_DIFFERENCE(MULTIPLE_FIELDS_MOVED_TO_ONEOF)
        SKIFF_PROTOBUF_DIFFERENCE(FIELD_MOVED_TO_EXISTING_ONEOF)
#undef SKIFF_PROTOBUF_DIFFERENCE
    }
    return "UNKNOWN";
}

bool is_compatible(DifferenceType type) {
    switch (type) {
        case DifferenceType::MESSAGE_ADDED:
        case DifferenceType::MESSAGE_MOVED:
        case DifferenceType::ENUM_ADDED:
        case DifferenceType::ENUM_REMOVED:
        case DifferenceType::ENUM_CONST_ADDED:
        case DifferenceType::ENUM_CONST_CHANGED:
        case DifferenceType::ENUM_CONST_REMOVED:
        case DifferenceType::FIELD_ADDED:
        case DifferenceType::FIELD_REMOVED:
        case DifferenceType::FIELD_NAME_CHANGED:
        case DifferenceType::FIELD_STRING_OR_BYTES_LABEL_CHANGED:
        case DifferenceType::ONEOF_ADDED:
        case DifferenceType::ONEOF_REMOVED:
        case DifferenceType::ONEOF_FIELD_ADDED:
        case DifferenceType::ONEOF_FIELD_MOVED_TO_TOP_LEVEL:
            return true;
        default:
            return false;
    }
}

Incompatibility to_incompatibility(const Difference& difference) {
    return {std::string(difference_name(difference.type)), sentence(difference), difference.path};
}

}  // namespace skiff::schema_registry::protobuf
