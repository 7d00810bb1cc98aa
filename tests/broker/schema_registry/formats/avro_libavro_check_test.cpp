// libavro as the second judge of a schema: references made known to its parser through the
// wrapper record, what it refuses on its own, what it lets through (and skiff's reader does
// not), and its error messages under concurrent use.
#include "broker/schema_registry/formats/avro_libavro_check.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace skiff::schema_registry::avro {
namespace {

const ResolvedReference kAddress{"com.acme.Address", "address", 1,
                                 R"({"type":"record","name":"Address","namespace":"com.acme",)"
                                 R"("fields":[{"name":"street","type":"string"}]})"};

TEST(AvroLibavroCheck, AcceptsAValidSchemaAndRefusesAnInvalidOne) {
    EXPECT_EQ(libavro_parse_error(R"({"type":"array","items":"int"})", {}), "");
    EXPECT_EQ(libavro_parse_error(R"({"type":"record","name":"R"})", {}),
              R"(libavro: Record type must have "fields")");
}

TEST(AvroLibavroCheck, ReferencedTypesAreKnownToTheParser) {
    const std::string customer =
        R"({"type":"record","name":"Customer","namespace":"com.acme",)"
        R"("fields":[{"name":"home","type":"com.acme.Address"},{"name":"work","type":"Address"}]})";
    EXPECT_EQ(libavro_parse_error(customer, {kAddress}), "");
    // Without the reference the name is unknown.
    EXPECT_EQ(libavro_parse_error(customer, {}),
              R"(libavro: Unknown Avro "type": com.acme.Address)");
    // The schema may be nothing but the referenced name.
    EXPECT_EQ(libavro_parse_error(R"("com.acme.Address")", {kAddress}), "");
}

TEST(AvroLibavroCheck, AReferenceToAnUnknownNameIsRefused) {
    const std::string text =
        R"({"type":"record","name":"Customer","fields":[{"name":"a","type":"com.acme.Missing"}]})";
    EXPECT_EQ(libavro_parse_error(text, {kAddress}),
              R"(libavro: Unknown Avro "type": com.acme.Missing)");
}

TEST(AvroLibavroCheck, ReferencesMayUseTheOnesBeforeThem) {
    const ResolvedReference country{
        "com.acme.Country", "country", 3,
        R"({"type":"enum","name":"com.acme.Country","symbols":["NL","FR"]})"};
    const ResolvedReference address{"com.acme.Address", "address", 2,
                                    R"({"type":"record","name":"com.acme.Address","fields":[)"
                                    R"({"name":"country","type":"com.acme.Country"}]})"};
    EXPECT_EQ(libavro_parse_error(R"(["null","com.acme.Address"])", {country, address}), "");
}

TEST(AvroLibavroCheck, TheWrapperNeverClashesWithTheSchemasOwnNames) {
    const std::string text = R"({"type":"record","name":"skiff_reference_scope","fields":[)"
                             R"({"name":"a","type":"com.acme.Address"}]})";
    EXPECT_EQ(libavro_parse_error(text, {kAddress}), "");
}

TEST(AvroLibavroCheck, AloneItAcceptsWhatAvroJavaRefuses) {
    // Why skiff's reader runs first: libavro's grammar checks are few.
    const std::string repeated_field =
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},)"
        R"({"name":"a","type":"long"}]})";
    const std::vector<std::string> accepted_by_libavro{
        repeated_field,
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]})",
        R"({"type":"enum","name":"E","symbols":["A","A"]})",
        R"({"type":"enum","name":"E","symbols":["A"],"default":"Z"})",
        R"(["int","int"])",
        R"(["int",["null","long"]])",
        R"({"type":"fixed","name":"F","size":-3})",
        R"({"type":"record","name":"int","fields":[]})",
    };
    for (const auto& text : accepted_by_libavro)
        EXPECT_EQ(libavro_parse_error(text, {}), "") << text;
}

TEST(AvroLibavroCheck, EachCallerGetsItsOwnMessageUnderConcurrency) {
    // libavro keeps its last error in one process-wide buffer; the mutex keeps a parse and the
    // reading of its message together.
    std::vector<std::thread> threads;
    threads.reserve(4);
    std::vector<int> wrong(4, 0);
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([t, &wrong] {
            // Many fields before the unknown type: libavro frees them after setting its
            // message, which widens the window in which another parse could overwrite it.
            const std::string name = "Missing" + std::to_string(t);
            std::string text = R"({"type":"record","name":"R","fields":[)";
            for (int f = 0; f < 500; ++f)
                text += R"({"name":"f)" + std::to_string(f) + R"(","type":"int"},)";
            text += R"({"name":"bad","type":")" + name + R"("}]})";
            for (int i = 0; i < 100; ++i)
                if (libavro_parse_error(text, {}) != R"(libavro: Unknown Avro "type": )" + name)
                    ++wrong[t];
        });
    }
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace skiff::schema_registry::avro
