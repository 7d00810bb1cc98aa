// The Avro compatibility rules on records (fields, defaults, aliases, names, nesting, recursion),
// each checked in both directions: check(reader, writer) asks whether a consumer using `reader`
// reads data written with `writer`.
#include <gtest/gtest.h>

#include <string>

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

std::string record(const std::string& fields, const std::string& name = "R") {
    return R"({"type":"record","name":")" + name + R"(","fields":[)" + fields + "]}";
}

const std::string kA = R"({"name":"a","type":"int"})";
const std::string kB = R"({"name":"b","type":"string"})";
const std::string kBWithDefault = R"({"name":"b","type":"string","default":"none"})";

TEST(AvroCompatibilityRecords, FieldAddedWithDefaultReadsOldDataButNotTheReverse) {
    const auto old_schema = record(kA);
    const auto new_schema = record(kA + "," + kBWithDefault);
    EXPECT_TRUE(check(new_schema, old_schema).empty());
    // The old reader skips the new writer's extra field.
    EXPECT_TRUE(check(old_schema, new_schema).empty());
}

TEST(AvroCompatibilityRecords, FieldAddedWithoutDefaultCannotReadOldData) {
    const auto old_schema = record(kA);
    const auto new_schema = record(kA + "," + kB);
    const auto found = check(new_schema, old_schema);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "READER_FIELD_MISSING_DEFAULT_VALUE");
    EXPECT_EQ(found[0].description,
              "The field 'b' at path '/fields/1' in the new schema has no default value and is "
              "missing in the old schema");
    EXPECT_EQ(found[0].additional_info, "b");
    EXPECT_TRUE(check(old_schema, new_schema).empty());
}

TEST(AvroCompatibilityRecords, FieldRemovedIsIgnoredByTheReaderButNeedsADefaultTheOtherWay) {
    const auto old_schema = record(kA + "," + kB);
    const auto new_schema = record(kA);
    EXPECT_TRUE(check(new_schema, old_schema).empty());
    const auto found = check(old_schema, new_schema);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "READER_FIELD_MISSING_DEFAULT_VALUE");
    // A removed field that had a default is compatible both ways.
    EXPECT_TRUE(check(record(kA + "," + kBWithDefault), new_schema).empty());
}

TEST(AvroCompatibilityRecords, FieldRenamedWithAliasIsReadByTheNewReaderOnly) {
    const auto old_schema = record(R"({"name":"zip","type":"string"})");
    const auto new_schema = record(R"({"name":"postcode","type":"string","aliases":["zip"]})");
    EXPECT_TRUE(check(new_schema, old_schema).empty());
    // Aliases belong to the reader: the old reader does not know "postcode" is its "zip".
    const auto found = check(old_schema, new_schema);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "READER_FIELD_MISSING_DEFAULT_VALUE");
    EXPECT_EQ(found[0].additional_info, "zip");
}

TEST(AvroCompatibilityRecords, FieldRenamedWithoutAliasIsIncompatibleBothWays) {
    const auto old_schema = record(R"({"name":"zip","type":"string"})");
    const auto new_schema = record(R"({"name":"postcode","type":"string"})");
    EXPECT_EQ(check(new_schema, old_schema).at(0).error_type, "READER_FIELD_MISSING_DEFAULT_VALUE");
    EXPECT_EQ(check(old_schema, new_schema).at(0).error_type, "READER_FIELD_MISSING_DEFAULT_VALUE");
}

TEST(AvroCompatibilityRecords, FieldTypeChangeIsReportedAtTheFieldsTypePath) {
    const auto old_schema = record(kA + R"(,{"name":"n","type":"long"})");
    const auto new_schema = record(kA + R"(,{"name":"n","type":"int"})");
    const auto found = check(new_schema, old_schema);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "TYPE_MISMATCH");
    EXPECT_EQ(found[0].description,
              "The type (path '/fields/1/type') of a field in the new schema does not match "
              "with the old schema");
    EXPECT_EQ(found[0].additional_info, "reader type: INT not compatible with writer type: LONG");
    EXPECT_TRUE(check(old_schema, new_schema).empty());  // int -> long is a promotion
}

TEST(AvroCompatibilityRecords, RecordRenamedWithAliasIsReadByTheNewReaderOnly) {
    const auto old_schema = record(kA, "com.acme.Customer");
    const auto new_schema = R"({"type":"record","name":"com.acme.Client",)"
                            R"("aliases":["Customer"],"fields":[)" +
                            kA + "]}";
    EXPECT_TRUE(check(new_schema, old_schema).empty());
    const auto found = check(old_schema, new_schema);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "NAME_MISMATCH");
    EXPECT_EQ(found[0].description, "The name of the schema has changed (path '/name')");
    EXPECT_EQ(found[0].additional_info, "expected: com.acme.Client");
}

