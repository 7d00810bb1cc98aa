// Values in Confluent's wire format decoded through the schema registry (JSON Schema, Avro,
// Protobuf) in the records page, with hostile payloads that must fail as a schema_error and
// never crash; the registry's REST API read through /api/schema-registry/; the version diff;
// and all of it with the registry off.
#include "tests/broker/console/console_fixture.h"

#include "broker/console/avro_datum.h"
#include "broker/console/line_diff.h"
#include "broker/console/schema_decoder.h"
#include "broker/net/session.h"
#include "broker/schema_registry/formats/avro_schema_reader.h"
#include "broker/security/acl.h"
#include "protocol/produce.h"

namespace skiff::broker::test {
namespace {

// Confluent's wire format header: magic 0, the id big-endian.
std::string wire(int32_t id) {
    std::string h(1, '\0');
    for (int shift = 24; shift >= 0; shift -= 8)
        h.push_back(static_cast<char>((id >> shift) & 0xff));
    return h;
}

// Avro's zig-zag varint.
std::string avro_long(int64_t v) {
    auto z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    std::string out;
    while (z >= 0x80) {
        out.push_back(static_cast<char>((z & 0x7f) | 0x80));
        z >>= 7;
    }
    out.push_back(static_cast<char>(z));
    return out;
}
std::string avro_string(const std::string& s) {
    return avro_long(static_cast<int64_t>(s.size())) + s;
}

constexpr const char* kUserSchema =
    R"({"type":"record","name":"User","namespace":"com.acme","fields":[)"
    R"({"name":"name","type":"string"},{"name":"age","type":"int"},)"
    R"({"name":"tags","type":{"type":"array","items":"string"}},)"
    R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},)"
    R"({"name":"score","type":["null","double"]},)"
    R"({"name":"attrs","type":{"type":"map","values":"long"}},)"
    R"({"name":"ok","type":"boolean"}]})";

class SchemaRoutesTest : public ConsoleTest {
  protected:
    SchemaRoutesTest() { config.schema_registry_listeners = "http://127.0.0.1:0"; }

    int32_t register_schema(const std::string& subject, const std::string& schema,
                            const std::string& type = "") {
        schema_registry::RestRequest r;
        r.principal = "User:admin";  // a super user when a test turns ACLs on
        r.method = "POST";
        r.path = "/subjects/" + console::encode_path_segment(subject) + "/versions";
        nlohmann::json body = {{"schema", schema}};
        if (!type.empty())
            body["schemaType"] = type;
        r.body = body.dump();
        auto answer = broker().schema_registry()->handle(r);
        EXPECT_EQ(answer.status, 200) << answer.body;
        return nlohmann::json::parse(answer.body)["id"].get<int32_t>();
    }

    // Each value a record of its own, in order; the page read back from the beginning.
    nlohmann::json produce_and_read(const std::string& topic,
                                    const std::vector<std::optional<std::string>>& values,
                                    const std::optional<std::string>& key = std::nullopt) {
        create_topic(topic);
        std::vector<protocol::RecordSpec> records;
        for (const auto& v : values)
            records.push_back({key, v, {}, 0});
        auto batch = protocol::build_record_batch({}, records);
        protocol::ProduceRequest req;
        req.acks = -1;
        req.timeout_ms = 1000;
        req.topic_data.push_back({topic, {}, {{0, std::span<const std::byte>(batch)}}});
        EXPECT_EQ(run(handle_produce, req, 9).responses.at(0).partition_responses.at(0).error_code,
                  ErrorCode::none);
        auto r = get("/api/topics/" + topic + "/partitions/0/records?from=beginning&limit=500");
        EXPECT_EQ(r.status, 200) << r.body;
        return json_of(r);
    }
};

TEST_F(SchemaRoutesTest, JsonSchemaValuesAreDecoded) {
    const int32_t id = register_schema(
        "orders-value", R"({"type":"object","properties":{"a":{"type":"integer"}}})", "JSON");
    auto p = produce_and_read("orders", {wire(id) + R"({"a": 1, "b": "<i>x</i>"})",
                                         wire(id) + "not json at all", wire(id)});
    const auto& schema = p["records"][0]["value"]["schema"];
    EXPECT_EQ(schema["id"], id);
    EXPECT_EQ(schema["type"], "JSON");
    EXPECT_EQ(schema["subject"], "orders-value");
    EXPECT_EQ(schema["decoded"], nlohmann::json::parse(R"({"a": 1, "b": "<i>x</i>"})"));
    EXPECT_TRUE(p["records"][1]["value"]["schema"].contains("schema_error"));
    EXPECT_FALSE(p["records"][1]["value"]["schema"].contains("decoded"));
    EXPECT_TRUE(p["records"][2]["value"]["schema"].contains("schema_error"));
}

