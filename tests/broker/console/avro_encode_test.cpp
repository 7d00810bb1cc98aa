// The REST produce's Avro writer: exact bytes of Avro's binary encoding, the JSON encoding's
// unions and defaults, a round trip through the console's reader, and errors that name where.
#include "broker/console/avro_encode.h"

#include <gtest/gtest.h>

#include <string>

#include "broker/console/avro_datum.h"
#include "broker/schema_registry/formats/avro_schema_reader.h"

namespace skiff::broker::console {
namespace {

namespace avro = schema_registry::avro;
using nlohmann::json;

std::unique_ptr<avro::SchemaTree> schema(const std::string& text) {
    auto read = avro::read_schema(text, {});
    EXPECT_TRUE(read.tree) << read.error;
    return std::move(read.tree);
}

std::string bytes(std::initializer_list<int> values) {
    std::string out;
    for (int v : values)
        out.push_back(static_cast<char>(v));
    return out;
}

std::string written(const std::string& schema_text, const json& value) {
    auto tree = schema(schema_text);
    auto out = write_avro_datum(*tree->root, value);
    EXPECT_TRUE(out) << out.error();
    return out ? *out : std::string();
}

std::string refused(const std::string& schema_text, const json& value) {
    auto tree = schema(schema_text);
    auto out = write_avro_datum(*tree->root, value);
    EXPECT_FALSE(out) << "written although wrong: " << value.dump();
    return out ? std::string() : out.error();
}

// The examples of the Avro specification's binary encoding section.
TEST(AvroEncode, PrimitivesAsTheSpecificationEncodesThem) {
    EXPECT_EQ(written(R"("int")", 0), bytes({0x00}));
    EXPECT_EQ(written(R"("int")", -1), bytes({0x01}));
    EXPECT_EQ(written(R"("int")", 1), bytes({0x02}));
    EXPECT_EQ(written(R"("long")", -64), bytes({0x7f}));
    EXPECT_EQ(written(R"("long")", 64), bytes({0x80, 0x01}));
    EXPECT_EQ(written(R"("string")", "foo"), bytes({0x06, 'f', 'o', 'o'}));
    EXPECT_EQ(written(R"("boolean")", true), bytes({0x01}));
    EXPECT_EQ(written(R"("null")", nullptr), "");
    EXPECT_EQ(written(R"("float")", 1.5), bytes({0x00, 0x00, 0xc0, 0x3f}));
    EXPECT_EQ(written(R"("double")", 1.5), bytes({0, 0, 0, 0, 0, 0, 0xf8, 0x3f}));
    EXPECT_EQ(written(R"({"type": "array", "items": "long"})", json::array({3, 27})),
              bytes({0x04, 0x06, 0x36, 0x00}));
    EXPECT_EQ(written(R"({"type": "array", "items": "long"})", json::array()), bytes({0x00}));
    EXPECT_EQ(written(R"(["null", "string"])", json{{"string", "a"}}), bytes({0x02, 0x02, 'a'}));
    EXPECT_EQ(written(R"(["null", "string"])", nullptr), bytes({0x00}));
    EXPECT_EQ(
        written(R"({"type": "record", "name": "test", "fields": [{"name": "a", "type": "long"},
                          {"name": "b", "type": "string"}]})",
                json{{"a", 27}, {"b", "foo"}}),
        bytes({0x36, 0x06, 'f', 'o', 'o'}));
    EXPECT_EQ(written(R"("bytes")", std::string("\xc3\xbf\x00"
                                                "a",
                                                4)),
              bytes({0x06, 0xff, 0x00, 'a'}));
    EXPECT_EQ(written(R"({"type": "fixed", "name": "F", "size": 2})", "\u0001\u00e9"),
              bytes({0x01, 0xe9}));
    EXPECT_EQ(written(R"({"type": "enum", "name": "E", "symbols": ["A", "B", "C"]})", "C"),
              bytes({0x04}));
    EXPECT_EQ(written(R"({"type": "map", "values": "int"})", json{{"k", 1}}),
              bytes({0x02, 0x02, 'k', 0x02, 0x00}));
}

constexpr const char* kOrder = R"({"type": "record", "name": "Order", "namespace": "shop",
  "fields": [
    {"name": "id", "type": "long"},
    {"name": "item", "type": "string"},
    {"name": "note", "type": ["null", "string"], "default": null},
    {"name": "qty", "type": "int", "default": 1},
    {"name": "state", "type": {"type": "enum", "name": "State", "symbols": ["NEW", "PAID"]}},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
      "fields": [{"name": "sku", "type": "string"}, {"name": "price", "type": "double"}]}}},
    {"name": "tags", "type": {"type": "map", "values": "string"}, "default": {}},
    {"name": "payer", "type": ["null", "Line", {"type": "fixed", "name": "Ref", "size": 3}],
     "default": null},
    {"name": "raw", "type": "bytes", "default": "\u00ff"}
  ]})";

