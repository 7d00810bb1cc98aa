#include "broker/schema_registry/schema_request.h"

#include <limits>

#include "broker/schema_registry/rest_json.h"

namespace skiff::schema_registry {
namespace {

bool is_blank_body(std::string_view body) {
    for (char c : body) {
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
            return false;
    }
    return true;
}

// The body as a JSON object, or the error Confluent answers.
Expected<Json, RestError> body_object(std::string_view body) {
    if (is_blank_body(body))
        return unexpected(errors::unprocessable_body("Request body is missing"));
    Json json;
    try {
        json = Json::parse(body);
    } catch (const Json::parse_error& e) {
        return unexpected(errors::malformed_body(e.what()));
    }
    if (!json.is_object())
        return unexpected(errors::unprocessable_body("Request body must be a JSON object"));
    return json;
}

RestError wrong_type(std::string_view field, std::string_view expected) {
    return errors::unprocessable_body("Field '" + std::string(field) + "' must be " +
                                      std::string(expected));
}

const Json* present(const Json& object, std::string_view field) {
    auto it = object.find(field);
    if (it == object.end() || it->is_null())
        return nullptr;
    return &*it;
}

Expected<std::optional<std::string>, RestError> string_field(const Json& object,
                                                             std::string_view field) {
    const Json* value = present(object, field);
    if (value == nullptr)
        return std::optional<std::string>();
    if (!value->is_string())
        return unexpected(wrong_type(field, "a string"));
    return std::optional<std::string>(value->get<std::string>());
}

Expected<std::optional<int32_t>, RestError> int_field(const Json& object, std::string_view field) {
    const Json* value = present(object, field);
    if (value == nullptr)
        return std::optional<int32_t>();
    if (!value->is_number_integer())
        return unexpected(wrong_type(field, "an integer"));
    if (value->is_number_unsigned()) {
        if (value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
            return unexpected(wrong_type(field, "a 32-bit integer"));
    } else {
        const auto v = value->get<int64_t>();
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
            return unexpected(wrong_type(field, "a 32-bit integer"));
    }
    return std::optional<int32_t>(value->get<int32_t>());
}

Expected<std::vector<SchemaReference>, RestError> references_field(const Json& object) {
    std::vector<SchemaReference> references;
    const Json* value = present(object, "references");
    if (value == nullptr)
        return references;
    if (!value->is_array())
        return unexpected(wrong_type("references", "an array"));
    for (const Json& r : *value) {
        if (!r.is_object())
            return unexpected(wrong_type("references", "an array of objects"));
        auto name = string_field(r, "name");
        auto subject = string_field(r, "subject");
        auto version = int_field(r, "version");
        if (!name)
            return unexpected(name.error());
        if (!subject)
            return unexpected(subject.error());
        if (!version)
            return unexpected(version.error());
        // A reference missing a part is refused later as an invalid schema (42201), as
        // Confluent refuses it when resolving; here an absent part is kept as empty / 0.
        references.push_back({name->value_or(""), subject->value_or(""), version->value_or(0)});
    }
    return references;
}

}  // namespace

Expected<SchemaRequest, RestError> parse_schema_request(std::string_view body) {
    auto json = body_object(body);
    if (!json)
        return unexpected(json.error());
    SchemaRequest request;
    auto schema = string_field(*json, "schema");
    auto type = string_field(*json, "schemaType");
    auto references = references_field(*json);
    auto id = int_field(*json, "id");
    auto version = int_field(*json, "version");
    if (!schema)
        return unexpected(schema.error());
    if (!type)
        return unexpected(type.error());
    if (!references)
        return unexpected(references.error());
    if (!id)
        return unexpected(id.error());
    if (!version)
        return unexpected(version.error());
    request.schema = schema->value_or("");
    request.schema_type = type->value_or("");
    request.references = std::move(*references);
    request.id = *id;
    request.version = *version;
    return request;
}

Expected<std::optional<std::string>, RestError> parse_config_request(std::string_view body) {
    auto json = body_object(body);
    if (!json)
        return unexpected(json.error());
    auto level = string_field(*json, "compatibility");
    if (!level)
        return unexpected(level.error());
    if (*level)
        return *level;
    return string_field(*json, "compatibilityLevel");
}

Expected<std::optional<std::string>, RestError> parse_mode_request(std::string_view body) {
    auto json = body_object(body);
    if (!json)
        return unexpected(json.error());
    return string_field(*json, "mode");
}

}  // namespace skiff::schema_registry
