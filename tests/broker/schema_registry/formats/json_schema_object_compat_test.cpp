// Compatibility of object schemas, both ways for every rule: check(reader, writer) answers
// whether a consumer using `reader` can read data written with `writer` (BACKWARD when reader
// is the new version, FORWARD when it is the old one).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/schema_registry/formats/json_schema_format.h"

namespace skiff::schema_registry {
namespace {

using Found = std::vector<std::string>;

const json_schema::JsonParsedSchema& schema(std::string_view text) {
    static std::vector<std::shared_ptr<const ParsedSchema>> kept;
    ParseOutcome outcome = json_schema_format().parse(text, {}, false);
    EXPECT_NE(outcome.schema, nullptr) << text << ": " << outcome.error;
    kept.push_back(outcome.schema);
    return dynamic_cast<const json_schema::JsonParsedSchema&>(*kept.back());
}

// What check() reports: the incompatibilities, as "ERROR_TYPE path".
Found incompatible(std::string_view reader, std::string_view writer) {
    Found found;
    for (const Incompatibility& i : json_schema_format().check(schema(reader), schema(writer)))
        found.push_back(i.error_type + " " + i.additional_info);
    return found;
}

// Every difference, the compatible ones too, as "TYPE path".
Found differences(std::string_view reader, std::string_view writer) {
    Found found;
    for (const json_schema::Difference& d :
         json_schema::all_differences(schema(reader), schema(writer)))
        found.push_back(std::string(json_schema::difference_name(d.type)) + " " + d.path);
    return found;
}

constexpr const char* kOpen = R"({"type": "object", "properties": {"a": {"type": "string"}}})";
constexpr const char* kOpenPlusB =
    R"({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}})";
constexpr const char* kClosed =
    R"({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false})";
constexpr const char* kClosedPlusB = R"({"type": "object", "additionalProperties": false,
    "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}})";

TEST(JsonSchemaObjectCompatibility, PropertyAddedToAnOpenContentModel) {
    // The old writer could have written "b" with any value: a reader requiring an integer there
    // may fail.
    EXPECT_EQ(incompatible(kOpenPlusB, kOpen),
              Found{"PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b"});
    // Removing it from an open model is fine: the reader accepts "b" as an additional property.
    EXPECT_EQ(incompatible(kOpen, kOpenPlusB), Found{});
    EXPECT_EQ(differences(kOpen, kOpenPlusB),
              Found{"PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL #/properties/b"});
}

TEST(JsonSchemaObjectCompatibility, PropertyWithAnEmptySchemaAddedToAnOpenContentModel) {
    const char* with_any_b =
        R"({"type": "object", "properties": {"a": {"type": "string"}, "b": {}}})";
    EXPECT_EQ(incompatible(with_any_b, kOpen), Found{});
    EXPECT_EQ(differences(with_any_b, kOpen),
              Found{"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b"});
    EXPECT_EQ(incompatible(kOpen, with_any_b), Found{});
}

TEST(JsonSchemaObjectCompatibility, PropertyAddedToAClosedContentModel) {
    EXPECT_EQ(incompatible(kClosedPlusB, kClosed), Found{});
    EXPECT_EQ(differences(kClosedPlusB, kClosed),
              Found{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"});
    // The other way the reader no longer accepts the "b" the writer wrote.
    EXPECT_EQ(incompatible(kClosed, kClosedPlusB),
              Found{"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"});
}

TEST(JsonSchemaObjectCompatibility, RequiredPropertyAddedToAClosedContentModel) {
    const char* required_b = R"({"type": "object", "additionalProperties": false,
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["b"]})";
    const char* required_b_with_default = R"({"type": "object", "additionalProperties": false,
        "properties": {"a": {"type": "string"}, "b": {"type": "integer", "default": 0}},
        "required": ["b"]})";
    EXPECT_EQ(incompatible(required_b, kClosed),
              Found{"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"});
    EXPECT_EQ(incompatible(kClosed, required_b),
              Found{"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"});
    EXPECT_EQ(incompatible(required_b_with_default, kClosed), Found{});
    EXPECT_EQ(differences(required_b_with_default, kClosed),
              Found{"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"});
    EXPECT_EQ(incompatible(kClosed, required_b_with_default),
              Found{"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"});
}

