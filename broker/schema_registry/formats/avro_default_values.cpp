#include "broker/schema_registry/formats/avro_default_values.h"

#include <cstdint>
#include <limits>
#include <string>

#include "broker/schema_registry/formats/avro_java_json.h"

namespace skiff::schema_registry::avro {
namespace {

// A record whose field defaults to a record of its own type can make the "field's own default"
// rule loop forever (Avro Java overflows its stack there); past this depth the default is
// simply invalid.
constexpr int kMaxDefaultDepth = 64;

bool fits_int64(const Json& value) {
    return value.is_number_integer() &&
           (!value.is_number_unsigned() ||
            value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

bool fits_int32(const Json& value) {
    if (!fits_int64(value))
        return false;
    const auto v = value.get<int64_t>();
    return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

bool valid_at(const Node& type, const Json& value, int depth) {
    if (depth > kMaxDefaultDepth)
        return false;
    switch (type.type) {
        case Type::null_:
            return value.is_null();
        case Type::boolean:
            return value.is_boolean();
        case Type::int_:
            return fits_int32(value);
        case Type::long_:
            return fits_int64(value);
        case Type::float_:
        case Type::double_:
            return value.is_number();
        case Type::bytes:
        case Type::string:
        case Type::enum_:
        case Type::fixed:
            return value.is_string();
        case Type::array:
            if (!value.is_array())
                return false;
            for (const auto& element : value)
                if (!valid_at(*type.items, element, depth + 1))
                    return false;
            return true;
        case Type::map:
            if (!value.is_object())
                return false;
            for (const auto& [key, element] : value.items())
                if (!valid_at(*type.items, element, depth + 1))
                    return false;
            return true;
        case Type::union_:
            return valid_at(*type.branches.front(), value, depth + 1);
        case Type::record:
            if (!value.is_object())
                return false;
            for (const auto& field : type.fields) {
                const auto given = value.find(field.name);
                if (given != value.end()) {
                    if (!valid_at(*field.type, *given, depth + 1))
                        return false;
                } else if (!field.default_value ||
                           !valid_at(*field.type, *field.default_value, depth + 1)) {
                    return false;
                }
            }
            return true;
    }
    return false;
}

// Java's String.getBytes(ISO_8859_1) and back: every character past U+00FF becomes '?'.
std::string through_latin1(const std::string& utf8) {
    std::string out;
    for (size_t i = 0; i < utf8.size();) {
        const auto lead = static_cast<unsigned char>(utf8[i]);
        size_t length = 1;
        uint32_t code_point = lead;
        if (lead >= 0xE0) {  // three or four bytes: past U+07FF
            length = lead >= 0xF0 ? 4 : 3;
            code_point = 0x800;
        } else if (lead >= 0xC0) {
            length = 2;
            code_point =
                ((lead & 0x1Fu) << 6) |
                (i + 1 < utf8.size() ? static_cast<unsigned char>(utf8[i + 1]) & 0x3Fu : 0u);
        }
        if (length == 1 || code_point <= 0xFF)
            out.append(utf8, i, length);
        else
            out += '?';
        i += length;
    }
    return out;
}

}  // namespace

bool is_valid_default(const Node& type, const Json& value) {
    return valid_at(type, value, 0);
}

Json normalized_default(const Node* type, const Json& value) {
    if (type != nullptr && type->type == Type::union_)
        return normalized_default(type->branches.front(), value);
    const Type kind = type != nullptr ? type->type : Type::null_;
    if (value.is_number()) {
        if (type != nullptr && kind == Type::float_)
            return through_java_float(value.get<double>());
        if (type != nullptr && kind == Type::double_)
            return value.get<double>();
        return value;
    }
    if (value.is_string()) {
        if (type != nullptr && (kind == Type::bytes || kind == Type::fixed))
            return through_latin1(value.get_ref<const std::string&>());
        return value;
    }
    if (value.is_array()) {
        const Node* items = type != nullptr && kind == Type::array ? type->items : nullptr;
        Json out = Json::array();
        for (const auto& element : value)
            out.push_back(normalized_default(items, element));
        return out;
    }
    if (value.is_object()) {
        Json out = Json::object();
        for (const auto& [key, element] : value.items()) {
            const Node* element_type = nullptr;
            if (type != nullptr && kind == Type::map)
                element_type = type->items;
            if (type != nullptr && kind == Type::record)
                for (const auto& field : type->fields)
                    if (field.name == key)
                        element_type = field.type;
            out[key] = normalized_default(element_type, element);
        }
        return out;
    }
    return value;
}

}  // namespace skiff::schema_registry::avro
