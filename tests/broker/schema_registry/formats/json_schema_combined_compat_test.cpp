// Compatibility of allOf, anyOf and oneOf (and of type arrays, which are anyOfs), both ways:
// check(reader, writer) answers whether a consumer using `reader` reads data of `writer`.
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

Found incompatible(std::string_view reader, std::string_view writer) {
    Found found;
    for (const Incompatibility& i : json_schema_format().check(schema(reader), schema(writer)))
        found.push_back(i.error_type + " " + i.additional_info);
    return found;
}

Found differences(std::string_view reader, std::string_view writer) {
    Found found;
    for (const json_schema::Difference& d :
         json_schema::all_differences(schema(reader), schema(writer)))
        found.push_back(std::string(json_schema::difference_name(d.type)) + " " + d.path);
    return found;
}

constexpr const char* kStringOrNumber = R"({"oneOf": [{"type": "string"}, {"type": "number"}]})";
constexpr const char* kStringOrNumberOrNull =
    R"({"oneOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]})";

TEST(JsonSchemaCombinedCompatibility, OneOfWidenedOrNarrowed) {
    EXPECT_EQ(incompatible(kStringOrNumberOrNull, kStringOrNumber), Found{});
    EXPECT_EQ(differences(kStringOrNumberOrNull, kStringOrNumber), Found{"SUM_TYPE_EXTENDED #/"});
    EXPECT_EQ(incompatible(kStringOrNumber, kStringOrNumberOrNull), Found{"SUM_TYPE_NARROWED #/"});
}

TEST(JsonSchemaCombinedCompatibility, AnyOfWidenedOrNarrowed) {
    const char* two = R"({"anyOf": [{"type": "string"}, {"type": "boolean"}]})";
    const char* three = R"({"anyOf": [{"type": "string"}, {"type": "boolean"}, {"type": "null"}]})";
    EXPECT_EQ(differences(three, two), Found{"SUM_TYPE_EXTENDED #/"});
    EXPECT_EQ(incompatible(two, three), Found{"SUM_TYPE_NARROWED #/"});
}

TEST(JsonSchemaCombinedCompatibility, AllOfExtendedOrNarrowed) {
    const char* one = R"({"allOf": [{"type": "string"}]})";
    const char* two = R"({"allOf": [{"type": "string"}, {"maxLength": 5}]})";
    // More conditions read less.
    EXPECT_EQ(incompatible(two, one), Found{"PRODUCT_TYPE_EXTENDED #/"});
    EXPECT_EQ(incompatible(one, two), Found{});
    EXPECT_EQ(differences(one, two), Found{"PRODUCT_TYPE_NARROWED #/"});
}

TEST(JsonSchemaCombinedCompatibility, SubschemaChangedInPlace) {
    const char* before = R"({"oneOf": [{"type": "string", "maxLength": 5}, {"type": "number"}]})";
    const char* after = R"({"oneOf": [{"type": "string", "maxLength": 8}, {"type": "number"}]})";
    EXPECT_EQ(incompatible(after, before), Found{});
    EXPECT_EQ(differences(after, before), Found{"MAX_LENGTH_INCREASED #/oneOf/0/maxLength"});
    // Shorter strings: the writer's long strings match no reader subschema.
    EXPECT_EQ(incompatible(before, after), Found{"COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"});
}

TEST(JsonSchemaCombinedCompatibility, SubschemasAreMatchedWhateverTheirOrder) {
    const char* reordered = R"({"oneOf": [{"type": "number"}, {"type": "string"}]})";
    EXPECT_EQ(differences(reordered, kStringOrNumber), Found{});
    EXPECT_EQ(differences(kStringOrNumber, reordered), Found{});
}

TEST(JsonSchemaCombinedCompatibility, DuplicateSubschemasCollapse) {
    const char* duplicated =
        R"({"oneOf": [{"type": "string"}, {"type": "number"}, {"type": "string"}]})";
    EXPECT_EQ(differences(duplicated, kStringOrNumber), Found{});
    EXPECT_EQ(differences(kStringOrNumber, duplicated), Found{});
}

