// Compatibility of array schemas, both ways for every rule: check(reader, writer) answers
// whether a consumer using `reader` reads data of `writer`.
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

TEST(JsonSchemaArrayCompatibility, ItemsSchemaAddedOrRemoved) {
    const char* anything = R"({"type": "array"})";
    const char* strings = R"({"type": "array", "items": {"type": "string"}})";
    EXPECT_EQ(incompatible(strings, anything), Found{"SCHEMA_ADDED #/items"});
    EXPECT_EQ(incompatible(anything, strings), Found{});
    EXPECT_EQ(differences(anything, strings), Found{"SCHEMA_REMOVED #/items"});
}

TEST(JsonSchemaArrayCompatibility, ItemsChanged) {
    const char* strings = R"({"type": "array", "items": {"type": "string"}})";
    const char* integers = R"({"type": "array", "items": {"type": "integer"}})";
    const char* numbers = R"({"type": "array", "items": {"type": "number"}})";
    EXPECT_EQ(incompatible(integers, strings), Found{"TYPE_CHANGED #/items"});
    EXPECT_EQ(incompatible(strings, integers), Found{"TYPE_CHANGED #/items"});
    EXPECT_EQ(incompatible(integers, numbers), Found{"TYPE_NARROWED #/items"});
    EXPECT_EQ(incompatible(numbers, integers), Found{});
    EXPECT_EQ(differences(numbers, integers), Found{"TYPE_EXTENDED #/items"});
}

TEST(JsonSchemaArrayCompatibility, TupleItemsOfAnOpenContentModel) {
    const char* one = R"({"items": [{"type": "string"}]})";
    const char* two = R"({"items": [{"type": "string"}, {"type": "number"}]})";
    const char* two_any = R"({"items": [{"type": "string"}, {}]})";
    // The writer's open tuple could hold anything at position 1.
    EXPECT_EQ(incompatible(two, one), Found{"ITEM_ADDED_TO_OPEN_CONTENT_MODEL #/items/1"});
    EXPECT_EQ(incompatible(one, two), Found{});
    EXPECT_EQ(differences(one, two), Found{"ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL #/items/1"});
    EXPECT_EQ(incompatible(two_any, one), Found{});
    EXPECT_EQ(differences(two_any, one),
              Found{"ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL #/items/1"});
}

TEST(JsonSchemaArrayCompatibility, TupleItemsOfAClosedContentModel) {
    const char* one = R"({"items": [{"type": "string"}], "additionalItems": false})";
    const char* two =
        R"({"items": [{"type": "string"}, {"type": "number"}], "additionalItems": false})";
    const char* two_false = R"({"items": [{"type": "string"}, false], "additionalItems": false})";
    EXPECT_EQ(incompatible(two, one), Found{});
    EXPECT_EQ(differences(two, one), Found{"ITEM_ADDED_TO_CLOSED_CONTENT_MODEL #/items/1"});
    EXPECT_EQ(incompatible(one, two), Found{"ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL #/items/1"});
    EXPECT_EQ(incompatible(one, two_false), Found{});
    EXPECT_EQ(differences(one, two_false),
              Found{"ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL #/items/1"});
}

TEST(JsonSchemaArrayCompatibility, TupleItemsOfAPartiallyOpenContentModel) {
    const char* one = R"({"items": [{"type": "string"}], "additionalItems": {"type": "number"}})";
    const char* two_numbers = R"({"items": [{"type": "string"}, {"type": "number"}],
                                 "additionalItems": {"type": "number"}})";
    const char* two_strings = R"({"items": [{"type": "string"}, {"type": "string"}],
                                 "additionalItems": {"type": "number"}})";
    EXPECT_EQ(incompatible(two_numbers, one), Found{});
    EXPECT_EQ(differences(two_numbers, one),
              Found{"ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"});
    EXPECT_EQ(incompatible(two_strings, one),
              (Found{"TYPE_CHANGED #/items/1",
                     "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"}));
    EXPECT_EQ(incompatible(one, two_numbers), Found{});
    EXPECT_EQ(differences(one, two_numbers),
              Found{"ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"});
    EXPECT_EQ(incompatible(one, two_strings),
              (Found{"TYPE_CHANGED #/items/1",
                     "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"}));
}

TEST(JsonSchemaArrayCompatibility, TupleItemChanged) {
    EXPECT_EQ(
        incompatible(R"({"items": [{"type": "integer"}]})", R"({"items": [{"type": "string"}]})"),
        Found{"TYPE_CHANGED #/items/0"});
}

