#include "broker/console/protobuf_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "broker/security/scram.h"

namespace skiff::broker::console {

namespace {

namespace gp = google::protobuf;
using nlohmann::json;

json message_json(const gp::Message& message);

json floating(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "Infinity" : "-Infinity";
    return value;
}

// A float as the shortest decimal that reads back as it (1.1f is 1.1, not 1.100000023841858).
json floating(float value) {
    if (!std::isfinite(value))
        return floating(static_cast<double>(value));
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return std::strtod(std::string(text, end).c_str(), nullptr);
}

// The value of a singular field, or of element `index` of a repeated one (index >= 0).
json field_value(const gp::Message& message, const gp::FieldDescriptor& field, int index) {
    const gp::Reflection& r = *message.GetReflection();
    const bool repeated = index >= 0;
    switch (field.cpp_type()) {
        case gp::FieldDescriptor::CPPTYPE_INT32:
            return repeated ? r.GetRepeatedInt32(message, &field, index)
                            : r.GetInt32(message, &field);
        case gp::FieldDescriptor::CPPTYPE_UINT32:
            return repeated ? r.GetRepeatedUInt32(message, &field, index)
                            : r.GetUInt32(message, &field);
        case gp::FieldDescriptor::CPPTYPE_INT64:
            return std::to_string(repeated ? r.GetRepeatedInt64(message, &field, index)
                                           : r.GetInt64(message, &field));
        case gp::FieldDescriptor::CPPTYPE_UINT64:
            return std::to_string(repeated ? r.GetRepeatedUInt64(message, &field, index)
                                           : r.GetUInt64(message, &field));
        case gp::FieldDescriptor::CPPTYPE_DOUBLE:
            return floating(repeated ? r.GetRepeatedDouble(message, &field, index)
                                     : r.GetDouble(message, &field));
        case gp::FieldDescriptor::CPPTYPE_FLOAT:
            return floating(repeated ? r.GetRepeatedFloat(message, &field, index)
                                     : r.GetFloat(message, &field));
        case gp::FieldDescriptor::CPPTYPE_BOOL:
            return repeated ? r.GetRepeatedBool(message, &field, index)
                            : r.GetBool(message, &field);
        case gp::FieldDescriptor::CPPTYPE_ENUM: {
            const int number = repeated ? r.GetRepeatedEnumValue(message, &field, index)
                                        : r.GetEnumValue(message, &field);
            if (field.enum_type()->full_name() == "google.protobuf.NullValue")
                return nullptr;
            const gp::EnumValueDescriptor* value = field.enum_type()->FindValueByNumber(number);
            return value ? json(value->name()) : json(number);
        }
        case gp::FieldDescriptor::CPPTYPE_STRING: {
            std::string scratch;
            const std::string& text =
                repeated ? r.GetRepeatedStringReference(message, &field, index, &scratch)
                         : r.GetStringReference(message, &field, &scratch);
            if (field.type() == gp::FieldDescriptor::TYPE_BYTES)
                return security::base64_encode(text);
            return text;
        }
        case gp::FieldDescriptor::CPPTYPE_MESSAGE:
            return message_json(repeated ? r.GetRepeatedMessage(message, &field, index)
                                         : r.GetMessage(message, &field));
    }
    return nullptr;
}

// A map entry's key as an object key: maps key on integers, bools and strings only.
std::string map_key(const gp::Message& entry) {
    const gp::FieldDescriptor& key = *entry.GetDescriptor()->map_key();
    json value = field_value(entry, key, -1);
    return value.is_string() ? value.get<std::string>() : value.dump();
}

json field_json(const gp::Message& message, const gp::FieldDescriptor& field) {
    if (!field.is_repeated())
        return field_value(message, field, -1);
    const int size = message.GetReflection()->FieldSize(message, &field);
    if (field.is_map()) {
        json object = json::object();
        const gp::FieldDescriptor& value_field = *field.message_type()->map_value();
        for (int i = 0; i < size; ++i) {
            const gp::Message& entry =
                message.GetReflection()->GetRepeatedMessage(message, &field, i);
            object[map_key(entry)] = field_value(entry, value_field, -1);
        }
        return object;
    }
    json array = json::array();
    for (int i = 0; i < size; ++i)
        array.push_back(field_value(message, field, i));
    return array;
}

// ".5", ".500001": the nanoseconds as 0, 3, 6 or 9 digits, as protobuf prints them.
std::string nanos_fraction(int32_t nanos) {
    if (nanos == 0)
        return "";
    char digits[16];
    if (nanos % 1000000 == 0)
        std::snprintf(digits, sizeof digits, ".%03d", nanos / 1000000);
    else if (nanos % 1000 == 0)
        std::snprintf(digits, sizeof digits, ".%06d", nanos / 1000);
    else
        std::snprintf(digits, sizeof digits, ".%09d", nanos);
    return digits;
}

json timestamp_json(int64_t seconds, int32_t nanos) {
    using namespace std::chrono;
    const sys_seconds at{std::chrono::seconds(seconds)};
    const auto day = floor<days>(at);
    const year_month_day date{day};
    const hh_mm_ss time{at - day};
    char text[48];
    std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(date.year()),
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                  static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()));
    return std::string(text) + nanos_fraction(nanos) + "Z";
}

