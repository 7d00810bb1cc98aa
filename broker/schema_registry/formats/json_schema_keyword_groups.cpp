// Reading each keyword group of a schema object into its part of the model: the string,
// number, object and array keywords (and "type", which picks the group whatever keywords are
// there). Shapes were checked before (json_schema_keywords.h), so values are read without doubt.
#include <algorithm>

#include "broker/schema_registry/formats/json_schema_graph_builder.h"
#include "broker/schema_registry/formats/json_schema_keywords.h"

namespace skiff::schema_registry::json_schema {

using nlohmann::ordered_json;
namespace {

std::optional<double> number_of(const ordered_json& json, std::string_view key) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

std::optional<std::int64_t> count_of(const ordered_json& json, std::string_view key) {
    std::optional<double> value = number_of(json, key);
    if (!value)
        return std::nullopt;
    // Shapes are checked before building: a non-negative integral number. Beyond int64 it only
    // matters that it compares as larger than anything else.
    constexpr double kLargest = 9.2e18;
    return static_cast<std::int64_t>(std::min(*value, kLargest));
}

std::vector<std::string> strings_of(const ordered_json& array) {
    std::vector<std::string> out;
    for (const ordered_json& item : array)
        out.push_back(item.get<std::string>());
    return out;
}

}  // namespace

SchemaNode& GraphBuilder::string_part(ObjectBeingBuilt& object) {
    consume(object, string_keywords());
    SchemaNode& node = part(object, SchemaKind::kString, "string");
    StringRules rules;
    rules.min_length = count_of(object.json, "minLength");
    rules.max_length = count_of(object.json, "maxLength");
    if (auto it = object.json.find("pattern"); it != object.json.end())
        rules.pattern = it->get<std::string>();
    node.rules = std::move(rules);
    return node;
}

SchemaNode& GraphBuilder::number_part(ObjectBeingBuilt& object, bool integer) {
    consume(object, number_keywords());
    SchemaNode& node = part(object, SchemaKind::kNumber, integer ? "integer" : "number");
    NumberRules rules;
    rules.minimum = number_of(object.json, "minimum");
    rules.maximum = number_of(object.json, "maximum");
    rules.exclusive_minimum = number_of(object.json, "exclusiveMinimum");  // absent if boolean
    rules.exclusive_maximum = number_of(object.json, "exclusiveMaximum");
    rules.multiple_of = number_of(object.json, "multipleOf");
    rules.requires_integer = integer;
    node.rules = rules;
    return node;
}

SchemaNode& GraphBuilder::object_part(ObjectBeingBuilt& object) {
    consume(object, object_keywords(object.draft));
    SchemaNode& node = part(object, SchemaKind::kObject, "object");
    ObjectRules rules;
    const ordered_json& json = object.json;
    if (auto it = json.find("properties"); it != json.end()) {
        for (const auto& [name, value] : it->items())
            rules.properties.emplace_back(name,
                                          child(object, keyword_path("properties", name), value));
    }
    if (auto it = json.find("required"); it != json.end())
        rules.required = strings_of(*it);
    if (auto it = json.find("additionalProperties"); it != json.end()) {
        if (it->is_boolean())
            rules.permits_additional_properties = it->get<bool>();
        else
            rules.additional_properties = child(object, "/additionalProperties", *it);
    }
    if (auto it = json.find("patternProperties"); it != json.end()) {
        for (const auto& [pattern, value] : it->items())
            rules.pattern_properties.emplace_back(
                pattern, child(object, keyword_path("patternProperties", pattern), value));
    }
    auto dependencies = [&](std::string_view keyword) {
        auto it = json.find(keyword);
        if (it == json.end() || (keyword != "dependencies" && object.draft < Draft::k2019_09))
            return;
        for (const auto& [name, value] : it->items()) {
            if (value.is_array())
                rules.property_dependencies.emplace_back(name, strings_of(value));
            else
                rules.schema_dependencies.emplace_back(
                    name, child(object, keyword_path(keyword, name), value));
        }
    };
    dependencies("dependencies");
    dependencies("dependentRequired");
    dependencies("dependentSchemas");
    rules.min_properties = count_of(json, "minProperties");
    rules.max_properties = count_of(json, "maxProperties");
    node.rules = std::move(rules);
    return node;
}

SchemaNode& GraphBuilder::array_part(ObjectBeingBuilt& object) {
    consume(object, array_keywords(object.draft));
    SchemaNode& node = part(object, SchemaKind::kArray, "array");
    ArrayRules rules;
    const ordered_json& json = object.json;
    auto additional = [&](std::string_view keyword) {
        auto it = json.find(keyword);
        if (it == json.end())
            return;
        if (it->is_boolean())
            rules.permits_additional_items = it->get<bool>();
        else
            rules.additional_items = child(object, keyword_path(keyword), *it);
    };
    auto items = json.find("items");
    if (object.draft == Draft::k2020_12) {
        // 2020-12 renamed the tuple form: prefixItems, then "items" for what follows. As in
        // Confluent's translation, a boolean "items" says whether more items may come, with or
        // without prefixItems; a schema is for every item, or for those after prefixItems.
        auto prefix = json.find("prefixItems");
        if (prefix != json.end()) {
            for (std::size_t i = 0; i < prefix->size(); ++i)
                rules.tuple_items.push_back(
                    child(object, keyword_path("prefixItems", std::to_string(i)), (*prefix)[i]));
        }
        if (prefix != json.end() || (items != json.end() && items->is_boolean()))
            additional("items");
        else if (items != json.end())
            rules.all_items = child(object, "/items", *items);
    } else {
        if (items != json.end() && items->is_array()) {
            for (std::size_t i = 0; i < items->size(); ++i)
                rules.tuple_items.push_back(
                    child(object, keyword_path("items", std::to_string(i)), (*items)[i]));
        } else if (items != json.end()) {
            rules.all_items = child(object, "/items", *items);
        }
        additional("additionalItems");
    }
    rules.min_items = count_of(json, "minItems");
    rules.max_items = count_of(json, "maxItems");
    if (auto it = json.find("uniqueItems"); it != json.end())
        rules.unique_items = it->get<bool>();
    node.rules = std::move(rules);
    return node;
}

SchemaNode& GraphBuilder::typed_part(ObjectBeingBuilt& object, const std::string& type) {
    if (type == "string")
        return string_part(object);
    if (type == "integer" || type == "number")
        return number_part(object, type == "integer");
    if (type == "object")
        return object_part(object);
    if (type == "array")
        return array_part(object);
    bool null = type == "null";
    return part(object, null ? SchemaKind::kNull : SchemaKind::kBoolean, null ? "null" : "boolean");
}

}  // namespace skiff::schema_registry::json_schema
