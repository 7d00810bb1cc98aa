// The canonical text of AVRO schemas (Avro Java's Schema.toString(), what Confluent stores) and
// Confluent's normalized form.
#include <gtest/gtest.h>

#include <string>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

std::string canonical(const std::string& text, bool normalize = false) {
    const auto outcome = avro_format().parse(text, {}, normalize);
    EXPECT_NE(outcome.schema, nullptr) << outcome.error << "\n" << text;
    return outcome.schema ? outcome.schema->canonical() : "";
}

TEST(AvroCanonical, WhitespaceAndAttributeOrderDoNotChangeIt) {
    const std::string compact =
        R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"}]})";
    const std::string spread = R"(
        {
          "fields" : [ { "type" : "long", "name" : "id" } ],
          "name"   : "User",
          "type"   : "record"
        })";
    EXPECT_EQ(canonical(spread), compact);
    EXPECT_EQ(canonical(compact), compact);
}

TEST(AvroCanonical, EveryAttributeInAvroJavasOrder) {
    const std::string text = R"({
        "x-owner": "team-a", "aliases": ["Customer"], "namespace": "com.acme", "doc": "A user",
        "fields": [
          {"aliases": ["ident"], "order": "descending", "default": 0, "doc": "The id",
           "type": "long", "name": "id", "x-pii": false},
          {"name": "kind", "type": {"symbols": ["A", "B"], "default": "A", "name": "Kind",
                                    "type": "enum", "x-e": 1}},
          {"name": "hash", "type": {"size": 16, "type": "fixed", "name": "Hash", "doc": ""}},
          {"name": "asc", "type": "int", "order": "ascending"}
        ],
        "name": "User", "type": "record"})";
    EXPECT_EQ(canonical(text),
              R"({"type":"record","name":"User","namespace":"com.acme","doc":"A user","fields":[)"
              R"({"name":"id","type":"long","doc":"The id","default":0,"order":"descending",)"
              R"("aliases":["ident"],"x-pii":false},)"
              R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"],)"
              R"("default":"A","x-e":1}},)"
              R"({"name":"hash","type":{"type":"fixed","name":"Hash","doc":"","size":16}},)"
              R"({"name":"asc","type":"int"}],"x-owner":"team-a","aliases":["Customer"]})");
}

TEST(AvroCanonical, PrimitivesAreBareNamesUnlessTheyCarryProperties) {
    EXPECT_EQ(canonical(R"({"type":"int"})"), R"("int")");
    EXPECT_EQ(canonical(R"({"type":"int","doc":"reserved, so dropped"})"), R"("int")");
    EXPECT_EQ(canonical(R"({"logicalType":"timestamp-millis","type":"long"})"),
              R"({"type":"long","logicalType":"timestamp-millis"})");
    EXPECT_EQ(canonical(R"([{"type":"null"},"string"])"), R"(["null","string"])");
}

TEST(AvroCanonical, NamedTypesAreWrittenOnceThenByNameRelativeToTheirNamespace) {
    const std::string text = R"({"type":"record","name":"a.R","fields":[
        {"name":"x","type":{"type":"fixed","name":"F","size":2}},
        {"name":"y","type":"F"},
        {"name":"z","type":{"type":"enum","name":"b.E","symbols":["A"]}},
        {"name":"w","type":"b.E"},
        {"name":"n","type":{"type":"record","name":"N","namespace":"","fields":[]}},
        {"name":"m","type":{"type":"map","values":"a.F"}}]})";
    EXPECT_EQ(canonical(text),
              R"({"type":"record","name":"R","namespace":"a","fields":[)"
              R"({"name":"x","type":{"type":"fixed","name":"F","size":2}},)"
              R"({"name":"y","type":"F"},)"
              R"({"name":"z","type":{"type":"enum","name":"E","namespace":"b","symbols":["A"]}},)"
              R"({"name":"w","type":"b.E"},)"
              R"({"name":"n","type":{"type":"record","name":"N","namespace":"","fields":[]}},)"
              R"({"name":"m","type":{"type":"map","values":"F"}}]})");
    // The same names spelled another way give the same text.
    EXPECT_EQ(canonical(R"({"type":"record","name":"R","namespace":"a","fields":[]})"),
              canonical(R"({"type":"record","name":"a.R","fields":[]})"));
}