TEST(JsonSchemaCombinedCompatibility, CriterionChanged) {
    const char* all = R"({"allOf": [{"type": "string"}, {"type": "number"}]})";
    const char* any = R"({"anyOf": [{"type": "string"}, {"type": "number"}]})";
    // Anything read as anyOf reads more.
    EXPECT_EQ(differences(any, kStringOrNumber), Found{"COMBINED_TYPE_EXTENDED #/"});
    EXPECT_EQ(differences(any, all), Found{"COMBINED_TYPE_EXTENDED #/"});
    EXPECT_EQ(incompatible(kStringOrNumber, any), Found{"COMBINED_TYPE_CHANGED #/"});
    EXPECT_EQ(incompatible(all, any), Found{"COMBINED_TYPE_CHANGED #/"});
    EXPECT_EQ(incompatible(all, kStringOrNumber), Found{"COMBINED_TYPE_CHANGED #/"});
    EXPECT_EQ(incompatible(kStringOrNumber, all), Found{"COMBINED_TYPE_CHANGED #/"});
    // Between singletons the criterion means nothing.
    EXPECT_EQ(
        differences(R"({"allOf": [{"type": "string"}]})", R"({"oneOf": [{"type": "string"}]})"),
        Found{"COMBINED_TYPE_EXTENDED #/"});
    EXPECT_EQ(
        differences(R"({"oneOf": [{"type": "string"}]})", R"({"anyOf": [{"type": "string"}]})"),
        Found{"COMBINED_TYPE_EXTENDED #/"});
}

TEST(JsonSchemaCombinedCompatibility, ASchemaBecomingAOneOfOfItself) {
    const char* string = R"({"type": "string"})";
    // Reading a string with a oneOf that has a string branch is fine; the other way, the
    // writer's numbers would not be strings.
    EXPECT_EQ(incompatible(kStringOrNumber, string), Found{});
    EXPECT_EQ(differences(kStringOrNumber, string), Found{"SUM_TYPE_EXTENDED #/"});
    EXPECT_EQ(incompatible(string, kStringOrNumber), Found{"TYPE_CHANGED #/"});
    // A singleton stands for its subschema both ways.
    EXPECT_EQ(differences(R"({"oneOf": [{"type": "string"}]})", string), Found{});
    EXPECT_EQ(differences(string, R"({"anyOf": [{"type": "string"}]})"), Found{});
}

TEST(JsonSchemaCombinedCompatibility, AnAllOfReadThroughOneOfItsParts) {
    const char* bounded = R"({"allOf": [{"type": "string"}, {"maxLength": 5}]})";
    EXPECT_EQ(differences(R"({"type": "string"})", bounded), Found{"PRODUCT_TYPE_NARROWED #/"});
    EXPECT_EQ(incompatible(bounded, R"({"type": "string"})"), Found{"TYPE_CHANGED #/"});
}

TEST(JsonSchemaCombinedCompatibility, NullableTypeArrays) {
    const char* string = R"({"properties": {"a": {"type": "string"}}})";
    const char* nullable = R"({"properties": {"a": {"type": ["string", "null"]}}})";
    EXPECT_EQ(incompatible(nullable, string), Found{});
    EXPECT_EQ(differences(nullable, string), Found{"SUM_TYPE_EXTENDED #/properties/a"});
    EXPECT_EQ(incompatible(string, nullable), Found{"TYPE_CHANGED #/properties/a"});
    const char* nullable_or_number =
        R"({"properties": {"a": {"type": ["string", "null", "number"]}}})";
    EXPECT_EQ(differences(nullable_or_number, nullable), Found{"SUM_TYPE_EXTENDED #/properties/a"});
    EXPECT_EQ(incompatible(nullable, nullable_or_number),
              Found{"SUM_TYPE_NARROWED #/properties/a"});
}

TEST(JsonSchemaCombinedCompatibility, OneOfOfObjectsFollowsTheObjectRules) {
    const char* before = R"({"oneOf": [
        {"type": "object", "properties": {"cat": {"type": "string"}}, "additionalProperties": false},
        {"type": "object", "properties": {"dog": {"type": "string"}}, "additionalProperties": false}]})";
    const char* after = R"({"oneOf": [
        {"type": "object", "properties": {"cat": {"type": "string"}, "age": {"type": "integer"}},
         "additionalProperties": false},
        {"type": "object", "properties": {"dog": {"type": "string"}}, "additionalProperties": false}]})";
    EXPECT_EQ(incompatible(after, before), Found{});
    EXPECT_EQ(differences(after, before),
              Found{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/oneOf/0/properties/age"});
    EXPECT_EQ(incompatible(before, after), Found{"COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"});
}

TEST(JsonSchemaCombinedCompatibility, DeeplyCombinedSchemasStayCheap) {
    // Nested oneOfs compare every branch with every branch at each level; remembering each
    // pair's result keeps this linear in the number of pairs.
    std::string before = R"({"type": "string"})";
    std::string after = R"({"type": "string", "maxLength": 3})";
    for (int level = 0; level < 12; ++level) {
        before = R"({"oneOf": [)" + before + "," + before + R"(, {"type": "null"}]})";
        after = R"({"oneOf": [)" + after + "," + after + R"(, {"type": "null"}]})";
    }
    EXPECT_EQ(incompatible(before, after), Found{});
    EXPECT_EQ(incompatible(after, before), Found{"COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"});
}

}  // namespace
}  // namespace skiff::schema_registry