TEST(JsonSchemaObjectCompatibility, FalsePropertyRemovedFromAClosedContentModel) {
    const char* b_forbidden = R"({"type": "object", "additionalProperties": false,
        "properties": {"a": {"type": "string"}, "b": false}})";
    EXPECT_EQ(incompatible(kClosed, b_forbidden), Found{});
    EXPECT_EQ(differences(kClosed, b_forbidden),
              Found{"PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"});
    EXPECT_EQ(incompatible(b_forbidden, kClosed), Found{});
}

TEST(JsonSchemaObjectCompatibility, PropertyAddedOrRemovedUnderAdditionalPropertiesSchema) {
    const char* strings = R"({"properties": {"a": {"type": "string"}},
                             "additionalProperties": {"type": "string"}})";
    const char* strings_plus_b =
        R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                                    "additionalProperties": {"type": "string"}})";
    const char* strings_plus_number_b = R"({"properties": {"a": {"type": "string"},
        "b": {"type": "number"}}, "additionalProperties": {"type": "string"}})";
    // The writer's extra properties were strings: a string "b" reads them, a number "b" not.
    EXPECT_EQ(incompatible(strings_plus_b, strings), Found{});
    EXPECT_EQ(differences(strings_plus_b, strings),
              (Found{"PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b",
                     "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"}));
    EXPECT_EQ(incompatible(strings_plus_number_b, strings),
              (Found{"TYPE_CHANGED #/properties/b",
                     "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b"}));
    // Removed: the reader's additionalProperties must accept what was written as "b".
    EXPECT_EQ(incompatible(strings, strings_plus_b), Found{});
    EXPECT_EQ(differences(strings, strings_plus_b),
              Found{"PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b"});
    EXPECT_EQ(
        incompatible(strings, strings_plus_number_b),
        (Found{"TYPE_CHANGED #/properties/b",
               "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b"}));
}

TEST(JsonSchemaObjectCompatibility, PropertyAddedOrRemovedUnderPatternProperties) {
    const char* patterned = R"({"properties": {"foo": {"type": "string"}},
        "additionalProperties": false,
        "patternProperties": {"^S_": {"type": "string"}, "^I_": {"type": "integer"}}})";
    const char* with_number =
        R"({"properties": {"foo": {"type": "string"}, "I_123": {"type": "number"}},
        "additionalProperties": false,
        "patternProperties": {"^S_": {"type": "string"}, "^I_": {"type": "integer"}}})";
    // I_123 was an integer (by its pattern); reading it as any number is fine.
    EXPECT_EQ(incompatible(with_number, patterned), Found{});
    EXPECT_EQ(differences(with_number, patterned),
              (Found{"TYPE_EXTENDED #/properties/I_123",
                     "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/I_123",
                     "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/I_123"}));
    // The other way a number written as I_123 may not be an integer.
    EXPECT_EQ(
        incompatible(patterned, with_number),
        (Found{"TYPE_NARROWED #/properties/I_123",
               "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/I_123"}));
}

TEST(JsonSchemaObjectCompatibility, PropertyMadeRequired) {
    const char* optional = R"({"properties": {"a": {"type": "string"}}})";
    const char* required = R"({"properties": {"a": {"type": "string"}}, "required": ["a"]})";
    const char* required_with_default =
        R"({"properties": {"a": {"type": "string", "default": "x"}}, "required": ["a"]})";
    EXPECT_EQ(incompatible(required, optional), Found{"REQUIRED_ATTRIBUTE_ADDED #/required/a"});
    EXPECT_EQ(incompatible(optional, required), Found{});
    EXPECT_EQ(differences(optional, required), Found{"REQUIRED_ATTRIBUTE_REMOVED #/required/a"});
    EXPECT_EQ(incompatible(required_with_default, optional), Found{});
    EXPECT_EQ(differences(required_with_default, optional),
              (Found{"REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED #/required/a",
                     "DEFAULT_CHANGED #/properties/a"}));
}

