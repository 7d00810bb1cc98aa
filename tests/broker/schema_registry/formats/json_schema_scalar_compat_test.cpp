// Compatibility of types, strings, numbers, enums, consts and "not", both ways for every rule:
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

TEST(JsonSchemaScalarCompatibility, NumberNarrowedToIntegerOrIntegerWidenedToNumber) {
    const char* number = R"({"type": "number"})";
    const char* integer = R"({"type": "integer"})";
    EXPECT_EQ(incompatible(integer, number), Found{"TYPE_NARROWED #/"});
    EXPECT_EQ(incompatible(number, integer), Found{});
    EXPECT_EQ(differences(number, integer), Found{"TYPE_EXTENDED #/"});
}

TEST(JsonSchemaScalarCompatibility, TypeChanged) {
    EXPECT_EQ(incompatible(R"({"type": "integer"})", R"({"type": "string"})"),
              Found{"TYPE_CHANGED #/"});
    EXPECT_EQ(incompatible(R"({"type": "string"})", R"({"type": "integer"})"),
              Found{"TYPE_CHANGED #/"});
    EXPECT_EQ(incompatible(R"({"type": "null"})", R"({"type": "boolean"})"),
              Found{"TYPE_CHANGED #/"});
    EXPECT_EQ(incompatible(R"({"type": "boolean"})", R"({"type": "null"})"),
              Found{"TYPE_CHANGED #/"});
    EXPECT_EQ(differences(R"({"type": "boolean"})", R"({"type": "boolean"})"), Found{});
}

TEST(JsonSchemaScalarCompatibility, MaxLength) {
    const char* free = R"({"type": "string"})";
    const char* at_most_10 = R"({"type": "string", "maxLength": 10})";
    const char* at_most_12 = R"({"type": "string", "maxLength": 12})";
    EXPECT_EQ(incompatible(at_most_10, free), Found{"MAX_LENGTH_ADDED #/maxLength"});
    EXPECT_EQ(differences(free, at_most_10), Found{"MAX_LENGTH_REMOVED #/maxLength"});
    EXPECT_EQ(incompatible(at_most_10, at_most_12), Found{"MAX_LENGTH_DECREASED #/maxLength"});
    EXPECT_EQ(incompatible(at_most_12, at_most_10), Found{});
    EXPECT_EQ(differences(at_most_12, at_most_10), Found{"MAX_LENGTH_INCREASED #/maxLength"});
}

TEST(JsonSchemaScalarCompatibility, MinLength) {
    const char* free = R"({"type": "string"})";
    const char* at_least_10 = R"({"type": "string", "minLength": 10})";
    const char* at_least_11 = R"({"type": "string", "minLength": 11})";
    EXPECT_EQ(incompatible(at_least_10, free), Found{"MIN_LENGTH_ADDED #/minLength"});
    EXPECT_EQ(differences(free, at_least_10), Found{"MIN_LENGTH_REMOVED #/minLength"});
    EXPECT_EQ(incompatible(at_least_11, at_least_10), Found{"MIN_LENGTH_INCREASED #/minLength"});
    EXPECT_EQ(incompatible(at_least_10, at_least_11), Found{});
    EXPECT_EQ(differences(at_least_10, at_least_11), Found{"MIN_LENGTH_DECREASED #/minLength"});
}

TEST(JsonSchemaScalarCompatibility, Pattern) {
    const char* free = R"({"type": "string"})";
    const char* dates = R"({"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"})";
    const char* ids = R"({"type": "string", "pattern": "^[a-z]+$"})";
    EXPECT_EQ(incompatible(dates, free), Found{"PATTERN_ADDED #/pattern"});
    EXPECT_EQ(incompatible(free, dates), Found{});
    EXPECT_EQ(differences(free, dates), Found{"PATTERN_REMOVED #/pattern"});
    EXPECT_EQ(incompatible(ids, dates), Found{"PATTERN_CHANGED #/pattern"});
    EXPECT_EQ(incompatible(dates, ids), Found{"PATTERN_CHANGED #/pattern"});
    EXPECT_EQ(differences(dates, dates), Found{});
}

