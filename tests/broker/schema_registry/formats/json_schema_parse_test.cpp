// Parsing JSON schemas: what json_schema_format() accepts, and what it refuses with which reason
// (the message of the registry's error 42201).
#include <gtest/gtest.h>

#include <string>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

ParseOutcome parse(std::string_view text) {
    return json_schema_format().parse(text, {}, false);
}

// The reason a text is refused; fails the test if it is accepted.
std::string refusal(std::string_view text) {
    ParseOutcome outcome = parse(text);
    EXPECT_EQ(outcome.schema, nullptr) << text << " was accepted";
    EXPECT_FALSE(outcome.error.empty());
    return outcome.error;
}

void expect_accepted(std::string_view text) {
    ParseOutcome outcome = parse(text);
    EXPECT_NE(outcome.schema, nullptr) << text << ": " << outcome.error;
}

TEST(JsonSchemaParse, TheTypeIsJson) {
    EXPECT_EQ(json_schema_format().type(), "JSON");
    EXPECT_EQ(find_format("JSON"), &json_schema_format());
}

TEST(JsonSchemaParse, AcceptsObjectsAndBooleans) {
    expect_accepted("{}");
    expect_accepted("true");
    expect_accepted("false");
    expect_accepted(R"({"type": "object", "properties": {"name": {"type": "string"}},
                       "required": ["name"], "additionalProperties": false})");
}

TEST(JsonSchemaParse, AcceptsEveryDraftConfluentAccepts) {
    expect_accepted(R"({"$schema": "http://json-schema.org/draft-04/schema#", "id": "x",
                       "type": "number", "maximum": 3, "exclusiveMaximum": true})");
    expect_accepted(R"({"$schema": "http://json-schema.org/draft-06/schema#",
                       "type": "number", "exclusiveMaximum": 3, "const": 2})");
    expect_accepted(R"({"$schema": "http://json-schema.org/draft-07/schema#",
                       "if": {"type": "string"}, "then": {"minLength": 1}})");
    expect_accepted(R"({"$schema": "https://json-schema.org/draft/2019-09/schema",
                       "$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a",
                       "dependentRequired": {"a": ["b"]}})");
    expect_accepted(R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                       "type": "array", "prefixItems": [{"type": "string"}], "items": false})");
    // A $schema skiff does not know is read as draft 7, as Confluent does.
    expect_accepted(R"({"$schema": "http://example.com/my-meta-schema", "type": "string"})");
}

TEST(JsonSchemaParse, RefusesTextThatIsNotJson) {
    EXPECT_NE(refusal("").find("not JSON"), std::string::npos);
    EXPECT_NE(refusal(R"({"type": "string")").find("not JSON"), std::string::npos);
    EXPECT_NE(refusal(R"({'type': 'string'})").find("not JSON"), std::string::npos);
    EXPECT_NE(refusal(R"({"type": "string"} trailing)").find("not JSON"), std::string::npos);
    EXPECT_NE(refusal(R"({"a": 1,})").find("not JSON"), std::string::npos);
    EXPECT_NE(refusal(R"({"maximum": 1e400})").find("number overflow"), std::string::npos);
}

TEST(JsonSchemaParse, RefusesJsonThatIsNotASchema) {
    EXPECT_NE(refusal("[]").find("object or a boolean, not an array"), std::string::npos);
    EXPECT_NE(refusal(R"("string")").find("object or a boolean, not a string"), std::string::npos);
    EXPECT_NE(refusal("42").find("object or a boolean"), std::string::npos);
    EXPECT_NE(refusal("null").find("object or a boolean"), std::string::npos);
}

TEST(JsonSchemaParse, RefusesAnUnknownTypeName) {
    EXPECT_EQ(refusal(R"({"type": "text"})"),
              "Invalid JSON Schema: #: 'type' must be one of array, boolean, integer, null, "
              "number, object, string or a non-empty array of them, found \"text\"");
    EXPECT_NE(refusal(R"({"type": ["string", "date"]})").find("\"date\", which is not a type"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"type": []})").find("non-empty array"), std::string::npos);
    EXPECT_NE(refusal(R"({"type": ["string", "string"]})").find("twice"), std::string::npos);
    EXPECT_NE(refusal(R"({"type": 1})").find("'type'"), std::string::npos);
}