TEST_F(SchemaRoutesTest, AvroValuesAndKeysAreDecoded) {
    const int32_t id = register_schema("users-value", kUserSchema);
    const int32_t key_id = register_schema("users-key", R"("string")");
    const std::string datum = avro_string("ann <script>") + avro_long(42) + avro_long(2) +
                              avro_string("x") + avro_string("y") + avro_long(0) + avro_long(0) +
                              avro_long(1) + std::string("\0\0\0\0\0\0\xf8\x3f", 8) +
                              avro_long(-1) + std::string("\x02", 1) + avro_string("m") +
                              avro_long(-7) + avro_long(0) + std::string("\x01");
    auto p = produce_and_read("users", {wire(id) + datum}, wire(key_id) + avro_string("k1"));
    const auto& schema = p["records"][0]["value"]["schema"];
    ASSERT_TRUE(schema.contains("decoded")) << schema.dump();
    EXPECT_EQ(schema["type"], "AVRO");
    EXPECT_EQ(schema["subject"], "users-value");
    EXPECT_EQ(schema["decoded"], nlohmann::json::parse(R"({"name": "ann <script>", "age": 42,
        "tags": ["x", "y"], "kind": "A", "score": 1.5, "attrs": {"m": -7}, "ok": true})"));
    EXPECT_EQ(p["records"][0]["key"]["schema"]["decoded"], "k1");
    EXPECT_EQ(p["records"][0]["key"]["schema"]["subject"], "users-key");
}

TEST_F(SchemaRoutesTest, HostileAvroBytesAreSchemaErrorsNotCrashes) {
    const int32_t id = register_schema("h-value", kUserSchema);
    const std::string name = avro_string("n");
    const std::vector<std::optional<std::string>> values = {
        wire(id),                                                      // nothing after the id
        wire(id) + std::string("\xff\xff\xff", 3),                     // a varint cut short
        wire(id) + std::string(12, '\xff'),                            // a varint past 10 bytes
        wire(id) + avro_long(int64_t{1} << 60) + "abc",                // a huge string length
        wire(id) + avro_long(-5),                                      // a negative length
        wire(id) + name + avro_long(1) + avro_long(int64_t{1} << 40),  // a huge array block
        wire(id) + name + avro_long(1) + avro_long(0) + avro_long(9),  // an enum out of range
        wire(id) + name + avro_long(1) + avro_long(0) + avro_long(0) + avro_long(5),  // union
        wire(id) + name + avro_long(1) + avro_long(0) + avro_long(0) + avro_long(0) + avro_long(0) +
            std::string("\x07trailing"),  // a bad boolean
        wire(id + 1000) + "unknown id",   // no such schema
    };
    auto p = produce_and_read("h", values);
    ASSERT_EQ(p["records"].size(), values.size());
    for (size_t i = 0; i + 1 < values.size(); ++i) {
        const auto& v = p["records"][i]["value"];
        EXPECT_TRUE(v["schema"].contains("schema_error")) << i << ": " << v.dump();
        EXPECT_FALSE(v["schema"].contains("decoded")) << i;
    }
    EXPECT_FALSE(p["records"][values.size() - 1]["value"].contains("schema"));
}

TEST_F(SchemaRoutesTest, AvroReaderBoundsValuesAndDepth) {
    auto tree = schema_registry::avro::read_schema(R"({"type":"array","items":"null"})", {});
    ASSERT_TRUE(tree.tree) << tree.error;
    // A million nulls cost no bytes: refused by the value budget, not read.
    const std::string many = avro_long(2000000) + avro_long(0);
    auto read = console::read_avro_datum(*tree.tree->root, std::as_bytes(std::span(many)));
    EXPECT_FALSE(read);
    const std::string few = avro_long(3) + avro_long(0);
    read = console::read_avro_datum(*tree.tree->root, std::as_bytes(std::span(few)));
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(*read, nlohmann::json::parse("[null, null, null]"));
    auto list = schema_registry::avro::read_schema(
        R"({"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]})", {});
    ASSERT_TRUE(list.tree) << list.error;
    std::string deep;
    for (int i = 0; i < 1000; ++i)
        deep += avro_long(1);
    deep += avro_long(0);
    read = console::read_avro_datum(*list.tree->root, std::as_bytes(std::span(deep)));
    EXPECT_FALSE(read);
    EXPECT_NE(read.error().find("deeper"), std::string::npos) << read.error();
}

