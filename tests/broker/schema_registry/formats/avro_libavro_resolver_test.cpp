// What libavro 1.11.1's schema resolution (avro_resolved_writer_new(writer, reader)) does with
// the spec's rules, pinned: the evidence for checking compatibility in skiff's own code
// (avro_compatibility.h). Where libavro agrees with the spec, skiff's verdict is compared with
// it; where it does not, the test states how it differs. Should a newer libavro change any of
// this, these tests say so, and whether to use its resolver can be weighed again.
#include <avro.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

// True when libavro resolves `writer` into `reader`. Both must parse.
bool libavro_resolves(const std::string& writer, const std::string& reader) {
    avro_schema_t w = nullptr;
    avro_schema_t r = nullptr;
    EXPECT_EQ(avro_schema_from_json_length(writer.data(), writer.size(), &w), 0) << writer;
    EXPECT_EQ(avro_schema_from_json_length(reader.data(), reader.size(), &r), 0) << reader;
    avro_value_iface_t* resolver = avro_resolved_writer_new(w, r);
    const bool resolves = resolver != nullptr;
    if (resolver != nullptr)
        avro_value_iface_decref(resolver);
    avro_schema_decref(w);
    avro_schema_decref(r);
    return resolves;
}

bool skiff_compatible(const std::string& writer, const std::string& reader) {
    const auto w = avro_format().parse(writer, {}, false).schema;
    const auto r = avro_format().parse(reader, {}, false).schema;
    EXPECT_TRUE(w && r);
    return w && r && avro_format().check(*r, *w).empty();
}

std::string record(const std::string& fields, const std::string& name = "R",
                   const std::string& extra = "") {
    return R"({"type":"record","name":")" + name + R"(")" + extra + R"(,"fields":[)" + fields +
           "]}";
}

TEST(AvroLibavroResolver, AgreesWithSkiffOnPrimitivesExceptStringAndBytes) {
    const std::vector<std::string> all{"null",  "boolean", "int",   "long",
                                       "float", "double",  "bytes", "string"};
    for (const auto& writer : all)
        for (const auto& reader : all) {
            const auto w = "\"" + writer + "\"";
            const auto r = "\"" + reader + "\"";
            const bool text_pair = (writer == "string" && reader == "bytes") ||
                                   (writer == "bytes" && reader == "string");
            // The spec promotes string <-> bytes; libavro does not.
            EXPECT_EQ(libavro_resolves(w, r), skiff_compatible(w, r) && !text_pair)
                << writer << " -> " << reader;
        }
}

TEST(AvroLibavroResolver, RefusesAReaderFieldThatHasADefault) {
    const auto writer = record(R"({"name":"a","type":"int"})");
    const auto reader =
        record(R"({"name":"a","type":"int"},{"name":"b","type":"int","default":0})");
    EXPECT_FALSE(libavro_resolves(writer, reader));
    EXPECT_TRUE(skiff_compatible(writer, reader));
}

TEST(AvroLibavroResolver, IgnoresFieldAndRecordAliases) {
    const auto writer = record(R"({"name":"zip","type":"string"})");
    EXPECT_FALSE(libavro_resolves(
        writer, record(R"({"name":"postcode","type":"string","aliases":["zip"]})")));
    const auto renamed = record(R"({"name":"zip","type":"string"})", "S", R"(,"aliases":["R"])");
    EXPECT_FALSE(libavro_resolves(writer, renamed));
    EXPECT_TRUE(skiff_compatible(writer, renamed));
}

TEST(AvroLibavroResolver, AcceptsAnEnumThatLostSymbols) {
    const auto writer = R"({"type":"enum","name":"E","symbols":["A","B"]})";
    const auto reader = R"({"type":"enum","name":"E","symbols":["A"]})";
    EXPECT_TRUE(libavro_resolves(writer, reader));
    EXPECT_FALSE(skiff_compatible(writer, reader));
}

TEST(AvroLibavroResolver, AcceptsAWriterUnionOfWhichOneBranchResolves) {
    EXPECT_TRUE(libavro_resolves(R"(["int","string"])", R"("int")"));
    EXPECT_FALSE(skiff_compatible(R"(["int","string"])", R"("int")"));
}

TEST(AvroLibavroResolver, ComparesFixedNamespacesButRecordsOnlyByUnqualifiedName) {
    EXPECT_FALSE(libavro_resolves(R"({"type":"fixed","name":"x.F","size":4})",
                                  R"({"type":"fixed","name":"y.F","size":4})"));
    EXPECT_TRUE(libavro_resolves(record(R"({"name":"a","type":"int"})", "x.R"),
                                 record(R"({"name":"a","type":"int"})", "y.R")));
    // The spec and Avro Java compare unqualified names for both.
    EXPECT_TRUE(skiff_compatible(R"({"type":"fixed","name":"x.F","size":4})",
                                 R"({"type":"fixed","name":"y.F","size":4})"));
}

TEST(AvroLibavroResolver, AgreesOnPromotionsInsideContainersAndRecursion) {
    const auto list = [](const std::string& value) {
        return R"({"type":"record","name":"L","fields":[{"name":"v","type":")" + value +
               R"("},{"name":"next","type":["null","L"]}]})";
    };
    EXPECT_TRUE(libavro_resolves(list("int"), list("long")));
    EXPECT_TRUE(skiff_compatible(list("int"), list("long")));
    EXPECT_TRUE(libavro_resolves(R"({"type":"array","items":"int"})",
                                 R"({"type":"array","items":"double"})"));
}

using AvroLibavroResolverDeathTest = ::testing::Test;

// The decisive one: an array whose items (or a map whose values) do not resolve makes
// avro_resolved_writer_new free a child resolver it never set, and the process dies. In the
// broker that would be any user's compatibility check taking the broker down.
TEST_F(AvroLibavroResolverDeathTest, CrashesWhenArrayItemsOrMapValuesDoNotResolve) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        libavro_resolves(R"({"type":"array","items":"long"})", R"({"type":"array","items":"int"})"),
        "");
    EXPECT_DEATH(
        libavro_resolves(R"({"type":"map","values":"long"})", R"({"type":"map","values":"int"})"),
        "");
    EXPECT_FALSE(skiff_compatible(R"({"type":"array","items":"long"})",
                                  R"({"type":"array","items":"int"})"));
}

}  // namespace
}  // namespace skiff::schema_registry