TEST(JsonSchemaParse, RefusesSubschemaKeywordsThatHoldNoSchema) {
    EXPECT_EQ(refusal(R"({"properties": []})"),
              "Invalid JSON Schema: #: 'properties' must be an object of schemas, found an array");
    EXPECT_NE(refusal(R"({"properties": {"a": 1}})").find("found 1 for 'a'"), std::string::npos);
    EXPECT_NE(refusal(R"({"items": 3})").find("'items'"), std::string::npos);
    EXPECT_NE(refusal(R"({"additionalProperties": "no"})")
                  .find("'additionalProperties' must be a schema"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"not": []})").find("'not' must be a schema"), std::string::npos);
    EXPECT_NE(refusal(R"({"oneOf": {}})").find("'oneOf' must be a non-empty array of schemas"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"anyOf": []})").find("'anyOf' must be a non-empty array"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"allOf": [{}, 7]})").find("'allOf' must hold schemas"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"definitions": {"a": "string"}})").find("'definitions'"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"dependencies": {"a": 1}})").find("'dependencies' must map 'a'"),
              std::string::npos);
}

TEST(JsonSchemaParse, RefusesConstraintsOfTheWrongJsonType) {
    EXPECT_EQ(refusal(R"({"required": "name"})"),
              "Invalid JSON Schema: #: 'required' must be an array of strings, found a string");
    EXPECT_NE(refusal(R"({"required": ["a", 1]})").find("found 1 in it"), std::string::npos);
    EXPECT_NE(refusal(R"({"enum": "red"})").find("'enum' must be an array"), std::string::npos);
    EXPECT_NE(refusal(R"({"minimum": "10"})").find("'minimum' must be a number, found a string"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"maxLength": 1.5})")
                  .find("'maxLength' must be a non-negative integer, found 1.5"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"minItems": -1})").find("'minItems' must be a non-negative integer"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"multipleOf": 0})").find("'multipleOf' must be a number greater than 0"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"uniqueItems": "yes"})").find("'uniqueItems' must be a boolean"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"$ref": 5})").find("'$ref' must be a string"), std::string::npos);
    EXPECT_NE(refusal(R"({"title": ["x"]})").find("'title' must be a string"), std::string::npos);
    // Draft 6 made 2.0 an integer.
    expect_accepted(R"({"maxLength": 2.0})");
}

TEST(JsonSchemaParse, ExclusiveLimitsFollowTheDraft) {
    EXPECT_NE(refusal(R"({"exclusiveMinimum": true})").find("'exclusiveMinimum' must be a number"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"$schema": "http://json-schema.org/draft-04/schema#",
                          "exclusiveMinimum": 3})")
                  .find("must be a boolean in draft 4"),
              std::string::npos);
}

TEST(JsonSchemaParse, ItemsIsOnlyASchemaIn2020_12) {
    expect_accepted(R"({"items": [{"type": "string"}]})");
    EXPECT_NE(refusal(R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                          "items": [{"type": "string"}]})")
                  .find("'items' must be a schema"),
              std::string::npos);
}

TEST(JsonSchemaParse, RefusesPatternsThatAreNotRegularExpressions) {
    expect_accepted(R"({"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$"})");
    EXPECT_NE(refusal(R"({"type": "string", "pattern": "[a-z"})")
                  .find("'pattern' '[a-z' is not a valid regular expression"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"patternProperties": {"(": {}}})").find("the key '('"),
              std::string::npos);
    // What later ECMAScript and Java (Confluent's check) know is accepted, though std::regex
    // does not know it.
    expect_accepted(R"({"type": "string", "pattern": "^\\p{L}+$"})");
    expect_accepted(R"json({"type": "string", "pattern": "^(?<year>\\d{4})-(?<!x)"})json");
    expect_accepted(R"({"patternProperties": {"(?i)^x-": {}}})");
}

TEST(JsonSchemaParse, SaysWhereTheBadKeywordIs) {
    EXPECT_EQ(
        refusal(R"({"properties": {"address": {"properties": {"zip": {"maxLength": "5"}}}}})"),
        "Invalid JSON Schema: #/properties/address/properties/zip: 'maxLength' must be a "
        "non-negative integer, found a string");
    EXPECT_EQ(refusal(R"({"definitions": {"a/b": {"type": "texts"}}})").substr(0, 41),
              "Invalid JSON Schema: #/definitions/a~1b: ");
    EXPECT_NE(refusal(R"({"anyOf": [{}, {"minimum": null}]})").find("#/anyOf/1: 'minimum'"),
              std::string::npos);
}

TEST(JsonSchemaParse, UnknownKeywordsAreAnnotations) {
    expect_accepted(R"({"type": "string", "x-owner": 5, "examples": "anything",
                       "connect.type": "bytes"})");
    // A keyword of a later draft is unknown to an earlier one.
    expect_accepted(R"({"$schema": "http://json-schema.org/draft-04/schema#", "const": 1,
                       "contains": 7})");
}

TEST(JsonSchemaParse, RefusesJsonNestedTooDeep) {
    std::string deep;
    for (int i = 0; i < 300; ++i)
        deep += R"({"not": )";
    deep += "{}";
    deep += std::string(300, '}');
    EXPECT_NE(refusal(deep).find("nested more than 256 levels"), std::string::npos);
}

}  // namespace
}  // namespace skiff::schema_registry