TEST_F(SchemaRoutesTest, ProtobufValuesAreDecoded) {
    const int32_t id = register_schema("p-value",
                                       "syntax = \"proto3\";\npackage acme;\n"
                                       "message Outer { string name = 1; int32 count = 2;\n"
                                       "  message Inner { bool flag = 1; } }\n"
                                       "message Second { repeated string items = 1; }\n",
                                       "PROTOBUF");
    const std::string outer = std::string(
        "\x0a\x03"
        "abc"
        "\x10\x05",
        7);
    auto p = produce_and_read(
        "p", {wire(id) + std::string("\x00", 1) + outer,                               // [0]: Outer
              wire(id) + std::string("\x02\x02", 2) + std::string("\x0a\x01x", 3),     // [1]
              wire(id) + std::string("\x04\x00\x00", 3) + std::string("\x08\x01", 2),  // [0,0]
              wire(id) + std::string("\x02\x0e", 2) + outer,  // [7]: no such type
              wire(id) + std::string("\x00", 1) + std::string("\x0a\xff\x01", 3)});  // cut short
    EXPECT_EQ(p["records"][0]["value"]["schema"]["decoded"],
              nlohmann::json::parse(R"({"name": "abc", "count": 5})"))
        << p["records"][0].dump();
    EXPECT_EQ(p["records"][1]["value"]["schema"]["decoded"],
              nlohmann::json::parse(R"({"items": ["x"]})"));
    EXPECT_EQ(p["records"][2]["value"]["schema"]["decoded"],
              nlohmann::json::parse(R"({"flag": true})"));
    EXPECT_TRUE(p["records"][3]["value"]["schema"].contains("schema_error"));
    EXPECT_TRUE(p["records"][4]["value"]["schema"].contains("schema_error"));
}

TEST_F(SchemaRoutesTest, TheRegistryIsReadThrough) {
    register_schema("a b/value", R"("string")");
    auto r = get("/api/schema-registry/subjects");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r), nlohmann::json::parse(R"(["a b/value"])"));
    r = get("/api/schema-registry/subjects/a%20b%2Fvalue/versions");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r), nlohmann::json::parse("[1]"));
    r = get("/api/schema-registry/subjects/a%20b%2Fvalue/versions/latest");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r)["schema"], "\"string\"");
    r = get("/api/schema-registry/schemas/ids/1");
    EXPECT_EQ(r.status, 200) << r.body;
    r = get("/api/schema-registry/config");
    EXPECT_EQ(r.status, 200) << r.body;
    r = get("/api/schema-registry/subjects/nope/versions");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(json_of(r)["error_code"], 40401);
    // GET only: the registry's writes are not reachable through the console.
    r = request("POST", "/api/schema-registry/subjects/x/versions", R"({"schema":"\"int\""})");
    EXPECT_EQ(r.status, 405);
    r = request("DELETE", "/api/schema-registry/subjects/a%20b%2Fvalue");
    EXPECT_NE(r.status, 200);
    EXPECT_EQ(json_of(get("/api/schema-registry/subjects")).size(), 1u);
}

TEST_F(SchemaRoutesTest, DiffsTwoVersionsLineByLine) {
    register_schema("d-value",
                    R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})");
    register_schema("d-value", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},)"
                               R"({"name":"b","type":"string","default":""}]})");
    auto r = get("/api/schema-registry/subjects/d-value/diff?from=1&to=2");
    ASSERT_EQ(r.status, 200) << r.body;
    auto diff = json_of(r);
    EXPECT_EQ(diff["subject"], "d-value");
    EXPECT_EQ(diff["from"], 1);
    EXPECT_EQ(diff["to"], 2);
    std::string added;
    size_t unchanged = 0;
    for (const auto& line : diff["lines"]) {
        if (line["op"] == "+")
            added += line["text"].get<std::string>() + "\n";
        if (line["op"] == " ")
            ++unchanged;
    }
    EXPECT_NE(added.find("\"b\""), std::string::npos) << r.body;
    EXPECT_GT(unchanged, 3u);
    EXPECT_EQ(diff["lines"][0]["text"], "{");  // pretty-printed, not one line
    r = get("/api/schema-registry/subjects/d-value/diff?from=2&to=latest");
    ASSERT_EQ(r.status, 200);
    const auto same = json_of(r);  // kept: a range-for over a temporary's member dangles
    for (const auto& line : same["lines"])
        EXPECT_EQ(line["op"], " ");
    EXPECT_EQ(get("/api/schema-registry/subjects/d-value/diff?from=x&to=2").status, 400);
    EXPECT_EQ(get("/api/schema-registry/subjects/d-value/diff?to=2").status, 400);
    EXPECT_EQ(get("/api/schema-registry/subjects/d-value/diff?from=1&to=9").status, 404);
    EXPECT_EQ(get("/api/schema-registry/subjects/none/diff?from=1&to=2").status, 404);
}