TEST(AvroCanonical, NumbersAndStringsAsJavaWritesThem) {
    auto default_of = [](const std::string& type, const std::string& value) {
        const auto text = canonical(R"({"type":"record","name":"R","fields":[{"name":"f","type":)" +
                                    type + R"(,"default":)" + value + "}]}");
        const auto start = text.find(R"("default":)") + 10;
        return text.substr(start, text.rfind("}]}") - start);
    };
    EXPECT_EQ(default_of(R"("double")", "1e10"), "1.0E10");
    EXPECT_EQ(default_of(R"("double")", "0.0001"), "1.0E-4");
    EXPECT_EQ(default_of(R"("double")", "0.001"), "0.001");
    EXPECT_EQ(default_of(R"("double")", "1234567.5"), "1234567.5");
    EXPECT_EQ(default_of(R"("double")", "12345678.0"), "1.2345678E7");
    EXPECT_EQ(default_of(R"("double")", "-2.50"), "-2.5");
    EXPECT_EQ(default_of(R"("double")", "3"), "3");  // an integer stays an integer
    EXPECT_EQ(default_of(R"("double")", R"("NaN")"), R"("NaN")");
    EXPECT_EQ(default_of(R"("float")", R"(" 2.5 ")"), "2.5");  // text made a number, as in Java
    EXPECT_EQ(default_of(R"("string")", R"("a/b \"c\" \u001f é")"), R"("a/b \"c\" \u001F é")");
    EXPECT_EQ(default_of(R"("long")", "-9223372036854775808"), "-9223372036854775808");
}

TEST(AvroCanonical, WithoutNormalizePropertiesKeepTheirWrittenOrder) {
    const std::string zebra_first =
        R"({"type":"record","name":"R","fields":[],"zebra":1,"apple":2})";
    const std::string apple_first =
        R"({"type":"record","name":"R","fields":[],"apple":2,"zebra":1})";
    EXPECT_NE(canonical(zebra_first), canonical(apple_first));
    EXPECT_EQ(canonical(zebra_first, true), canonical(apple_first, true));
    EXPECT_EQ(canonical(zebra_first, true),
              R"({"type":"record","name":"R","fields":[],"apple":2,"zebra":1})");
}

TEST(AvroCanonical, NormalizeSortsPropertiesWithAKnownLogicalTypeFirst) {
    EXPECT_EQ(canonical(R"({"type":"int","connect.name":"x","logicalType":"date"})", true),
              R"({"type":"int","logicalType":"date","connect.name":"x"})");
    // A logical type Avro Java does not accept on this type is only a property: sorted.
    EXPECT_EQ(canonical(R"({"type":"string","logicalType":"date","connect.name":"x"})", true),
              R"({"type":"string","connect.name":"x","logicalType":"date"})");
    EXPECT_EQ(canonical(R"({"type":"bytes","scale":2,"precision":5,"connect.name":"x",)"
                        R"("logicalType":"decimal"})",
                        true),
              R"({"type":"bytes","logicalType":"decimal","precision":5,"scale":2,)"
              R"("connect.name":"x"})");
    // A scale of 0 is not written with the logical type, so it sorts with the rest.
    EXPECT_EQ(canonical(R"({"type":"bytes","logicalType":"decimal","scale":0,"precision":4,"a":1})",
                        true),
              R"({"type":"bytes","logicalType":"decimal","precision":4,"a":1,"scale":0})");
    // fixed(2) holds at most 4 decimal digits.
    EXPECT_EQ(canonical(R"({"type":"fixed","name":"D","size":2,"precision":5,"b":0,)"
                        R"("logicalType":"decimal"})",
                        true),
              R"({"type":"fixed","name":"D","size":2,"b":0,"logicalType":"decimal",)"
              R"("precision":5})");
}

TEST(AvroCanonical, NormalizeSortsAliasesDropsEmptyTypeDocsAndKeepsFieldDocs) {
    const std::string text =
        R"({"type":"record","name":"R","namespace":"ns","doc":"","aliases":["b.Z","A"],)"
        R"("fields":[{"name":"f","type":"int","doc":"","aliases":["z","a"]}]})";
    EXPECT_EQ(canonical(text, true),
              R"({"type":"record","name":"R","namespace":"ns","fields":[{"name":"f","type":"int",)"
              R"("doc":"","aliases":["a","z"]}],"aliases":["b.Z","A"]})");
    EXPECT_EQ(canonical(text),
              R"({"type":"record","name":"R","namespace":"ns","doc":"","fields":[{"name":"f",)"
              R"("type":"int","doc":"","aliases":["z","a"]}],"aliases":["b.Z","A"]})");
}

TEST(AvroCanonical, NormalizeWritesDefaultsAsValuesOfTheirType) {
    const std::string text = R"({"type":"record","name":"R","fields":[
        {"name":"d","type":"double","default":1},
        {"name":"f","type":"float","default":3.3333333333},
        {"name":"u","type":["double","null"],"default":2},
        {"name":"n","type":["null","double"],"default":null},
        {"name":"b","type":"bytes","default":"\u00e9\u0100"},
        {"name":"a","type":{"type":"array","items":"float"},"default":[1,0.1]}]})";
    EXPECT_EQ(canonical(text, true),
              R"({"type":"record","name":"R","fields":[)"
              R"({"name":"d","type":"double","default":1.0},)"
              R"({"name":"f","type":"float","default":3.3333333},)"
              R"({"name":"u","type":["double","null"],"default":2.0},)"
              R"({"name":"n","type":["null","double"],"default":null},)"
              R"({"name":"b","type":"bytes","default":"é?"},)"
              R"({"name":"a","type":{"type":"array","items":"float"},"default":[1.0,0.1]}]})");
}