TEST(JsonSchemaScalarCompatibility, Maximum) {
    const char* free = R"({"type": "number"})";
    const char* up_to_10 = R"({"type": "number", "maximum": 10})";
    const char* up_to_11 = R"({"type": "number", "maximum": 11})";
    EXPECT_EQ(incompatible(up_to_10, free), Found{"MAXIMUM_ADDED #/maximum"});
    EXPECT_EQ(differences(free, up_to_10), Found{"MAXIMUM_REMOVED #/maximum"});
    EXPECT_EQ(incompatible(up_to_10, up_to_11), Found{"MAXIMUM_DECREASED #/maximum"});
    EXPECT_EQ(incompatible(up_to_11, up_to_10), Found{});
    EXPECT_EQ(differences(up_to_11, up_to_10), Found{"MAXIMUM_INCREASED #/maximum"});
    // 10 and 10.0 are the same limit.
    EXPECT_EQ(differences(R"({"type": "number", "maximum": 10.0})", up_to_10), Found{});
}

TEST(JsonSchemaScalarCompatibility, Minimum) {
    const char* free = R"({"type": "number"})";
    const char* from_10 = R"({"type": "number", "minimum": 10})";
    const char* from_11 = R"({"type": "number", "minimum": 11})";
    EXPECT_EQ(incompatible(from_10, free), Found{"MINIMUM_ADDED #/minimum"});
    EXPECT_EQ(differences(free, from_10), Found{"MINIMUM_REMOVED #/minimum"});
    EXPECT_EQ(incompatible(from_11, from_10), Found{"MINIMUM_INCREASED #/minimum"});
    EXPECT_EQ(incompatible(from_10, from_11), Found{});
    EXPECT_EQ(differences(from_10, from_11), Found{"MINIMUM_DECREASED #/minimum"});
}

TEST(JsonSchemaScalarCompatibility, ExclusiveLimits) {
    const char* free = R"({"type": "number"})";
    const char* below_10 = R"({"type": "number", "exclusiveMaximum": 10})";
    const char* below_5 = R"({"type": "number", "exclusiveMaximum": 5})";
    const char* above_0 = R"({"type": "number", "exclusiveMinimum": 0})";
    const char* above_1 = R"({"type": "number", "exclusiveMinimum": 1})";
    EXPECT_EQ(incompatible(below_10, free), Found{"EXCLUSIVE_MAXIMUM_ADDED #/exclusiveMaximum"});
    EXPECT_EQ(differences(free, below_10), Found{"EXCLUSIVE_MAXIMUM_REMOVED #/exclusiveMaximum"});
    EXPECT_EQ(incompatible(below_5, below_10),
              Found{"EXCLUSIVE_MAXIMUM_DECREASED #/exclusiveMaximum"});
    EXPECT_EQ(differences(below_10, below_5),
              Found{"EXCLUSIVE_MAXIMUM_INCREASED #/exclusiveMaximum"});
    EXPECT_EQ(incompatible(above_0, free), Found{"EXCLUSIVE_MINIMUM_ADDED #/exclusiveMinimum"});
    EXPECT_EQ(differences(free, above_0), Found{"EXCLUSIVE_MINIMUM_REMOVED #/exclusiveMinimum"});
    EXPECT_EQ(incompatible(above_1, above_0),
              Found{"EXCLUSIVE_MINIMUM_INCREASED #/exclusiveMinimum"});
    EXPECT_EQ(differences(above_0, above_1),
              Found{"EXCLUSIVE_MINIMUM_DECREASED #/exclusiveMinimum"});
}

TEST(JsonSchemaScalarCompatibility, Draft4ExclusiveFlagsAreNotComparedAsInConfluent) {
    const char* inclusive = R"({"$schema": "http://json-schema.org/draft-04/schema#",
                               "type": "number", "maximum": 10})";
    const char* exclusive = R"({"$schema": "http://json-schema.org/draft-04/schema#",
                               "type": "number", "maximum": 10, "exclusiveMaximum": true})";
    EXPECT_EQ(differences(exclusive, inclusive), Found{});
}

TEST(JsonSchemaScalarCompatibility, MultipleOf) {
    const char* free = R"({"type": "number"})";
    const char* of_10 = R"({"type": "number", "multipleOf": 10})";
    const char* of_2 = R"({"type": "number", "multipleOf": 2})";
    const char* of_3 = R"({"type": "number", "multipleOf": 3})";
    EXPECT_EQ(incompatible(of_10, free), Found{"MULTIPLE_OF_ADDED #/multipleOf"});
    EXPECT_EQ(differences(free, of_10), Found{"MULTIPLE_OF_REMOVED #/multipleOf"});
    // Multiples of 10 are multiples of 2: reading them with 2 is fine, the other way not.
    EXPECT_EQ(incompatible(of_2, of_10), Found{});
    EXPECT_EQ(differences(of_2, of_10), Found{"MULTIPLE_OF_REDUCED #/multipleOf"});
    EXPECT_EQ(incompatible(of_10, of_2), Found{"MULTIPLE_OF_EXPANDED #/multipleOf"});
    EXPECT_EQ(incompatible(of_3, of_2), Found{"MULTIPLE_OF_CHANGED #/multipleOf"});
    EXPECT_EQ(incompatible(of_2, of_3), Found{"MULTIPLE_OF_CHANGED #/multipleOf"});
}