TEST(LineDiff, IsTheLongestCommonSubsequence) {
    using console::split_lines;
    auto d = console::line_diff(split_lines("a\nb\nc\n"), split_lines("a\nx\nc\nd"));
    std::string ops;
    for (const auto& l : d)
        ops += std::string(1, l.op) + l.text + ",";
    EXPECT_EQ(ops, " a,-b,+x, c,+d,");
    EXPECT_TRUE(console::line_diff({}, {}).empty());
}

// With ACLs on, a value is decoded only when the caller may read a subject holding its schema
// id, as the registry's own listener decides for GET /schemas/ids/{id}.
class SchemaRoutesAclTest : public SchemaRoutesTest {
  protected:
    SchemaRoutesAclTest() {
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        config.super_users = "User:admin";
    }
    void allow_read(const std::string& topic) {
        auto error = broker().authorizer()->acls().add(
            {{security::ResourceType::topic, topic, security::PatternType::literal,
              "User:ANONYMOUS", "*", security::AclOperation::read,
              security::AclPermission::allow}});
        ASSERT_FALSE(error);
    }
};

TEST_F(SchemaRoutesAclTest, DecodesOnlyWhatTheCallerMayReadInTheRegistry) {
    // A subject of its own name (RecordNameStrategy): its ACLs are those of a topic of that name.
    const int32_t id = register_schema("com.acme.Reading", R"({"type":"object"})", "JSON");
    create_topic("readings");
    allow_read("readings");
    Session admin;
    admin.principal = "User:admin";
    admin.host = "127.0.0.1";
    session = &admin;
    const std::string value = wire(id) + R"({"v": 1})";
    auto batch = protocol::build_record_batch({}, {{std::nullopt, value, {}, 0}});
    protocol::ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 1000;
    req.topic_data.push_back({"readings", {}, {{0, std::span<const std::byte>(batch)}}});
    ASSERT_EQ(run(handle_produce, req, 9).responses.at(0).partition_responses.at(0).error_code,
              ErrorCode::none);
    session = nullptr;
    auto page = json_of(get("/api/topics/readings/partitions/0/records"));
    ASSERT_EQ(page["records"].size(), 1u) << page.dump();
    EXPECT_FALSE(page["records"][0]["value"].contains("schema")) << page.dump();
    EXPECT_EQ(get("/api/schema-registry/subjects/com.acme.Reading/versions").status, 403);
    allow_read("com.acme.Reading");
    page = json_of(get("/api/topics/readings/partitions/0/records"));
    EXPECT_EQ(page["records"][0]["value"]["schema"]["decoded"], nlohmann::json::parse(R"({"v":1})"))
        << page.dump();
}

class RegistryOffTest : public ConsoleTest {};

TEST_F(RegistryOffTest, SaysTheRegistryIsOffAndShowsBytesUndecoded) {
    auto r = get("/api/schema-registry/subjects");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(json_of(r)["message"], "the schema registry is off");
    EXPECT_EQ(get("/api/schema-registry/subjects/s/diff?from=1&to=2").status, 404);
    create_topic("t");
    auto response =
        request("POST", "/api/topics/t/records", nlohmann::json{{"value", wire(1) + "{}"}}.dump());
    ASSERT_EQ(response.status, 200) << response.body;
    auto page = json_of(get("/api/topics/t/partitions/0/records"));
    ASSERT_EQ(page["records"].size(), 1u);
    EXPECT_FALSE(page["records"][0]["value"].contains("schema"));
    EXPECT_EQ(page["records"][0]["value"]["hex"], "00000000017b7d");
}

}  // namespace
}  // namespace skiff::broker::test
