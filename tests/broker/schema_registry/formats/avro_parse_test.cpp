// Parsing AVRO schemas: what is accepted, and the message (for the registry's error 42201) for
// what is not.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

std::string error_of(const std::string& text) {
    const auto outcome = avro_format().parse(text, {}, false);
    return outcome.schema ? "" : outcome.error;
}

TEST(AvroParse, TheTypeIsAvro) {
    EXPECT_EQ(avro_format().type(), "AVRO");
}

TEST(AvroParse, EveryKindOfSchemaParses) {
    const std::vector<std::string> valid{
        R"("int")",
        R"({"type":"string"})",
        R"(["null","string",{"type":"array","items":"long"}])",
        R"({"type":"map","values":{"type":"fixed","name":"md5","size":16}})",
        R"({"type":"enum","name":"Suit","symbols":["HEARTS","SPADES"],"default":"HEARTS"})",
        R"({"type":"record","name":"com.acme.Order","doc":"An order",
            "fields":[{"name":"id","type":"long","order":"descending"},
                      {"name":"note","type":["null","string"],"default":null,"aliases":["memo"]},
                      {"name":"tags","type":{"type":"array","items":"string"},"default":["a"]},
                      {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
                      {"name":"price","type":{"type":"bytes","logicalType":"decimal",
                                              "precision":9,"scale":2}},
                      {"name":"next","type":["null","Order"],"default":null}]})",
        R"({"type":"record","name":"Empty","fields":[]})",
    };
    for (const auto& text : valid)
        EXPECT_EQ(error_of(text), "") << text;
}

TEST(AvroParse, ValidDefaultsOfEveryType) {
    auto with_default = [](const std::string& type, const std::string& value) {
        return R"({"type":"record","name":"R","fields":[{"name":"f","type":)" + type +
               R"(,"default":)" + value + "}]}";
    };
    EXPECT_EQ(error_of(with_default(R"("boolean")", "true")), "");
    EXPECT_EQ(error_of(with_default(R"("int")", "-2147483648")), "");
    EXPECT_EQ(error_of(with_default(R"("long")", "9223372036854775807")), "");
    EXPECT_EQ(error_of(with_default(R"("double")", "1")), "");
    EXPECT_EQ(error_of(with_default(R"("double")", R"("NaN")")), "");
    EXPECT_EQ(error_of(with_default(R"("bytes")", R"("\u00ff")")), "");
    EXPECT_EQ(error_of(with_default(R"(["string","null"])", R"("x")")), "");
    EXPECT_EQ(error_of(with_default(R"({"type":"map","values":"int"})", R"({"a":1})")), "");
    EXPECT_EQ(
        error_of(with_default(R"({"type":"record","name":"P","fields":[{"name":"x","type":"int"},)"
                              R"({"name":"y","type":"int","default":0}]})",
                              R"({"x":1})")),
        "");
}

struct Refused {
    std::string text;
    std::string message;  // what the error says (its beginning, or all of it)
};