TEST(JsonSchemaObjectCompatibility, ContentModelClosedOrOpened) {
    const char* open = R"({"properties": {}})";
    const char* closed = R"({"properties": {}, "additionalProperties": false})";
    const char* explicitly_open = R"({"properties": {}, "additionalProperties": true})";
    EXPECT_EQ(incompatible(closed, open),
              Found{"ADDITIONAL_PROPERTIES_REMOVED #/additionalProperties"});
    EXPECT_EQ(incompatible(open, closed), Found{});
    EXPECT_EQ(differences(open, closed),
              Found{"ADDITIONAL_PROPERTIES_ADDED #/additionalProperties"});
    EXPECT_EQ(differences(open, explicitly_open), Found{});
    EXPECT_EQ(differences(explicitly_open, open), Found{});
}

TEST(JsonSchemaObjectCompatibility, AdditionalPropertiesSchemaNarrowedOrExtended) {
    const char* any = R"({"additionalProperties": true})";
    const char* numbers = R"({"additionalProperties": {"type": "number"}})";
    const char* strings = R"({"additionalProperties": {"type": "string"}})";
    EXPECT_EQ(incompatible(numbers, any),
              Found{"ADDITIONAL_PROPERTIES_NARROWED #/additionalProperties"});
    EXPECT_EQ(incompatible(any, numbers), Found{});
    EXPECT_EQ(differences(any, numbers),
              Found{"ADDITIONAL_PROPERTIES_EXTENDED #/additionalProperties"});
    EXPECT_EQ(incompatible(strings, numbers), Found{"TYPE_CHANGED #/additionalProperties"});
    EXPECT_EQ(incompatible(numbers, strings), Found{"TYPE_CHANGED #/additionalProperties"});
}

TEST(JsonSchemaObjectCompatibility, PropertyDependencies) {
    const char* none = R"({"properties": {"a": {}, "b": {}, "c": {}}})";
    const char* a_needs_b =
        R"({"properties": {"a": {}, "b": {}, "c": {}}, "dependencies": {"a": ["b"]}})";
    const char* a_needs_bc =
        R"({"properties": {"a": {}, "b": {}, "c": {}}, "dependencies": {"a": ["b", "c"]}})";
    const char* a_needs_c =
        R"({"properties": {"a": {}, "b": {}, "c": {}}, "dependencies": {"a": ["c"]}})";
    EXPECT_EQ(incompatible(a_needs_b, none), Found{"DEPENDENCY_ARRAY_ADDED #/dependencies/a"});
    EXPECT_EQ(incompatible(none, a_needs_b), Found{});
    EXPECT_EQ(differences(none, a_needs_b), Found{"DEPENDENCY_ARRAY_REMOVED #/dependencies/a"});
    EXPECT_EQ(incompatible(a_needs_bc, a_needs_b),
              Found{"DEPENDENCY_ARRAY_EXTENDED #/dependencies/a"});
    EXPECT_EQ(incompatible(a_needs_b, a_needs_bc), Found{});
    EXPECT_EQ(differences(a_needs_b, a_needs_bc),
              Found{"DEPENDENCY_ARRAY_NARROWED #/dependencies/a"});
    EXPECT_EQ(incompatible(a_needs_c, a_needs_b),
              Found{"DEPENDENCY_ARRAY_CHANGED #/dependencies/a"});
    EXPECT_EQ(incompatible(a_needs_b, a_needs_c),
              Found{"DEPENDENCY_ARRAY_CHANGED #/dependencies/a"});
}

TEST(JsonSchemaObjectCompatibility, SchemaDependencies) {
    const char* none = R"({"properties": {"a": {}}})";
    const char* strings =
        R"({"properties": {"a": {}}, "dependencies": {"a": {"properties": {"b": {"type": "string"}}}}})";
    const char* numbers =
        R"({"properties": {"a": {}}, "dependencies": {"a": {"properties": {"b": {"type": "number"}}}}})";
    EXPECT_EQ(incompatible(strings, none), Found{"DEPENDENCY_SCHEMA_ADDED #/dependencies/a"});
    EXPECT_EQ(incompatible(none, strings), Found{});
    EXPECT_EQ(differences(none, strings), Found{"DEPENDENCY_SCHEMA_REMOVED #/dependencies/a"});
    EXPECT_EQ(incompatible(numbers, strings), Found{"TYPE_CHANGED #/dependencies/a/properties/b"});
    // 2019-09's dependentRequired and dependentSchemas are the same rules.
    const char* modern = R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                            "properties": {"a": {}}, "dependentRequired": {"a": ["b"]}})";
    const char* modern_none = R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                 "properties": {"a": {}}})";
    EXPECT_EQ(incompatible(modern, modern_none), Found{"DEPENDENCY_ARRAY_ADDED #/dependencies/a"});
}