TEST(AvroEncode, ARecordReadsBackAsTheConsoleShowsIt) {
    auto tree = schema(kOrder);
    const json sent = {
        {"id", 7},
        {"item", "lamp"},
        {"note", {{"string", "fragile"}}},
        {"qty", 2},
        {"state", "PAID"},
        {"lines", json::array({{{"sku", "a"}, {"price", 1.25}}, {{"sku", "b"}, {"price", 2.5}}})},
        {"tags", {{"gift", "yes"}}},
        {"payer", {{"shop.Line", {{"sku", "p"}, {"price", 0.5}}}}},
        {"raw", "\u0001\u0002"}};
    auto out = write_avro_datum(*tree->root, sent);
    ASSERT_TRUE(out) << out.error();
    auto back = read_avro_datum(
        *tree->root, std::span(reinterpret_cast<const std::byte*>(out->data()), out->size()));
    ASSERT_TRUE(back) << back.error();
    json expected = sent;
    expected["note"] = "fragile";  // the console shows unions unwrapped
    expected["payer"] = {{"sku", "p"}, {"price", 0.5}};
    EXPECT_EQ(*back, expected);

    // What the console shows is accepted back as it is: unions unwrapped.
    auto again = write_avro_datum(*tree->root, *back);
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(*again, *out);
}

TEST(AvroEncode, MissingFieldsTakeTheirDefaults) {
    auto tree = schema(kOrder);
    const json sent = {{"id", 1}, {"item", "x"}, {"state", "NEW"}, {"lines", json::array()}};
    auto out = write_avro_datum(*tree->root, sent);
    ASSERT_TRUE(out) << out.error();
    auto back = read_avro_datum(
        *tree->root, std::span(reinterpret_cast<const std::byte*>(out->data()), out->size()));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ((*back)["note"], nullptr);
    EXPECT_EQ((*back)["qty"], 1);
    EXPECT_EQ((*back)["tags"], json::object());
    EXPECT_EQ((*back)["payer"], nullptr);
    EXPECT_EQ((*back)["raw"], "\u00ff");
}

TEST(AvroEncode, WrongValuesAreRefusedNamingWhere) {
    EXPECT_EQ(refused(R"("int")", 2147483648LL), "out of range");
    EXPECT_EQ(refused(R"("int")", "1"), "expected an integer");
    EXPECT_EQ(refused(R"("long")", 1.5), "expected an integer");
    EXPECT_EQ(refused(R"("string")", 1), "expected a string");
    EXPECT_EQ(refused(R"("null")", 0), "expected null");
    EXPECT_NE(refused(R"("bytes")", "\u0100").find("above U+00FF"), std::string::npos);
    EXPECT_NE(refused(R"({"type": "fixed", "name": "F", "size": 2})", "a").find("expected 2"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type": "enum", "name": "E", "symbols": ["A"]})", "B")
                  .find("\"B\" is not a symbol of enum E"),
              std::string::npos);
    EXPECT_NE(refused(R"(["null", "int"])", "x").find("no branch of the union"), std::string::npos);

    const json base = {{"id", 1}, {"item", "x"}, {"state", "NEW"}};
    json lines = base;
    lines["lines"] = json::array({{{"sku", "a"}, {"price", 1}}, {{"sku", "b"}, {"price", "9"}}});
    EXPECT_EQ(refused(kOrder, lines), "lines[1].price: expected a number");
    json unknown = base;
    unknown["lines"] = json::array();
    unknown["colour"] = "red";
    EXPECT_EQ(refused(kOrder, unknown), "colour: not a field of record shop.Order");
    EXPECT_EQ(refused(kOrder, {{"id", 1}, {"item", "x"}, {"lines", json::array()}}),
              "state: missing, and the field has no default");
    EXPECT_EQ(refused(kOrder, json::array()), "expected an object (record shop.Order)");
}

// Unions whose branches fail late cannot multiply the work: every value looked at, in every
// branch tried, counts against one limit.
TEST(AvroEncode, TryingUnionBranchesIsBounded) {
    auto tree = schema(R"({"type": "record", "name": "N", "fields": [
        {"name": "next", "type": ["null", "N", {"type": "record", "name": "M", "fields": [
          {"name": "next", "type": ["null", "N", "M"]}, {"name": "end", "type": "int"}]}]},
        {"name": "end", "type": "string"}]})");
    json value = {{"next", nullptr}, {"end", 0}};  // "end" fits M, not N: every N tried fails
    for (int i = 0; i < 40; ++i)
        value = {{"next", value}, {"end", 0}};
    AvroDatumLimits limits;
    limits.max_values = 100000;
    auto out = write_avro_datum(*tree->root, value, limits);
    ASSERT_FALSE(out);
}

}  // namespace
}  // namespace skiff::broker::console