TEST(AvroParse, InvalidSchemasAreRefusedWithAClearMessage) {
    const std::string r = R"({"type":"record","name":"R","fields":[)";
    const std::vector<Refused> refused{
        {r, "Invalid JSON: parse error at line 1, column 39"},
        {"", "Invalid JSON"},
        {"5", "Schema not yet supported: 5"},
        {R"({"type":"record","name":"R"})", "Record has no fields"},
        {R"({"type":"record","fields":[]})", "No name in schema"},
        {R"({"name":"R"})", "No type"},
        {R"("Nope")", R"(Undefined name: "Nope")"},
        {R"({"type":"nope"})", "Type not supported: nope"},
        {r + R"({"name":"f","type":"Nope"}]})",
         R"("Nope" is not a defined name. The type of the "f" field must be a defined name or a )"
         R"({"type": ...} expression.)"},
        {R"({"type":"record","name":"bad-name","fields":[]})", "Illegal character in: bad-name"},
        {R"({"type":"record","name":"1R","fields":[]})", "Illegal initial character: 1R"},
        {R"({"type":"record","name":"R","namespace":"com.bad-ns","fields":[]})",
         "Illegal character in: bad-ns (in namespace com.bad-ns)"},
        {r + R"({"name":"my-field","type":"int"}]})", "Illegal character in: my-field"},
        {r + R"({"name":"a","type":"int"},{"name":"a","type":"long"}]})",
         "Duplicate field a in record R"},
        {r + R"({"type":"int"}]})", "No field name"},
        {r + R"({"name":"a"}]})", "No field type"},
        {r + R"({"name":"a","type":"int","order":"sideways"}]})", "Invalid order \"sideways\""},
        {R"({"type":"enum","name":"E"})", "Enum has no symbols"},
        {R"({"type":"enum","name":"E","symbols":[]})", "Enum type must have at least one symbol"},
        {R"({"type":"enum","name":"E","symbols":["A","A"]})", "Duplicate enum symbol: A"},
        {R"({"type":"enum","name":"E","symbols":["A-B"]})", "Illegal character in: A-B"},
        {R"({"type":"enum","name":"E","symbols":["A","B"],"default":"Z"})",
         "The Enum Default: Z is not in the enum symbol set: [A, B]"},
        {R"(["int","int"])", "Duplicate in union:int"},
        {R"([{"type":"record","name":"R","fields":[]},"R"])", "Duplicate in union:R"},
        {R"(["int",["null","long"]])", "Nested union"},
        {"[]", "Union type must have at least one branch"},
        {R"({"type":"fixed","name":"F"})", "Invalid or no size"},
        {R"({"type":"fixed","name":"F","size":-3})", "Invalid or no size"},
        {R"({"type":"array"})", "Array has no items type"},
        {R"({"type":"map"})", "Map has no values type"},
        {r + R"({"name":"a","type":{"type":"record","name":"R","fields":[]}}]})",
         "Can't redefine: R"},
        {R"({"type":"record","name":"int","fields":[]})",
         "Schemas may not be named after primitives: int"},
        {R"({"type":"record","name":"R","aliases":"Old","fields":[]})", "aliases not an array"},
    };
    for (const auto& [text, message] : refused) {
        const auto error = error_of(text);
        EXPECT_EQ(error.substr(0, message.size()), message) << text << "\n -> " << error;
    }
}

TEST(AvroParse, DefaultsThatDoNotFitTheirTypeAreRefused) {
    auto with_default = [](const std::string& type, const std::string& value) {
        return R"({"type":"record","name":"R","fields":[{"name":"f","type":)" + type +
               R"(,"default":)" + value + "}]}";
    };
    const std::vector<std::pair<std::string, std::string>> invalid{
        {R"("int")", R"("x")"},
        {R"("int")", "1.5"},
        {R"("int")", "2147483648"},
        {R"("long")", "9223372036854775808"},
        {R"("null")", "0"},
        {R"("boolean")", R"("true")"},
        {R"("string")", "1"},
        {R"("bytes")", "[1]"},
        {R"("float")", R"("abc")"},
        {R"({"type":"array","items":"int"})", R"([1,"x"])"},
        {R"({"type":"map","values":"int"})", R"({"a":"x"})"},
        {R"({"type":"enum","name":"E","symbols":["A"]})", "0"},
        // A union's default belongs to its first branch.
        {R"(["null","string"])", R"("x")"},
        {R"({"type":"record","name":"P","fields":[{"name":"x","type":"int"}]})", "{}"},
    };
    for (const auto& [type, value] : invalid) {
        const auto error = error_of(with_default(type, value));
        EXPECT_EQ(error.rfind("Invalid default for field f: " + value + " not a ", 0), 0u)
            << type << " / " << value << " -> " << error;
    }
}

TEST(AvroParse, AbsurdNestingIsRefusedInsteadOfExhaustingTheStack) {
    std::string text = R"("int")";
    for (int i = 0; i < 500; ++i) {
        text.insert(0, R"({"type":"array","items":)");
        text += '}';
    }
    EXPECT_EQ(error_of(text).rfind("Schema nested deeper than", 0), 0u);
}

TEST(AvroParse, TheMessageIsValidUtf8EvenForATextThatIsNot) {
    // The registry puts the message in a JSON answer; nlohmann refuses to write invalid UTF-8.
    const auto error = error_of("{\"type\":\"record\",\"name\":\"\xff\xfe\"}");
    EXPECT_EQ(error.rfind("Invalid JSON:", 0), 0u);
    EXPECT_NO_THROW((void)nlohmann::json(error).dump()) << error;
}

TEST(AvroParse, WhitespaceAndLayoutDoNotMatter) {
    const auto compact = avro_format().parse(R"({"type":"array","items":"int"})", {}, false);
    const auto pretty =
        avro_format().parse("{\n  \"items\" : \"int\",\n\t\"type\" : \"array\"\n}\n", {}, false);
    ASSERT_TRUE(compact.schema && pretty.schema);
    EXPECT_EQ(compact.schema->canonical(), pretty.schema->canonical());
}

}  // namespace
}  // namespace skiff::schema_registry
