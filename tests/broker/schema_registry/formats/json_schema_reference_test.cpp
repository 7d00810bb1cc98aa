// "$ref": local definitions, schemas the registry passes as references, what does not resolve,
// recursion; and the compatibility check following $refs on both sides.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

using References = std::vector<ResolvedReference>;

ParseOutcome parse(std::string_view text, const References& references = {}) {
    return json_schema_format().parse(text, references, false);
}

std::shared_ptr<const ParsedSchema> accepted(std::string_view text,
                                             const References& references = {}) {
    ParseOutcome outcome = parse(text, references);
    EXPECT_NE(outcome.schema, nullptr) << text << ": " << outcome.error;
    return outcome.schema;
}

std::string refusal(std::string_view text, const References& references = {}) {
    ParseOutcome outcome = parse(text, references);
    EXPECT_EQ(outcome.schema, nullptr) << text << " was accepted";
    return outcome.error;
}

// "TYPE path" for each incompatibility of a reader using `reader` with data of `writer`.
std::vector<std::string> incompatibilities(const ParsedSchema& reader, const ParsedSchema& writer) {
    std::vector<std::string> found;
    for (const Incompatibility& i : json_schema_format().check(reader, writer))
        found.push_back(i.error_type + " " + i.additional_info);
    return found;
}

const ResolvedReference kAddress{"address.json", "address-value", 1, R"({
    "type": "object",
    "properties": {"street": {"type": "string"}, "zip": {"$ref": "#/definitions/zip"}},
    "definitions": {"zip": {"type": "string", "maxLength": 10}}})"};

TEST(JsonSchemaReference, LocalDefinitionsResolve) {
    accepted(R"({"properties": {"a": {"$ref": "#/definitions/a"}},
                 "definitions": {"a": {"type": "string"}}})");
    accepted(R"({"properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}})");
    accepted(R"({"properties": {"self": {"$ref": "#"}}})");  // the root itself
    accepted(R"({"properties": {"a": {"$ref": "#/properties/b"}, "b": {"type": "string"}}})");
    // Pointer escapes: ~1 for '/', ~0 for '~', and percent-encoding from the URI.
    accepted(
        R"({"properties": {"a": {"$ref": "#/definitions/x~1y"}, "b": {"$ref": "#/definitions/t~0"},
                 "c": {"$ref": "#/definitions/with%20space"}},
                 "definitions": {"x/y": {}, "t~": {}, "with space": {}}})");
}

TEST(JsonSchemaReference, DollarDefsFindsDefinitionsAsInConfluent) {
    accepted(R"({"properties": {"a": {"$ref": "#/$defs/a"}}, "definitions": {"a": {}}})");
}

TEST(JsonSchemaReference, NamedAnchorsResolve) {
    accepted(R"({"properties": {"a": {"$ref": "#street"}},
                 "definitions": {"s": {"$id": "#street", "type": "string"}}})");
    accepted(R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                 "properties": {"a": {"$ref": "#street"}},
                 "$defs": {"s": {"$anchor": "street", "type": "string"}}})");
}

TEST(JsonSchemaReference, EmbeddedIdsResolve) {
    accepted(R"({"$id": "http://example.com/root.json",
                 "properties": {"a": {"$ref": "item.json"}, "b": {"$ref": "http://example.com/item.json"}},
                 "definitions": {"i": {"$id": "item.json", "type": "integer"}}})");
}

