// The canonical text of a JSON schema: Jackson's compact serialization as Confluent stores it,
// and with normalize, Confluent's normalized form (keys sorted).
#include <gtest/gtest.h>

#include <string>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

std::string canonical(std::string_view text, bool normalize = false) {
    ParseOutcome outcome = json_schema_format().parse(text, {}, normalize);
    EXPECT_NE(outcome.schema, nullptr) << outcome.error;
    return outcome.schema ? outcome.schema->canonical() : "";
}

TEST(JsonSchemaCanonical, IsCompactWithKeyOrderKept) {
    EXPECT_EQ(
        canonical(R"({
        "type" : "object",
        "properties" : { "b" : { "type" : "string" }, "a" : { "type" : [ "integer", "null" ] } },
        "required" : [ "b" ]
    })"),
        R"({"type":"object","properties":{"b":{"type":"string"},"a":{"type":["integer","null"]}},"required":["b"]})");
    EXPECT_EQ(canonical(" true "), "true");
    EXPECT_EQ(canonical("{ }"), "{}");
}

TEST(JsonSchemaCanonical, TextsDifferingOnlyInWhitespaceAreEqual) {
    EXPECT_EQ(canonical("{\"type\":\"string\",\"maxLength\":5}"),
              canonical("{\n\t\"type\": \"string\",\r\n  \"maxLength\" :5 }\n"));
}

TEST(JsonSchemaCanonical, KeyOrderStillMattersWithoutNormalize) {
    EXPECT_NE(canonical(R"({"type": "string", "maxLength": 5})"),
              canonical(R"({"maxLength": 5, "type": "string"})"));
}

TEST(JsonSchemaCanonical, ARepeatedKeyKeepsItsPlaceAndTakesTheLastValue) {
    EXPECT_EQ(canonical(R"({"type": "string", "title": "a", "type": "integer"})"),
              R"({"type":"integer","title":"a"})");
}

TEST(JsonSchemaCanonical, NumbersAreWrittenAsJacksonWritesThem) {
    EXPECT_EQ(
        canonical(
            R"({"default": [0, -0, 10, -7, 18446744073709551615, 123456789012345678901234]})"),
        R"({"default":[0,0,10,-7,18446744073709551615,123456789012345678901234]})");
    // Decimals are Java BigDecimals: the digits and scale as written, scientific notation for
    // a negative scale or a small exponent.
    EXPECT_EQ(canonical(R"({"default": [1.0, 1.50, 0.1, -2.5, 0.0, -0.0, 0.0012, 0.00000012]})"),
              R"({"default":[1.0,1.50,0.1,-2.5,0.0,0.0,0.0012,1.2E-7]})");
    EXPECT_EQ(canonical(R"({"default": [1e2, 1.5E2, 100e-2, 2E-3, 1e0, 0e5]})"),
              R"({"default":[1E+2,1.5E+2,1.00,0.002,1,0E+5]})");
}

TEST(JsonSchemaCanonical, StringsAreEscapedAsJacksonEscapesThem) {
    EXPECT_EQ(canonical(R"({"title": "quote \" backslash \\ slash \/ tab \t nl \n bell \u0007"})"),
              R"({"title":"quote \" backslash \\ slash / tab \t nl \n bell \u0007"})");
    EXPECT_EQ(canonical(R"({"title": "caf\u00e9 \u2603 ü"})"), "{\"title\":\"café ☃ ü\"}");
    EXPECT_EQ(canonical(R"({"title": "\u001f"})"), R"({"title":"\u001F"})");
}

TEST(JsonSchemaCanonical, NormalizeSortsEveryObjectsKeys) {
    EXPECT_EQ(
        canonical(R"({"type": "object", "required": ["b", "a"],
                           "properties": {"b": {"type": "string", "maxLength": 3}, "a": {}}})",
                  true),
        R"({"properties":{"a":{},"b":{"maxLength":3,"type":"string"}},"required":["b","a"],"type":"object"})");
}

TEST(JsonSchemaCanonical, NormalizeMakesEqualSchemasCompareEqual) {
    const char* one = R"({"type": "object", "additionalProperties": false,
                          "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}})";
    const char* other = R"({"properties": {"name": {"type": "string"}, "id": {"type": "integer"}},
                            "additionalProperties": false, "type": "object"})";
    EXPECT_NE(canonical(one), canonical(other));
    EXPECT_EQ(canonical(one, true), canonical(other, true));
}

TEST(JsonSchemaCanonical, NormalizeKeepsArrayOrder) {
    // The order of "enum", "required", "type" and "oneOf" may mean something to a reader (code
    // generators use it); Confluent's normalized form keeps it.
    EXPECT_NE(canonical(R"({"enum": ["a", "b"]})", true),
              canonical(R"({"enum": ["b", "a"]})", true));
    EXPECT_EQ(canonical(R"({"type": ["string", "null"]})", true), R"({"type":["string","null"]})");
}

TEST(JsonSchemaCanonical, TheCanonicalTextParsesToItself) {
    std::string once = canonical(R"({ "b" : 1.50, "a" : [ "x" , { "d" : null, "c" : 1E2 } ] })");
    EXPECT_EQ(canonical(once), once);
    std::string normalized = canonical(once, true);
    EXPECT_EQ(canonical(normalized, true), normalized);
}

}  // namespace
}  // namespace skiff::schema_registry