TEST(JsonSchemaArrayCompatibility, AdditionalItems) {
    const char* open = R"({"items": [{}]})";
    const char* closed = R"({"items": [{}], "additionalItems": false})";
    const char* numbers = R"({"items": [{}], "additionalItems": {"type": "number"}})";
    const char* strings = R"({"items": [{}], "additionalItems": {"type": "string"}})";
    EXPECT_EQ(incompatible(closed, open), Found{"ADDITIONAL_ITEMS_REMOVED #/additionalItems"});
    EXPECT_EQ(incompatible(open, closed), Found{});
    EXPECT_EQ(differences(open, closed), Found{"ADDITIONAL_ITEMS_ADDED #/additionalItems"});
    EXPECT_EQ(incompatible(numbers, open), Found{"ADDITIONAL_ITEMS_NARROWED #/additionalItems"});
    EXPECT_EQ(differences(open, numbers), Found{"ADDITIONAL_ITEMS_EXTENDED #/additionalItems"});
    EXPECT_EQ(incompatible(strings, numbers), Found{"TYPE_CHANGED #/additionalItems"});
}

TEST(JsonSchemaArrayCompatibility, ItemCounts) {
    const char* free = R"({"type": "array"})";
    const char* at_most_3 = R"({"type": "array", "maxItems": 3})";
    const char* at_most_2 = R"({"type": "array", "maxItems": 2})";
    const char* at_least_1 = R"({"type": "array", "minItems": 1})";
    const char* at_least_2 = R"({"type": "array", "minItems": 2})";
    EXPECT_EQ(incompatible(at_most_3, free), Found{"MAX_ITEMS_ADDED #/maxItems"});
    EXPECT_EQ(differences(free, at_most_3), Found{"MAX_ITEMS_REMOVED #/maxItems"});
    EXPECT_EQ(incompatible(at_most_2, at_most_3), Found{"MAX_ITEMS_DECREASED #/maxItems"});
    EXPECT_EQ(differences(at_most_3, at_most_2), Found{"MAX_ITEMS_INCREASED #/maxItems"});
    EXPECT_EQ(incompatible(at_least_1, free), Found{"MIN_ITEMS_ADDED #/minItems"});
    EXPECT_EQ(differences(free, at_least_1), Found{"MIN_ITEMS_REMOVED #/minItems"});
    EXPECT_EQ(incompatible(at_least_2, at_least_1), Found{"MIN_ITEMS_INCREASED #/minItems"});
    EXPECT_EQ(differences(at_least_1, at_least_2), Found{"MIN_ITEMS_DECREASED #/minItems"});
}

TEST(JsonSchemaArrayCompatibility, UniqueItems) {
    const char* any = R"({"type": "array"})";
    const char* unique = R"({"type": "array", "uniqueItems": true})";
    EXPECT_EQ(incompatible(unique, any), Found{"UNIQUE_ITEMS_ADDED #/uniqueItems"});
    EXPECT_EQ(incompatible(any, unique), Found{});
    EXPECT_EQ(differences(any, unique), Found{"UNIQUE_ITEMS_REMOVED #/uniqueItems"});
    EXPECT_EQ(differences(R"({"type": "array", "uniqueItems": false})", any), Found{});
}

TEST(JsonSchemaArrayCompatibility, PrefixItemsIn2020_12AreTupleItems) {
    const char* one = R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                         "prefixItems": [{"type": "string"}], "items": false})";
    const char* two = R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                         "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false})";
    const char* one_then_numbers = R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                      "prefixItems": [{"type": "string"}], "items": {"type": "number"}})";
    EXPECT_EQ(differences(two, one), Found{"ITEM_ADDED_TO_CLOSED_CONTENT_MODEL #/items/1"});
    EXPECT_EQ(incompatible(one, two), Found{"ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL #/items/1"});
    EXPECT_EQ(differences(one_then_numbers, two),
              (Found{"ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1",
                     "ADDITIONAL_ITEMS_ADDED #/additionalItems"}));
    const char* all_true =
        R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "items": true})";
    const char* all_false =
        R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "items": false})";
    EXPECT_EQ(incompatible(all_false, all_true),
              Found{"ADDITIONAL_ITEMS_REMOVED #/additionalItems"});
}

}  // namespace
}  // namespace skiff::schema_registry
