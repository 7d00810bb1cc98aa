// AVRO schemas that use named types defined by other registered schemas (references): parsing
// with the references known, the canonical text keeping them by name, the "resolved" format
// inlining them, unknown names refused, and compatibility through them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

const ResolvedReference kCountry{"com.acme.Country", "country", 1,
                                 R"({"type":"enum","name":"Country","namespace":"com.acme",)"
                                 R"("symbols":["NL","FR"]})"};
const ResolvedReference kAddress{"com.acme.Address", "address", 2,
                                 R"({"type":"record","name":"Address","namespace":"com.acme",)"
                                 R"("fields":[{"name":"street","type":"string"},)"
                                 R"({"name":"country","type":"Country"}]})"};

const std::string kCustomer =
    R"({"type":"record","name":"Customer","namespace":"com.acme","fields":[)"
    R"({"name":"home","type":"com.acme.Address"},{"name":"work","type":["null","Address"]}]})";

ParseOutcome parse(const std::string& text, const std::vector<ResolvedReference>& references,
                   bool normalize = false) {
    return avro_format().parse(text, references, normalize);
}

TEST(AvroReferences, ASchemaUsesReferencedTypesByFullOrRelativeName) {
    const auto outcome = parse(kCustomer, {kCountry, kAddress});
    ASSERT_TRUE(outcome.schema) << outcome.error;
    // Confluent's canonical text writes referenced types by name, never inline.
    EXPECT_EQ(outcome.schema->canonical(),
              R"({"type":"record","name":"Customer","namespace":"com.acme","fields":[)"
              R"({"name":"home","type":"Address"},{"name":"work","type":["null","Address"]}]})");
}

TEST(AvroReferences, TheResolvedFormatInlinesThemWhereFirstUsed) {
    const auto outcome = parse(kCustomer, {kCountry, kAddress});
    ASSERT_TRUE(outcome.schema) << outcome.error;
    EXPECT_EQ(outcome.schema->formatted("resolved"),
              R"({"type":"record","name":"Customer","namespace":"com.acme","fields":[)"
              R"({"name":"home","type":{"type":"record","name":"Address","fields":[)"
              R"({"name":"street","type":"string"},)"
              R"({"name":"country","type":{"type":"enum","name":"Country","symbols":["NL","FR"]}})"
              R"(]}},{"name":"work","type":["null","Address"]}]})");
    EXPECT_EQ(outcome.schema->formatted("RESOLVED"), outcome.schema->formatted("resolved"));
}

TEST(AvroReferences, AReferenceToAnUnknownNameIsRefused) {
    const std::string text =
        R"({"type":"record","name":"Customer","fields":[{"name":"a","type":"com.acme.Missing"}]})";
    const auto outcome = parse(text, {kCountry, kAddress});
    EXPECT_FALSE(outcome.schema);
    EXPECT_EQ(outcome.error,
              R"("com.acme.Missing" is not a defined name. The type of the "a" field must be a )"
              R"(defined name or a {"type": ...} expression.)");
    // And a known name is unknown when its reference is not passed.
    EXPECT_FALSE(parse(kCustomer, {kCountry}).schema);
    EXPECT_FALSE(parse(kCustomer, {}).schema);
}

TEST(AvroReferences, ReferencesComeDependenciesFirst) {
    EXPECT_TRUE(parse(kCustomer, {kCountry, kAddress}).schema);
    const auto reversed = parse(kCustomer, {kAddress, kCountry});
    EXPECT_FALSE(reversed.schema);
    EXPECT_EQ(reversed.error.rfind("Invalid reference com.acme.Address (subject address, "
                                   "version 2): \"Country\" is not a defined name.",
                                   0),
              0u)
        << reversed.error;
}

TEST(AvroReferences, ASchemaMayNotRedefineAReferencedType) {
    const std::string text =
        R"({"type":"record","name":"Address","namespace":"com.acme","fields":[]})";
    EXPECT_EQ(parse(text, {kCountry, kAddress}).error, "Can't redefine: com.acme.Address");
}

TEST(AvroReferences, ASchemaMayBeJustAReferencedName) {
    const auto outcome = parse(R"("com.acme.Address")", {kCountry, kAddress});
    ASSERT_TRUE(outcome.schema) << outcome.error;
    EXPECT_EQ(outcome.schema->canonical(), R"("com.acme.Address")");
}

TEST(AvroReferences, OnlyTheReferencedSchemasOwnTypeStaysByName) {
    // Country is nested in the Address reference here, not referenced on its own: as in
    // Confluent, only each reference's top-level type is known to the canonical text.
    const ResolvedReference address_with_country{
        "com.acme.Address", "address", 3,
        R"({"type":"record","name":"com.acme.Address","fields":[{"name":"country","type":)"
        R"({"type":"enum","name":"Country","symbols":["NL"]}}]})"};
    const auto outcome =
        parse(R"({"type":"record","name":"com.acme.C","fields":[{"name":"c","type":"Country"}]})",
              {address_with_country});
    ASSERT_TRUE(outcome.schema) << outcome.error;
    EXPECT_EQ(outcome.schema->canonical(),
              R"({"type":"record","name":"C","namespace":"com.acme","fields":[{"name":"c",)"
              R"("type":{"type":"enum","name":"Country","symbols":["NL"]}}]})");
}

TEST(AvroReferences, NormalizeLeavesReferencedTypesAlone) {
    const ResolvedReference unsorted{
        "Tagged", "tagged", 1,
        R"({"type":"record","name":"Tagged","fields":[],"zebra":1,"apple":2})"};
    const auto outcome = parse(
        R"({"type":"record","name":"Main","z":1,"a":2,"fields":[{"name":"t","type":"Tagged"}]})",
        {unsorted}, /*normalize=*/true);
    ASSERT_TRUE(outcome.schema) << outcome.error;
    EXPECT_EQ(outcome.schema->canonical(),
              R"({"type":"record","name":"Main","fields":[{"name":"t","type":"Tagged"}],)"
              R"("a":2,"z":1})");
    EXPECT_EQ(outcome.schema->formatted("resolved"),
              R"({"type":"record","name":"Main","fields":[{"name":"t","type":{"type":"record",)"
              R"("name":"Tagged","fields":[],"zebra":1,"apple":2}}],"a":2,"z":1})");
}

TEST(AvroReferences, CompatibilityLooksThroughReferencedTypes) {
    const ResolvedReference address_v2{
        "com.acme.Address", "address", 3,
        R"({"type":"record","name":"Address","namespace":"com.acme","fields":[)"
        R"({"name":"street","type":"string"},{"name":"country","type":"Country"},)"
        R"({"name":"zip","type":"string"}]})"};
    const auto v1 = parse(kCustomer, {kCountry, kAddress}).schema;
    const auto v2 = parse(kCustomer, {kCountry, address_v2}).schema;
    ASSERT_TRUE(v1 && v2);
    const auto found = avro_format().check(*v2, *v1);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].description,
              "The field 'zip' at path '/fields/0/type/fields/2' in the new schema has no default "
              "value and is missing in the old schema");
    // Inside a union on both sides Avro Java reports only that the writer's branch found no
    // reader branch, not why.
    EXPECT_EQ(found[1].error_type, "MISSING_UNION_BRANCH");
    EXPECT_EQ(found[1].description,
              "The new schema is missing a type inside a union field at path '/fields/1/type/1' "
              "in the old schema");
    EXPECT_EQ(found[1].additional_info, "reader union lacking writer type: RECORD");
    EXPECT_TRUE(avro_format().check(*v1, *v2).empty());
}

}  // namespace
}  // namespace skiff::schema_registry