TEST(AvroCompatibilityRecords, RecordRenamedWithoutAliasIsANameMismatchBothWays) {
    const auto old_schema = record(kA, "Customer");
    const auto new_schema = record(kA, "Client");
    EXPECT_EQ(check(new_schema, old_schema).at(0).additional_info, "expected: Customer");
    EXPECT_EQ(check(old_schema, new_schema).at(0).additional_info, "expected: Client");
}

TEST(AvroCompatibilityRecords, OnlyTheUnqualifiedNameMustMatch) {
    // The spec (1.10 on) and Avro Java compare unqualified names: moving a record to another
    // namespace keeps it readable.
    EXPECT_TRUE(check(record(kA, "x.R"), record(kA, "y.R")).empty());
    EXPECT_TRUE(check(record(kA, "y.R"), record(kA, "x.R")).empty());
    // An alias must name the writer's full name, though.
    const auto aliased =
        R"({"type":"record","name":"x.S","aliases":["y.R"],"fields":[)" + kA + "]}";
    EXPECT_TRUE(check(aliased, record(kA, "y.R")).empty());
    EXPECT_EQ(check(aliased, record(kA, "z.R")).at(0).error_type, "NAME_MISMATCH");
}

TEST(AvroCompatibilityRecords, NestedRecordChangesAreFoundAtTheirPath) {
    auto outer = [](const std::string& inner_fields) {
        return record(R"({"name":"id","type":"long"},{"name":"address","type":)" +
                      record(inner_fields, "Address") + "}");
    };
    const auto old_schema = outer(R"({"name":"street","type":"string"})");
    const auto new_schema =
        outer(R"({"name":"street","type":"string"},{"name":"city","type":"string"})");
    const auto found = check(new_schema, old_schema);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "READER_FIELD_MISSING_DEFAULT_VALUE");
    EXPECT_EQ(found[0].description,
              "The field 'city' at path '/fields/1/type/fields/1' in the new schema has no "
              "default value and is missing in the old schema");
    EXPECT_TRUE(check(old_schema, new_schema).empty());
}

TEST(AvroCompatibilityRecords, EveryIncompatibilityIsReportedInOrder) {
    const auto old_schema = record(R"({"name":"a","type":"string"},{"name":"b","type":"long"})");
    const auto new_schema =
        record(R"({"name":"a","type":"int"},{"name":"b","type":"int"},{"name":"c","type":"int"})");
    const auto found = check(new_schema, old_schema);
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].description,
              "The type (path '/fields/0/type') of a field in the new schema does not match "
              "with the old schema");
    EXPECT_EQ(found[1].additional_info, "reader type: INT not compatible with writer type: LONG");
    EXPECT_EQ(found[2].error_type, "READER_FIELD_MISSING_DEFAULT_VALUE");
}

const std::string kLinkedList =
    R"({"type":"record","name":"Node","fields":[{"name":"value","type":"int"},)"
    R"({"name":"next","type":["null","Node"],"default":null}]})";

TEST(AvroCompatibilityRecords, RecursiveTypesEndAndAreCompatibleWithThemselves) {
    EXPECT_TRUE(check(kLinkedList, kLinkedList).empty());
}

TEST(AvroCompatibilityRecords, RecursiveTypeChangesAreFoundOnceAtTheirFirstPath) {
    const std::string longer =
        R"({"type":"record","name":"Node","fields":[{"name":"value","type":"long"},)"
        R"({"name":"next","type":["null","Node"],"default":null}]})";
    EXPECT_TRUE(check(longer, kLinkedList).empty());  // int -> long, all the way down
    const auto found = check(kLinkedList, longer);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "TYPE_MISMATCH");
    EXPECT_EQ(found[0].description,
              "The type (path '/fields/0/type') of a field in the new schema does not match "
              "with the old schema");
}

TEST(AvroCompatibilityRecords, MutuallyRecursiveTypesEnd) {
    const std::string tree =
        R"({"type":"record","name":"Tree","fields":[{"name":"children","type":{"type":"array",)"
        R"("items":{"type":"record","name":"Child","fields":[{"name":"tree","type":"Tree"},)"
        R"({"name":"label","type":"string"}]}}}]})";
    const std::string tree_with_weight =
        R"({"type":"record","name":"Tree","fields":[{"name":"children","type":{"type":"array",)"
        R"("items":{"type":"record","name":"Child","fields":[{"name":"tree","type":"Tree"},)"
        R"({"name":"label","type":"string"},{"name":"weight","type":"int"}]}}}]})";
    EXPECT_TRUE(check(tree, tree_with_weight).empty());
    const auto found = check(tree_with_weight, tree);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].description,
              "The field 'weight' at path '/fields/0/type/items/fields/2' in the new schema has "
              "no default value and is missing in the old schema");
}

}  // namespace
}  // namespace skiff::schema_registry
