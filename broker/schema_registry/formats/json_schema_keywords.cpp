#include "broker/schema_registry/formats/json_schema_keywords.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <regex>
#include <set>

#include "broker/schema_registry/formats/json_schema_uri.h"

namespace skiff::schema_registry::json_schema {
namespace {

using nlohmann::ordered_json;

enum class Shape {
    kString,
    kBoolean,
    kNumber,
    kPositiveNumber,      // multipleOf
    kNonNegativeInteger,  // the length and count limits
    kExclusiveLimit,      // a boolean in draft 4, a number after
    kStringArray,         // required
    kArray,               // enum
    kType,                // a type name or a non-empty array of distinct ones
    kPattern,             // a string that compiles as a regular expression
    kAny,                 // const, default
    kSchema,              // an object or a boolean
    kSchemaArray,         // a non-empty array of schemas
    kSchemaMap,           // an object whose values are schemas
    kPatternSchemaMap,    // patternProperties: the same, keyed by regular expressions
    kItems,               // a schema, or (until 2019-09) an array of schemas
    kDependencies,        // an object of schemas or arrays of property names
    kDependentRequired,   // an object of arrays of property names
};

struct Keyword {
    std::string_view name;
    Shape shape;
    Draft since = Draft::k4;
    Draft until = Draft::k2020_12;
};

// Every keyword skiff checks. "$defs" is a map of schemas in every draft because Confluent
// resolves "#/$defs/X" in drafts 4 to 7 too.
constexpr std::array kKeywords = {
    Keyword{"$schema", Shape::kString},
    Keyword{"id", Shape::kString, Draft::k4, Draft::k4},
    Keyword{"$id", Shape::kString, Draft::k6},
    Keyword{"$ref", Shape::kString},
    Keyword{"$anchor", Shape::kString, Draft::k2019_09},
    Keyword{"$comment", Shape::kString, Draft::k7},
    Keyword{"title", Shape::kString},
    Keyword{"description", Shape::kString},
    Keyword{"format", Shape::kString},
    Keyword{"contentMediaType", Shape::kString, Draft::k7},
    Keyword{"contentEncoding", Shape::kString, Draft::k7},
    Keyword{"readOnly", Shape::kBoolean, Draft::k7},
    Keyword{"writeOnly", Shape::kBoolean, Draft::k7},
    Keyword{"deprecated", Shape::kBoolean, Draft::k2019_09},
    Keyword{"type", Shape::kType},
    Keyword{"enum", Shape::kArray},
    Keyword{"const", Shape::kAny, Draft::k6},
    Keyword{"default", Shape::kAny},
    Keyword{"allOf", Shape::kSchemaArray},
    Keyword{"anyOf", Shape::kSchemaArray},
    Keyword{"oneOf", Shape::kSchemaArray},
    Keyword{"not", Shape::kSchema},
    Keyword{"if", Shape::kSchema, Draft::k7},
    Keyword{"then", Shape::kSchema, Draft::k7},
    Keyword{"else", Shape::kSchema, Draft::k7},
    Keyword{"minLength", Shape::kNonNegativeInteger},
    Keyword{"maxLength", Shape::kNonNegativeInteger},
    Keyword{"pattern", Shape::kPattern},
    Keyword{"minimum", Shape::kNumber},
    Keyword{"maximum", Shape::kNumber},
    Keyword{"exclusiveMinimum", Shape::kExclusiveLimit},
    Keyword{"exclusiveMaximum", Shape::kExclusiveLimit},
    Keyword{"multipleOf", Shape::kPositiveNumber},
    Keyword{"items", Shape::kItems},
    Keyword{"prefixItems", Shape::kSchemaArray, Draft::k2020_12},
    Keyword{"additionalItems", Shape::kSchema, Draft::k4, Draft::k2019_09},
    Keyword{"unevaluatedItems", Shape::kSchema, Draft::k2019_09},
    Keyword{"contains", Shape::kSchema, Draft::k6},
    Keyword{"minContains", Shape::kNonNegativeInteger, Draft::k2019_09},
    Keyword{"maxContains", Shape::kNonNegativeInteger, Draft::k2019_09},
    Keyword{"minItems", Shape::kNonNegativeInteger},
    Keyword{"maxItems", Shape::kNonNegativeInteger},
    Keyword{"uniqueItems", Shape::kBoolean},
    Keyword{"properties", Shape::kSchemaMap},
    Keyword{"patternProperties", Shape::kPatternSchemaMap},
    Keyword{"additionalProperties", Shape::kSchema},
    Keyword{"unevaluatedProperties", Shape::kSchema, Draft::k2019_09},
    Keyword{"propertyNames", Shape::kSchema, Draft::k6},
    Keyword{"required", Shape::kStringArray},
    Keyword{"minProperties", Shape::kNonNegativeInteger},
    Keyword{"maxProperties", Shape::kNonNegativeInteger},
    Keyword{"dependencies", Shape::kDependencies},
    Keyword{"dependentRequired", Shape::kDependentRequired, Draft::k2019_09},
    Keyword{"dependentSchemas", Shape::kSchemaMap, Draft::k2019_09},
    Keyword{"definitions", Shape::kSchemaMap},
    Keyword{"$defs", Shape::kSchemaMap},
    Keyword{"contentSchema", Shape::kSchema, Draft::k2019_09},
};

bool applies(const Keyword& keyword, Draft draft) {
    return keyword.since <= draft && draft <= keyword.until;
}

bool is_schema(const ordered_json& value) {
    return value.is_object() || value.is_boolean();
}

bool is_integral(const ordered_json& value) {
    if (value.is_number_integer())
        return true;
    // Draft 6 made 1.0 an integer; nlohmann reads it as a double.
    return value.is_number_float() && std::isfinite(value.get<double>()) &&
           std::floor(value.get<double>()) == value.get<double>();
}

std::string found(const ordered_json& value) {
    std::string_view name = value.type_name();
    bool vowel = name[0] == 'a' || name[0] == 'o';
    return std::string(", found ") +
           (value.is_null() ? ""
            : vowel         ? "an "
                            : "a ") +
           std::string(name);
}

// Why a pattern is not a regular expression; empty when it is, or may be. std::regex knows the
// ECMAScript of 1999, so a pattern using what later ECMAScript or Java (which Confluent checks
// patterns with) added is given the benefit of the doubt: Unicode classes (\p{L}), named groups,
// lookbehind, inline flags. Broken syntax ("[a-z", "(") is still refused.
std::string check_regex(std::string_view what, const std::string& pattern) {
    try {
        std::regex compiled(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
        static const std::regex later_syntax(R"(\\[pPk]\{|\\k<|\(\?<|\(\?[a-zA-Z-]+[:)])");
        if (std::regex_search(pattern, later_syntax))
            return {};
        return std::string(what) + " '" + pattern + "' is not a valid regular expression";
    }
    return {};
}

bool is_type_name(const ordered_json& value) {
    static const std::set<std::string, std::less<>> names = {"array",  "boolean", "integer", "null",
                                                             "number", "object",  "string"};
    return value.is_string() && names.contains(value.get_ref<const std::string&>());
}

// Why `value`, the value of `keyword`, does not have its shape; empty when it has.
std::string check_shape(const Keyword& keyword, const ordered_json& value, Draft draft) {
    std::string name = "'" + std::string(keyword.name) + "'";
    switch (keyword.shape) {
        case Shape::kString:
            return value.is_string() ? "" : name + " must be a string" + found(value);
        case Shape::kBoolean:
            return value.is_boolean() ? "" : name + " must be a boolean" + found(value);
        case Shape::kNumber:
            return value.is_number() ? "" : name + " must be a number" + found(value);
        case Shape::kPositiveNumber:
            return value.is_number() && value.get<double>() > 0
                       ? ""
                       : name + " must be a number greater than 0" +
                             (value.is_number() ? ", found " + value.dump() : found(value));
        case Shape::kNonNegativeInteger:
            return is_integral(value) && value.get<double>() >= 0
                       ? ""
                       : name + " must be a non-negative integer" +
                             (value.is_number() ? ", found " + value.dump() : found(value));
        case Shape::kExclusiveLimit:
            if (draft == Draft::k4)
                return value.is_boolean() ? ""
                                          : name + " must be a boolean in draft 4" + found(value);
            return value.is_number() ? "" : name + " must be a number" + found(value);
        case Shape::kStringArray:
            if (!value.is_array())
                return name + " must be an array of strings" + found(value);
            for (const ordered_json& item : value) {
                if (!item.is_string())
                    return name + " must be an array of strings, found " + item.dump() + " in it";
            }
            return "";
        case Shape::kArray:
            return value.is_array() ? "" : name + " must be an array" + found(value);
        case Shape::kType: {
            if (is_type_name(value))
                return "";
            if (!value.is_array() || value.empty())
                return name +
                       " must be one of array, boolean, integer, null, number, object, string "
                       "or a non-empty array of them, found " +
                       value.dump();
            std::set<std::string> seen;
            for (const ordered_json& item : value) {
                if (!is_type_name(item))
                    return name + " has " + item.dump() + ", which is not a type name";
                if (!seen.insert(item.get<std::string>()).second)
                    return name + " names " + item.dump() + " twice";
            }
            return "";
        }
        case Shape::kPattern:
            if (!value.is_string())
                return name + " must be a string" + found(value);
            return check_regex(name, value.get<std::string>());
        case Shape::kAny:
            return "";
        case Shape::kSchema:
            return is_schema(value)
                       ? ""
                       : name + " must be a schema (an object or a boolean)" + found(value);
        case Shape::kItems:
            if (is_schema(value))
                return "";
            if (draft == Draft::k2020_12)
                return name + " must be a schema (an object or a boolean)" + found(value);
            [[fallthrough]];
        case Shape::kSchemaArray:
            if (!value.is_array() || value.empty())
                return name + " must be a non-empty array of schemas" + found(value);
            for (const ordered_json& item : value) {
                if (!is_schema(item))
                    return name + " must hold schemas (objects or booleans), found " + item.dump();
            }
            return "";
        case Shape::kSchemaMap:
        case Shape::kPatternSchemaMap:
            if (!value.is_object())
                return name + " must be an object of schemas" + found(value);
            for (const auto& [key, item] : value.items()) {
                if (!is_schema(item))
                    return std::string(name)
                        .append(" must hold schemas (objects or booleans), found ")
                        .append(item.dump())
                        .append(" for '")
                        .append(key)
                        .append("'");
                if (keyword.shape == Shape::kPatternSchemaMap) {
                    if (std::string error = check_regex("the key", key); !error.empty())
                        return std::string(name).append(": ").append(error);
                }
            }
            return "";
        case Shape::kDependencies:
        case Shape::kDependentRequired:
            if (!value.is_object())
                return name + " must be an object" + found(value);
            for (const auto& [key, item] : value.items()) {
                bool names = item.is_array() && std::all_of(item.begin(), item.end(),
                                                            [](auto& i) { return i.is_string(); });
                if (!names && !(keyword.shape == Shape::kDependencies && is_schema(item)))
                    return std::string(name)
                        .append(" must map '")
                        .append(key)
                        .append("' to ")
                        .append(keyword.shape == Shape::kDependencies ? "a schema or " : "")
                        .append("an array of property names, found ")
                        .append(item.dump());
            }
            return "";
    }
    return "";
}

void check_subschemas(const ordered_json& schema, Draft draft, const std::string& pointer,
                      std::string& error) {
    if (!schema.is_object())
        return;
    if (std::string why = check_keyword_shapes(schema, draft); !why.empty()) {
        error = (pointer.empty() ? "#" : "#" + pointer) + ": " + why;
        return;
    }
    for_each_subschema(schema, draft, [&](const ordered_json& child, const std::string& to) {
        if (error.empty())
            check_subschemas(child, draft, pointer + to, error);
    });
}

constexpr std::array<std::string_view, 4> kStringKeywords = {"minLength", "maxLength", "pattern",
                                                             "format"};
constexpr std::array<std::string_view, 5> kNumberKeywords = {
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"};
constexpr std::array<std::string_view, 5> kArrayKeywords4 = {"items", "additionalItems", "minItems",
                                                             "maxItems", "uniqueItems"};
constexpr std::array<std::string_view, 6> kArrayKeywords6 = {
    "items", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains"};
constexpr std::array<std::string_view, 10> kArrayKeywords2019 = {
    "items",    "additionalItems", "minItems",         "maxItems",    "uniqueItems",
    "contains", "prefixItems",     "unevaluatedItems", "minContains", "maxContains"};
constexpr std::array<std::string_view, 7> kObjectKeywords4 = {
    "properties",   "required",          "minProperties",       "maxProperties",
    "dependencies", "patternProperties", "additionalProperties"};
constexpr std::array<std::string_view, 8> kObjectKeywords6 = {
    "properties",   "required",          "minProperties",        "maxProperties",
    "dependencies", "patternProperties", "additionalProperties", "propertyNames"};
constexpr std::array<std::string_view, 11> kObjectKeywords2019 = {
    "properties",        "required",          "minProperties",        "maxProperties",
    "dependencies",      "patternProperties", "additionalProperties", "propertyNames",
    "dependentRequired", "dependentSchemas",  "unevaluatedProperties"};

}  // namespace

std::span<const std::string_view> string_keywords() {
    return kStringKeywords;
}

std::span<const std::string_view> number_keywords() {
    return kNumberKeywords;
}

std::span<const std::string_view> array_keywords(Draft draft) {
    if (draft == Draft::k4)
        return kArrayKeywords4;
    if (draft <= Draft::k7)
        return kArrayKeywords6;
    return kArrayKeywords2019;
}

std::span<const std::string_view> object_keywords(Draft draft) {
    if (draft == Draft::k4)
        return kObjectKeywords4;
    if (draft <= Draft::k7)
        return kObjectKeywords6;
    return kObjectKeywords2019;
}

void for_each_subschema(const ordered_json& schema, Draft draft, const SubschemaVisitor& visit) {
    for (const Keyword& keyword : kKeywords) {
        if (!applies(keyword, draft))
            continue;
        auto it = schema.find(keyword.name);
        if (it == schema.end())
            continue;
        std::string at = "/" + escape_pointer_token(keyword.name);
        switch (keyword.shape) {
            case Shape::kSchema:
                visit(*it, at);
                break;
            case Shape::kItems:
                if (!it->is_array()) {
                    visit(*it, at);
                    break;
                }
                [[fallthrough]];
            case Shape::kSchemaArray:
                for (std::size_t i = 0; i < it->size(); ++i)
                    visit((*it)[i], at + "/" + std::to_string(i));
                break;
            case Shape::kSchemaMap:
            case Shape::kPatternSchemaMap:
            case Shape::kDependencies:
                for (const auto& [key, item] : it->items()) {
                    if (is_schema(item))
                        visit(item, at + "/" + escape_pointer_token(key));
                }
                break;
            default:
                break;
        }
    }
}

std::string check_keyword_shapes(const ordered_json& schema, Draft draft) {
    for (const Keyword& keyword : kKeywords) {
        if (!applies(keyword, draft))
            continue;
        auto it = schema.find(keyword.name);
        if (it == schema.end())
            continue;
        if (std::string why = check_shape(keyword, *it, draft); !why.empty())
            return why;
    }
    return "";
}

std::string check_document(const ordered_json& document, Draft draft) {
    std::string error;
    check_subschemas(document, draft, "", error);
    return error;
}

}  // namespace skiff::schema_registry::json_schema
