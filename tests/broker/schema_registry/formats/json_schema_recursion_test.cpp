// The compatibility check on recursive schemas and on costly ones: it ends, stays cheap where it
// can, and refuses (COMPATIBILITY_CHECK_TOO_COMPLEX) rather than accept what it did not check.
// Also the annotation changes, compatible and never reported.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "broker/schema_registry/formats/json_schema_diff.h"
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

Found differences(std::string_view reader, std::string_view writer,
                  json_schema::DiffLimits limits = {}) {
    Found found;
    for (const json_schema::Difference& d :
         json_schema::diff_schemas(schema(writer).root(), schema(reader).root(), limits))
        found.push_back(std::string(json_schema::difference_name(d.type)) + " " + d.path);
    return found;
}

// A chain of `length` definitions d0 -> d1 -> ... -> d0, each an object whose property "next"
// is the following one; the last also has the property `extra` if given.
std::string cycle(int length, const std::string& extra = "") {
    std::string text = R"({"$ref": "#/definitions/d0", "definitions": {)";
    for (int i = 0; i < length; ++i) {
        text += (i > 0 ? "," : "") + std::string(R"("d)") + std::to_string(i) +
                R"(": {"type": "object", "properties": {"next": {"$ref": "#/definitions/d)" +
                std::to_string((i + 1) % length) + "\"}" +
                (i == length - 1 && !extra.empty() ? ", " + extra : "") + "}}";
    }
    return text + "}}";
}

TEST(JsonSchemaRecursion, AnnotationChangesAreCompatible) {
    const char* before = R"({"$id": "a", "title": "A", "description": "first", "type": "string"})";
    const char* after = R"({"$id": "b", "title": "B", "description": "second", "type": "string"})";
    EXPECT_EQ(incompatible(after, before), Found{});
    EXPECT_EQ(differences(after, before),
              (Found{"ID_CHANGED #/", "TITLE_CHANGED #/", "DESCRIPTION_CHANGED #/"}));
}

TEST(JsonSchemaRecursion, RecursionsOfDifferentLengthsEnd) {
    // 21 against 23 definitions repeat a pair only after 483 steps, deeper than the check goes;
    // it stops at the writer's definition coming round again, as Confluent does.
    EXPECT_EQ(incompatible(cycle(23), cycle(21)), Found{});
    EXPECT_EQ(incompatible(cycle(21), cycle(23)), Found{});
    Found found = incompatible(cycle(23, R"("extra": {"type": "string"})"), cycle(21));
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0].substr(0, 37), "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL ");
    EXPECT_NE(found[0].find("/properties/extra"), std::string::npos);
}

TEST(JsonSchemaRecursion, RecursionThroughCombinationsStaysCheap) {
    // Each definition is a oneOf of three objects that all lead to the next definition: without
    // remembering results found under a cycle, each step would compare 3 x 3 branches again,
    // 3 to the power of the chain's length (the branches whose property names match).
    auto chain = [](int length, const std::string& leaf) {
        std::string text = R"({"$ref": "#/definitions/d0", "definitions": {)";
        for (int i = 0; i < length; ++i) {
            std::string next =
                R"({"$ref": "#/definitions/d)" + std::to_string((i + 1) % length) + "\"}";
            text +=
                (i > 0 ? "," : "") + std::string(R"("d)") + std::to_string(i) + R"(": {"oneOf": [)";
            for (const char* name : {"a", "b", "c"})
                text += std::string(name == std::string("a") ? "" : ",") +
                        R"({"type": "object", "properties": {")" + name + R"(": )" + next +
                        R"(, "v": )" + leaf + "}}";
            text += "]}";
        }
        return text + "}}";
    };
    auto started = std::chrono::steady_clock::now();
    EXPECT_EQ(incompatible(chain(14, R"({"type": "number"})"), chain(14, R"({"type": "integer"})")),
              Found{});
    EXPECT_EQ(incompatible(chain(14, R"({"type": "integer"})"), chain(14, R"({"type": "number"})")),
              Found{"COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"});
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
}

TEST(JsonSchemaRecursion, GivingUpIsIncompatible) {
    const char* before = R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}})";
    const char* after = R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}})";
    EXPECT_EQ(differences(after, before), Found{});
    json_schema::DiffLimits tiny;
    tiny.max_comparisons = 2;
    EXPECT_EQ(differences(after, before, tiny),
              Found{"COMPATIBILITY_CHECK_TOO_COMPLEX #/properties/b"});
    json_schema::DiffLimits shallow;
    shallow.max_depth = 1;
    EXPECT_EQ(differences(after, before, shallow),
              Found{"COMPATIBILITY_CHECK_TOO_COMPLEX #/properties/a"});
    // Giving up inside a tried match, which is dropped, is still reported.
    const char* one_of = R"({"oneOf": [{"type": "string"}, {"type": "number"}]})";
    json_schema::DiffLimits few;
    few.max_comparisons = 3;
    Found found = differences(one_of, one_of, few);
    EXPECT_NE(std::find(found.begin(), found.end(), "COMPATIBILITY_CHECK_TOO_COMPLEX #/"),
              found.end());
}

}  // namespace
}  // namespace skiff::schema_registry