TEST(JsonSchemaObjectCompatibility, PropertyCounts) {
    const char* none = R"({"type": "object"})";
    const char* at_most_3 = R"({"type": "object", "maxProperties": 3})";
    const char* at_most_2 = R"({"type": "object", "maxProperties": 2})";
    const char* at_least_1 = R"({"type": "object", "minProperties": 1})";
    const char* at_least_2 = R"({"type": "object", "minProperties": 2})";
    EXPECT_EQ(incompatible(at_most_3, none), Found{"MAX_PROPERTIES_ADDED #/maxProperties"});
    EXPECT_EQ(differences(none, at_most_3), Found{"MAX_PROPERTIES_REMOVED #/maxProperties"});
    EXPECT_EQ(incompatible(at_most_2, at_most_3),
              Found{"MAX_PROPERTIES_DECREASED #/maxProperties"});
    EXPECT_EQ(differences(at_most_3, at_most_2), Found{"MAX_PROPERTIES_INCREASED #/maxProperties"});
    EXPECT_EQ(incompatible(at_least_1, none), Found{"MIN_PROPERTIES_ADDED #/minProperties"});
    EXPECT_EQ(differences(none, at_least_1), Found{"MIN_PROPERTIES_REMOVED #/minProperties"});
    EXPECT_EQ(incompatible(at_least_2, at_least_1),
              Found{"MIN_PROPERTIES_INCREASED #/minProperties"});
    EXPECT_EQ(differences(at_least_1, at_least_2),
              Found{"MIN_PROPERTIES_DECREASED #/minProperties"});
}

TEST(JsonSchemaObjectCompatibility, NestedPropertiesReportTheirPath) {
    const char* before =
        R"({"properties": {"address": {"properties": {"zip": {"type": "string"}}}}})";
    const char* after =
        R"({"properties": {"address": {"properties": {"zip": {"type": "string", "maxLength": 5}}}}})";
    EXPECT_EQ(incompatible(after, before),
              Found{"MAX_LENGTH_ADDED #/properties/address/properties/zip/maxLength"});
    EXPECT_EQ(differences(before, after),
              Found{"MAX_LENGTH_REMOVED #/properties/address/properties/zip/maxLength"});
}

TEST(JsonSchemaObjectCompatibility, TypeObjectOrNotIsTheSameObject) {
    const char* typed = R"({"type": "object", "properties": {"a": {"type": "string"}}})";
    const char* untyped = R"({"properties": {"a": {"type": "string"}}})";
    EXPECT_EQ(differences(typed, untyped), Found{});
    EXPECT_EQ(differences(untyped, typed), Found{});
}

TEST(JsonSchemaObjectCompatibility, AnythingMayBecomeTheEmptySchemaButNotBack) {
    EXPECT_EQ(differences("{}", kClosedPlusB), Found{});
    EXPECT_EQ(differences("true", kOpen), Found{});
    EXPECT_EQ(incompatible(kOpen, "{}"), Found{"TYPE_CHANGED #/"});
    // Nothing was ever written with false: anything reads it.
    EXPECT_EQ(differences(kOpen, "false"), Found{});
}

TEST(JsonSchemaObjectCompatibility, IncompatibilitiesExplainThemselves) {
    std::vector<Incompatibility> found =
        json_schema_format().check(schema(kOpenPlusB), schema(kOpen));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL");
    EXPECT_EQ(found[0].additional_info, "#/properties/b");
    EXPECT_NE(found[0].description.find("property at '#/properties/b'"), std::string::npos);
    EXPECT_NE(found[0].description.find("open content model"), std::string::npos);
    EXPECT_NE(found[0].to_string().find("{errorType:'PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL'"),
              std::string::npos);
}

}  // namespace
}  // namespace skiff::schema_registry
