// The Avro compatibility rules on types (promotions, string <-> bytes, enums, fixed, unions,
// arrays and maps), each checked in both directions: check(reader, writer) asks whether a
// consumer using `reader` reads data written with `writer`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

std::shared_ptr<const ParsedSchema> parse(const std::string& text) {
    auto outcome = avro_format().parse(text, {}, false);
    EXPECT_NE(outcome.schema, nullptr) << outcome.error << "\n" << text;
    return outcome.schema;
}

std::vector<Incompatibility> check(const std::string& reader, const std::string& writer) {
    const auto r = parse(reader);
    const auto w = parse(writer);
    if (!r || !w)
        return {{"UNPARSED", "", ""}};
    return avro_format().check(*r, *w);
}

// The one incompatibility's type, "" when compatible, "several" when more than one.
std::string verdict(const std::string& reader, const std::string& writer) {
    const auto found = check(reader, writer);
    if (found.empty())
        return "";
    return found.size() == 1 ? found[0].error_type : "several";
}

std::string quoted(const std::string& primitive) {
    return "\"" + primitive + "\"";
}

TEST(AvroCompatibilityTypes, PromotionsReadOneWayOnly) {
    const std::vector<std::pair<std::string, std::string>> promotions{
        {"int", "long"},   {"int", "float"},   {"int", "double"},
        {"long", "float"}, {"long", "double"}, {"float", "double"}};
    for (const auto& [narrow, wide] : promotions) {
        EXPECT_EQ(verdict(quoted(wide), quoted(narrow)), "") << narrow << " -> " << wide;
        EXPECT_EQ(verdict(quoted(narrow), quoted(wide)), "TYPE_MISMATCH")
            << wide << " -> " << narrow;
    }
}

TEST(AvroCompatibilityTypes, IntToLongAndItsReverseInDetail) {
    EXPECT_TRUE(check(R"("long")", R"("int")").empty());
    const auto found = check(R"("int")", R"("long")");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "TYPE_MISMATCH");
    EXPECT_EQ(found[0].description,
              "The type (path '/') of a field in the new schema does not match with the old "
              "schema");
    EXPECT_EQ(found[0].additional_info, "reader type: INT not compatible with writer type: LONG");
}

TEST(AvroCompatibilityTypes, StringAndBytesReadEachOther) {
    EXPECT_EQ(verdict(R"("bytes")", R"("string")"), "");
    EXPECT_EQ(verdict(R"("string")", R"("bytes")"), "");
}

TEST(AvroCompatibilityTypes, UnrelatedPrimitivesMismatchBothWays) {
    const std::vector<std::string> all{"null",  "boolean", "int",   "long",
                                       "float", "double",  "bytes", "string"};
    int compatible_pairs = 0;
    for (const auto& reader : all)
        for (const auto& writer : all)
            if (verdict(quoted(reader), quoted(writer)).empty())
                ++compatible_pairs;
    // 8 identities, 6 promotions, string <-> bytes.
    EXPECT_EQ(compatible_pairs, 8 + 6 + 2);
    EXPECT_EQ(verdict(R"("boolean")", R"("int")"), "TYPE_MISMATCH");
    EXPECT_EQ(verdict(R"("int")", R"("boolean")"), "TYPE_MISMATCH");
}

std::string enum_schema(const std::string& symbols, const std::string& extra = "") {
    return R"({"type":"enum","name":"Suit","symbols":[)" + symbols + "]" + extra + "}";
}

TEST(AvroCompatibilityTypes, EnumSymbolAddedReadsOldDataButNotTheReverse) {
    const auto old_schema = enum_schema(R"("HEARTS","SPADES")");
    const auto new_schema = enum_schema(R"("HEARTS","SPADES","CLUBS")");
    EXPECT_TRUE(check(new_schema, old_schema).empty());
    const auto found = check(old_schema, new_schema);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "MISSING_ENUM_SYMBOLS");
    EXPECT_EQ(found[0].description,
              "The new schema is missing enum symbols '[CLUBS]' at path '/symbols' in the old "
              "schema");
    EXPECT_EQ(found[0].additional_info, "[CLUBS]");
}

TEST(AvroCompatibilityTypes, EnumSymbolsRemovedAreListedSorted) {
    const auto old_schema = enum_schema(R"("HEARTS","SPADES","DIAMONDS","CLUBS")");
    const auto new_schema = enum_schema(R"("HEARTS")");
    EXPECT_EQ(check(new_schema, old_schema).at(0).additional_info, "[CLUBS, DIAMONDS, SPADES]");
    EXPECT_TRUE(check(old_schema, new_schema).empty());
}

TEST(AvroCompatibilityTypes, EnumDefaultStandsInForUnknownSymbols) {
    const auto old_schema = enum_schema(R"("HEARTS","SPADES","CLUBS")");
    const auto new_schema =
        enum_schema(R"("HEARTS","SPADES","UNKNOWN")", R"(,"default":"UNKNOWN")");
    EXPECT_TRUE(check(new_schema, old_schema).empty());
    // The old reader has no default: the new writer's UNKNOWN is missing from it.
    EXPECT_EQ(check(old_schema, new_schema).at(0).additional_info, "[UNKNOWN]");
}

TEST(AvroCompatibilityTypes, EnumRenamedIsANameMismatch) {
    const auto suit = enum_schema(R"("A")");
    const auto colour = R"({"type":"enum","name":"Colour","symbols":["A"]})";
    EXPECT_EQ(verdict(suit, colour), "NAME_MISMATCH");
    EXPECT_EQ(verdict(colour, suit), "NAME_MISMATCH");
    const auto aliased = R"({"type":"enum","name":"Colour","aliases":["Suit"],"symbols":["A"]})";
    EXPECT_EQ(verdict(aliased, suit), "");
    EXPECT_EQ(verdict(suit, aliased), "NAME_MISMATCH");
}