TEST(JsonSchemaScalarCompatibility, MultipleOfDecimals) {
    const char* tenth = R"({"type": "number", "multipleOf": 0.1})";
    const char* three_tenths = R"({"type": "number", "multipleOf": 0.3})";
    const char* quarter = R"({"type": "number", "multipleOf": 0.25})";
    EXPECT_EQ(differences(tenth, three_tenths), Found{"MULTIPLE_OF_REDUCED #/multipleOf"});
    EXPECT_EQ(incompatible(three_tenths, tenth), Found{"MULTIPLE_OF_EXPANDED #/multipleOf"});
    EXPECT_EQ(incompatible(quarter, tenth), Found{"MULTIPLE_OF_CHANGED #/multipleOf"});
    EXPECT_EQ(differences(R"({"type": "number", "multipleOf": 0.50})",
                          R"({"type": "number", "multipleOf": 0.5})"),
              Found{});
}

TEST(JsonSchemaScalarCompatibility, Enum) {
    const char* rg = R"({"enum": ["red", "green"]})";
    const char* rgb = R"({"enum": ["red", "green", "blue"]})";
    const char* rb = R"({"enum": ["red", "blue"]})";
    EXPECT_EQ(incompatible(rgb, rg), Found{});
    EXPECT_EQ(differences(rgb, rg), Found{"ENUM_ARRAY_EXTENDED #/enum"});
    EXPECT_EQ(incompatible(rg, rgb), Found{"ENUM_ARRAY_NARROWED #/enum"});
    EXPECT_EQ(incompatible(rb, rg), Found{"ENUM_ARRAY_CHANGED #/enum"});
    EXPECT_EQ(incompatible(rg, rb), Found{"ENUM_ARRAY_CHANGED #/enum"});
    // Order does not matter, values do.
    EXPECT_EQ(differences(R"({"enum": ["green", "red"]})", rg), Found{});
    EXPECT_EQ(incompatible(R"({"enum": [1, "1"]})", R"({"enum": [1, 2]})"),
              Found{"ENUM_ARRAY_CHANGED #/enum"});
}

TEST(JsonSchemaScalarCompatibility, TypedEnumIsAnAllOfAsInConfluent) {
    // {"type": "string", "enum": [...]} is the allOf of an enum schema and a string schema.
    const char* typed_rg = R"({"type": "string", "enum": ["red", "green"]})";
    const char* typed_rgb = R"({"type": "string", "enum": ["red", "green", "blue"]})";
    const char* string = R"({"type": "string"})";
    EXPECT_EQ(incompatible(typed_rgb, typed_rg), Found{});
    EXPECT_EQ(differences(typed_rgb, typed_rg), Found{"ENUM_ARRAY_EXTENDED #/allOf/0/enum"});
    EXPECT_EQ(incompatible(typed_rg, typed_rgb), Found{"COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"});
    // Dropping the enum reads through the string part; adding one is a different type.
    EXPECT_EQ(differences(string, typed_rg), Found{"PRODUCT_TYPE_NARROWED #/"});
    EXPECT_EQ(incompatible(typed_rg, string), Found{"TYPE_CHANGED #/"});
}

TEST(JsonSchemaScalarCompatibility, Const) {
    const char* one = R"({"properties": {"v": {"const": 1}}})";
    const char* two = R"({"properties": {"v": {"const": 2}}})";
    EXPECT_EQ(incompatible(two, one), Found{"ENUM_ARRAY_CHANGED #/properties/v/const"});
    EXPECT_EQ(incompatible(one, two), Found{"ENUM_ARRAY_CHANGED #/properties/v/const"});
    EXPECT_EQ(differences(one, one), Found{});
}

TEST(JsonSchemaScalarCompatibility, Not) {
    const char* not_number = R"({"not": {"type": "number"}})";
    const char* not_integer = R"({"not": {"type": "integer"}})";
    // Excluding fewer values (integers instead of all numbers) reads more.
    EXPECT_EQ(incompatible(not_integer, not_number), Found{});
    EXPECT_EQ(differences(not_integer, not_number), Found{"NOT_TYPE_NARROWED #/not"});
    EXPECT_EQ(incompatible(not_number, not_integer), Found{"NOT_TYPE_EXTENDED #/not"});
}

}  // namespace
}  // namespace skiff::schema_registry