TEST(JsonSchemaReference, RefusesALocalRefToNothing) {
    EXPECT_EQ(refusal(R"({"properties": {"a": {"$ref": "#/definitions/missing"}}})"),
              "Invalid JSON Schema: #/properties/a: the $ref '#/definitions/missing' does not "
              "resolve: nothing is at '/definitions/missing' in this schema");
    EXPECT_NE(refusal(R"({"$ref": "#nowhere"})").find("no schema in '' is named 'nowhere'"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"$ref": "#/required", "required": ["a"]})").find("not a schema"),
              std::string::npos);
    // Unused definitions are checked too.
    EXPECT_NE(refusal(R"({"definitions": {"unused": {"$ref": "#/definitions/gone"}}})")
                  .find("#/definitions/unused: the $ref '#/definitions/gone'"),
              std::string::npos);
}

TEST(JsonSchemaReference, RefusesARefNeitherLocalNorReferenced) {
    EXPECT_EQ(refusal(R"({"properties": {"address": {"$ref": "address.json"}}})"),
              "Invalid JSON Schema: #/properties/address: the $ref 'address.json' does not "
              "resolve: it names 'address.json', which is neither this schema nor one of the "
              "schema references given with it");
    // Nothing is fetched from the network.
    EXPECT_NE(refusal(R"({"$ref": "https://example.com/schemas/address.json"})")
                  .find("neither this schema nor one of the schema references"),
              std::string::npos);
}

TEST(JsonSchemaReference, ReferencedSchemasResolveByName) {
    accepted(R"({"properties": {"address": {"$ref": "address.json"}}})", {kAddress});
    accepted(R"({"properties": {"zip": {"$ref": "address.json#/definitions/zip"}}})", {kAddress});
    accepted(R"({"properties": {"zip": {"$ref": "address.json#/properties/zip"}}})", {kAddress});
    EXPECT_NE(refusal(R"({"properties": {"zip": {"$ref": "address.json#/definitions/nope"}}})",
                      {kAddress})
                  .find("nothing is at '/definitions/nope' in 'address.json'"),
              std::string::npos);
}

TEST(JsonSchemaReference, ReferencesResolveAgainstTheSchemasId) {
    // Confluent registers a reference at its name resolved against the schema's $id.
    ResolvedReference address = kAddress;
    address.name = "https://example.com/schemas/address.json";
    accepted(R"({"$id": "https://example.com/schemas/customer.json",
                 "properties": {"address": {"$ref": "address.json"}}})",
             {address});
    // And the name as given works even when the $id would put it elsewhere.
    accepted(R"({"$id": "https://example.com/other/customer.json",
                 "properties": {"address": {"$ref": "address.json"}}})",
             {kAddress});
}

TEST(JsonSchemaReference, AReferenceMayReferenceAnother) {
    ResolvedReference country{"country.json", "country-value", 3,
                              R"({"type": "string", "enum": ["FR", "DE"]})"};
    ResolvedReference address{"address.json", "address-value", 2,
                              R"({"properties": {"country": {"$ref": "country.json"}}})"};
    accepted(R"({"properties": {"address": {"$ref": "address.json"}}})", {country, address});
    // Without the dependency, the reference's own $ref does not resolve, and the error says in
    // which reference.
    EXPECT_NE(refusal(R"({"properties": {"address": {"$ref": "address.json"}}})", {address})
                  .find("#/properties/country in the reference 'address.json': the $ref "
                        "'country.json' does not resolve"),
              std::string::npos);
}

TEST(JsonSchemaReference, RefusesAnInvalidReferencedSchema) {
    ResolvedReference broken{"broken.json", "broken-value", 7, R"({"type": "strin"})"};
    EXPECT_EQ(refusal(R"({"$ref": "broken.json"})", {broken}).substr(0, 97),
              "Invalid JSON Schema in the reference 'broken.json' (subject 'broken-value', version "
              "7): #: 'type'");
    ResolvedReference not_json{"x.json", "x-value", 1, "{"};
    EXPECT_NE(refusal(R"({"$ref": "x.json"})", {not_json}).find("not JSON"), std::string::npos);
}

TEST(JsonSchemaReference, RecursiveSchemasAreAccepted) {
    accepted(R"({"type": "object", "properties": {
                   "value": {"type": "integer"},
                   "children": {"type": "array", "items": {"$ref": "#"}}}})");
    accepted(R"({"$ref": "#/definitions/a", "definitions": {
                   "a": {"properties": {"b": {"$ref": "#/definitions/b"}}},
                   "b": {"properties": {"a": {"$ref": "#/definitions/a"}}}}})");
}

TEST(JsonSchemaReference, RefusesRefsThatLoopWithoutASchema) {
    EXPECT_NE(refusal(R"({"$ref": "#/definitions/a", "definitions": {
                          "a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}})")
                  .find("leads back to itself without reaching a schema"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"definitions": {"self": {"$ref": "#/definitions/self"}}})")
                  .find("leads back to itself"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"$ref": "#"})").find("the $ref '#' leads back to itself"),
              std::string::npos);
}