TEST(AvroCanonical, SchemasEqualUnderTheSpecNormalizeToOneText) {
    // Connect-style metadata, written in two orders and two layouts.
    const std::string one = R"({"type":"record","name":"Envelope","namespace":"io.db",
        "connect.name":"io.db.Envelope","connect.version":1,
        "fields":[{"name":"at","type":{"type":"long","connect.version":1,
                                       "connect.name":"io.db.Timestamp"},"x":"y"}]})";
    const std::string two = R"({"connect.version":1,"fields":[{"x":"y","type":{
        "connect.name":"io.db.Timestamp","type":"long","connect.version":1},"name":"at"}],
        "name":"io.db.Envelope","type":"record","connect.name":"io.db.Envelope"})";
    EXPECT_NE(canonical(one), canonical(two));
    EXPECT_EQ(canonical(one, true), canonical(two, true));
    EXPECT_EQ(canonical(one, true),
              R"({"type":"record","name":"Envelope","namespace":"io.db","fields":[{"name":"at",)"
              R"("type":{"type":"long","connect.name":"io.db.Timestamp","connect.version":1},)"
              R"("x":"y"}],"connect.name":"io.db.Envelope","connect.version":1})");
}

TEST(AvroCanonical, NormalizingTheNormalizedTextChangesNothing) {
    const std::string text =
        R"({"type":"record","name":"R","z":1,"a":[2,1],"aliases":["Q","P"],"fields":[)"
        R"({"name":"f","type":{"type":"int","logicalType":"date","b":1},"default":1}]})";
    const auto once = canonical(text, true);
    EXPECT_EQ(canonical(once, true), once);
    EXPECT_EQ(canonical(once), once);
}

TEST(AvroCanonical, ResolvedFormatEqualsTheCanonicalTextWithoutReferences) {
    const auto outcome = avro_format().parse(R"({"type":"array","items":"int"})", {}, false);
    ASSERT_TRUE(outcome.schema);
    EXPECT_EQ(outcome.schema->formatted("resolved"), outcome.schema->canonical());
    EXPECT_EQ(outcome.schema->formatted("serialized"), std::nullopt);
}

}  // namespace
}  // namespace skiff::schema_registry