json duration_json(int64_t seconds, int32_t nanos) {
    const bool negative = seconds < 0 || nanos < 0;
    const uint64_t whole = seconds < 0 ? 0 - static_cast<uint64_t>(seconds) : seconds;
    return (negative ? "-" : "") + std::to_string(whole) +
           nanos_fraction(nanos < 0 ? -nanos : nanos) + "s";
}

// FieldMask paths in lowerCamelCase, joined by commas.
json field_mask_json(const gp::Message& message, const gp::FieldDescriptor& paths) {
    std::string out;
    const int size = message.GetReflection()->FieldSize(message, &paths);
    for (int i = 0; i < size; ++i) {
        if (i > 0)
            out += ',';
        bool upper = false;
        for (const char c : message.GetReflection()->GetRepeatedString(message, &paths, i)) {
            if (c == '_') {
                upper = true;
                continue;
            }
            out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
            upper = false;
        }
    }
    return out;
}

// The well-known types with a JSON form of their own, or null when `message` is not one.
std::optional<json> well_known_json(const gp::Message& message) {
    const gp::Descriptor& type = *message.GetDescriptor();
    if (type.file()->package() != "google.protobuf")
        return std::nullopt;
    const gp::Reflection& r = *message.GetReflection();
    const std::string& name = type.name();
    const auto field = [&](const char* field_name) { return type.FindFieldByName(field_name); };
    if (name == "Timestamp" || name == "Duration") {
        const int64_t seconds = r.GetInt64(message, field("seconds"));
        const int32_t nanos = r.GetInt32(message, field("nanos"));
        return name == "Timestamp" ? timestamp_json(seconds, nanos) : duration_json(seconds, nanos);
    }
    if (name.size() > 5 && name.ends_with("Value") && name != "ListValue" && field("value") &&
        type.field_count() == 1)
        return field_value(message, *field("value"), -1);  // the wrappers: DoubleValue, ...
    if (name == "Value") {
        std::vector<const gp::FieldDescriptor*> set;
        r.ListFields(message, &set);
        return set.empty() ? json(nullptr) : field_json(message, *set.front());
    }
    if (name == "Struct")
        return field_json(message, *field("fields"));
    if (name == "ListValue")
        return field_json(message, *field("values"));
    if (name == "Empty")
        return json::object();
    if (name == "FieldMask")
        return field_mask_json(message, *field("paths"));
    if (name == "Any")
        return json{{"@type", r.GetString(message, field("type_url"))},
                    {"value", security::base64_encode(r.GetString(message, field("value")))}};
    return std::nullopt;
}

json message_json(const gp::Message& message) {
    if (auto special = well_known_json(message))
        return std::move(*special);
    std::vector<const gp::FieldDescriptor*> fields;
    message.GetReflection()->ListFields(message, &fields);  // set fields only, by number
    json object = json::object();
    for (const gp::FieldDescriptor* field : fields) {
        const std::string key =
            field->is_extension() ? "[" + field->full_name() + "]" : field->name();
        object[key] = field_json(message, *field);
    }
    return object;
}

}  // namespace

nlohmann::json protobuf_to_json(const google::protobuf::Message& message) {
    return message_json(message);
}

}  // namespace skiff::broker::console