TEST(JsonSchemaReference, TheCheckFollowsLocalRefs) {
    auto before = accepted(R"({"type": "array", "items": {"$ref": "#/definitions/x"},
                               "definitions": {"x": {"type": "string"}}})");
    auto after = accepted(R"({"type": "array", "items": {"$ref": "#/definitions/x"},
                              "definitions": {"x": {"type": "number"}}})");
    EXPECT_EQ(incompatibilities(*after, *before), std::vector<std::string>{"TYPE_CHANGED #/items"});
    EXPECT_EQ(incompatibilities(*before, *after), std::vector<std::string>{"TYPE_CHANGED #/items"});
    // Moving a schema into a definition changes nothing.
    auto inline_string = accepted(R"({"type": "string"})");
    auto referenced_string =
        accepted(R"({"$ref": "#/definitions/s", "definitions": {"s": {"type": "string"}}})");
    EXPECT_TRUE(incompatibilities(*inline_string, *referenced_string).empty());
    EXPECT_TRUE(incompatibilities(*referenced_string, *inline_string).empty());
}

TEST(JsonSchemaReference, TheCheckFollowsReferencedSchemas) {
    ResolvedReference wide = kAddress;
    wide.version = 2;
    wide.schema = R"({"type": "object",
        "properties": {"street": {"type": "string"}, "zip": {"$ref": "#/definitions/zip"}},
        "definitions": {"zip": {"type": "string", "maxLength": 12}}})";
    const char* customer = R"({"properties": {"address": {"$ref": "address.json"}}})";
    auto v1 = accepted(customer, {kAddress});
    auto v2 = accepted(customer, {wide});
    // The text is the same; what it references changed. Longer zips: a v1 reader may not read
    // v2's data, a v2 reader reads v1's.
    EXPECT_EQ(v1->canonical(), v2->canonical());
    EXPECT_EQ(incompatibilities(*v1, *v2),
              std::vector<std::string>{
                  "MAX_LENGTH_DECREASED #/properties/address/properties/zip/maxLength"});
    EXPECT_TRUE(incompatibilities(*v2, *v1).empty());
}

TEST(JsonSchemaReference, TheCheckEndsOnRecursiveSchemas) {
    const char* tree = R"({"type": "object", "properties": {
        "value": {"type": "integer"},
        "children": {"type": "array", "items": {"$ref": "#"}}}})";
    const char* tree_with_label = R"({"type": "object", "properties": {
        "value": {"type": "integer"}, "label": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#"}}}})";
    const char* tree_of_numbers = R"({"type": "object", "properties": {
        "value": {"type": "number"},
        "children": {"type": "array", "items": {"$ref": "#"}}}})";
    auto a = accepted(tree);
    auto b = accepted(tree_with_label);
    auto c = accepted(tree_of_numbers);
    EXPECT_TRUE(incompatibilities(*a, *a).empty());
    EXPECT_EQ(incompatibilities(*b, *a),
              std::vector<std::string>{"PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/label"});
    EXPECT_TRUE(incompatibilities(*a, *b).empty());
    EXPECT_TRUE(incompatibilities(*c, *a).empty());  // integer to number: TYPE_EXTENDED
    EXPECT_EQ(incompatibilities(*a, *c),
              std::vector<std::string>{"TYPE_NARROWED #/properties/value"});
}

TEST(JsonSchemaReference, MutuallyRecursiveDefinitionsAreCompared) {
    auto before = accepted(R"({"$ref": "#/definitions/a", "definitions": {
        "a": {"type": "object", "properties": {"b": {"$ref": "#/definitions/b"}}},
        "b": {"type": "object", "properties": {"a": {"$ref": "#/definitions/a"},
                                               "n": {"type": "string"}}}}})");
    auto after = accepted(R"({"$ref": "#/definitions/a", "definitions": {
        "a": {"type": "object", "properties": {"b": {"$ref": "#/definitions/b"}}},
        "b": {"type": "object", "properties": {"a": {"$ref": "#/definitions/a"},
                                               "n": {"type": "string", "maxLength": 3}}}}})");
    EXPECT_EQ(incompatibilities(*after, *before),
              std::vector<std::string>{"MAX_LENGTH_ADDED #/properties/b/properties/n/maxLength"});
    EXPECT_TRUE(incompatibilities(*before, *after).empty());
}

}  // namespace
}  // namespace skiff::schema_registry