TEST(AvroCompatibilityTypes, FixedSizeChangedIsIncompatibleBothWays) {
    const auto four = R"({"type":"fixed","name":"Hash","size":4})";
    const auto eight = R"({"type":"fixed","name":"Hash","size":8})";
    const auto found = check(eight, four);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "FIXED_SIZE_MISMATCH");
    EXPECT_EQ(found[0].description,
              "The size of FIXED type field at path '/size' in the new schema does not match "
              "with the old schema");
    EXPECT_EQ(found[0].additional_info, "expected: 4, found: 8");
    EXPECT_EQ(check(four, eight).at(0).additional_info, "expected: 8, found: 4");
}

TEST(AvroCompatibilityTypes, FixedRenamedIsANameMismatchAndBothAreReported) {
    const auto hash = R"({"type":"fixed","name":"Hash","size":4})";
    const auto digest = R"({"type":"fixed","name":"Digest","size":8})";
    const auto found = check(digest, hash);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].error_type, "NAME_MISMATCH");
    EXPECT_EQ(found[1].error_type, "FIXED_SIZE_MISMATCH");
    EXPECT_EQ(verdict(R"({"type":"fixed","name":"D","aliases":["Hash"],"size":4})", hash), "");
}

TEST(AvroCompatibilityTypes, UnionWidenedReadsOldDataButNotTheReverse) {
    const auto narrow = R"(["null","string"])";
    const auto wide = R"(["null","string","int"])";
    EXPECT_TRUE(check(wide, narrow).empty());
    const auto found = check(narrow, wide);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "MISSING_UNION_BRANCH");
    EXPECT_EQ(found[0].description,
              "The new schema is missing a type inside a union field at path '/2' in the old "
              "schema");
    EXPECT_EQ(found[0].additional_info, "reader union lacking writer type: INT");
}

TEST(AvroCompatibilityTypes, ReaderUnionNeedsOneBranchForAPlainWriter) {
    EXPECT_EQ(verdict(R"(["null","long"])", R"("int")"), "");  // by promotion
    const auto found = check(R"(["null","long"])", R"("string")");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "MISSING_UNION_BRANCH");
    EXPECT_EQ(found[0].additional_info, "reader union lacking writer type: STRING");
    // The other way a writer union must resolve in every branch.
    EXPECT_EQ(verdict(R"("int")", R"(["null","int"])"), "TYPE_MISMATCH");
}

TEST(AvroCompatibilityTypes, EveryBranchOfAWriterUnionMustResolve) {
    // libavro accepts this as soon as one branch resolves; the spec and Avro Java do not.
    const auto found = check(R"("long")", R"(["int","long","string"])");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "TYPE_MISMATCH");
    EXPECT_EQ(found[0].description,
              "The type (path '/2') of a field in the new schema does not match with the old "
              "schema");
    EXPECT_EQ(verdict(R"(["int","long","string"])", R"("long")"), "");
}

TEST(AvroCompatibilityTypes, OptionalFieldMadeRequiredAndBack) {
    auto record = [](const std::string& type) {
        return R"({"type":"record","name":"R","fields":[{"name":"f","type":)" + type + "}]}";
    };
    EXPECT_EQ(verdict(record(R"(["null","string"])"), record(R"("string")")), "");
    const auto found = check(record(R"("string")"), record(R"(["null","string"])"));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].description,
              "The type (path '/fields/0/type/0') of a field in the new schema does not match "
              "with the old schema");
    EXPECT_EQ(found[0].additional_info,
              "reader type: STRING not compatible with writer type: NULL");
}

TEST(AvroCompatibilityTypes, ArraysCompareTheirItems) {
    const auto ints = R"({"type":"array","items":"int"})";
    const auto longs = R"({"type":"array","items":"long"})";
    EXPECT_EQ(verdict(longs, ints), "");
    const auto found = check(ints, longs);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].description,
              "The type (path '/items') of a field in the new schema does not match with the old "
              "schema");
    EXPECT_EQ(verdict(ints, R"({"type":"map","values":"int"})"), "TYPE_MISMATCH");
}

TEST(AvroCompatibilityTypes, MapsCompareTheirValues) {
    const auto of_enum = [](const std::string& symbols) {
        return R"({"type":"map","values":{"type":"enum","name":"E","symbols":[)" + symbols + "]}}";
    };
    EXPECT_EQ(verdict(of_enum(R"("A","B")"), of_enum(R"("A")")), "");
    const auto found = check(of_enum(R"("A")"), of_enum(R"("A","B")"));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "MISSING_ENUM_SYMBOLS");
    EXPECT_EQ(found[0].description,
              "The new schema is missing enum symbols '[B]' at path '/values/symbols' in the old "
              "schema");
}

TEST(AvroCompatibilityTypes, ArraysOfRecordsCompareTheFields) {
    auto of_records = [](const std::string& fields) {
        return R"({"type":"array","items":{"type":"record","name":"Item","fields":[)" + fields +
               "]}}";
    };
    const auto old_schema = of_records(R"({"name":"sku","type":"string"})");
    const auto new_schema =
        of_records(R"({"name":"sku","type":"string"},{"name":"qty","type":"int","default":1})");
    EXPECT_EQ(verdict(new_schema, old_schema), "");
    EXPECT_EQ(verdict(old_schema, new_schema), "");
    const auto strict = of_records(R"({"name":"sku","type":"string"},{"name":"qty","type":"int"})");
    EXPECT_EQ(check(strict, old_schema).at(0).description,
              "The field 'qty' at path '/items/fields/1' in the new schema has no default value "
              "and is missing in the old schema");
}

}  // namespace
}  // namespace skiff::schema_registry
