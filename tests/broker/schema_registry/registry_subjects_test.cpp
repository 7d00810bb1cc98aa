// Registration, reading back and lookup: POST/GET /subjects/{s}/versions, GET /subjects,
// POST /subjects/{s}, and how ids are shared and numbered.
#include <gtest/gtest.h>

#include "tests/broker/schema_registry/registry_test_support.h"

namespace skiff::schema_registry::testing {
namespace {

using nlohmann::json;

TEST(RegistrySubjects, RegisteringAnswersTheIdAndTheVersionReadsBack) {
    RegistryClient c;
    const std::string schema = fields_schema({"a"});
    Answer a = c.post("/subjects/orders-value/versions", {{"schema", schema}});
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.body, R"({"id":1})");

    Answer v = c.get("/subjects/orders-value/versions/1");
    ASSERT_EQ(v.status, 200);
    // Confluent's field order, schemaType left out for AVRO, no references.
    EXPECT_EQ(v.body,
              R"({"subject":"orders-value","version":1,"id":1,"schema":"{\"fields\":[\"a\"]}"})");
    EXPECT_EQ(c.get("/subjects/orders-value/versions/latest").body, v.body);
    EXPECT_EQ(c.get("/subjects/orders-value/versions/-1").body, v.body);
    EXPECT_EQ(c.get("/subjects/orders-value/versions").json, json::parse("[1]"));
    EXPECT_EQ(c.get("/subjects").json, json::parse(R"(["orders-value"])"));
    // The raw schema, not a JSON string.
    Answer raw = c.get("/subjects/orders-value/versions/1/schema");
    EXPECT_EQ(raw.status, 200);
    EXPECT_EQ(raw.body, R"({"fields":["a"]})");
}

TEST(RegistrySubjects, TheSameSchemaAgainInTheSubjectKeepsItsIdAndAddsNoVersion) {
    RegistryClient c;
    const int id = c.register_schema("s", fields_schema({"a"}));
    const size_t records = c.log.size();
    EXPECT_EQ(c.register_schema("s", fields_schema({"a"})), id);
    // The canonical text decides: the same schema written differently is the same schema.
    EXPECT_EQ(c.register_schema("s", R"({ "fields" : [ "a" ] })"), id);
    EXPECT_EQ(c.log.size(), records);
    EXPECT_EQ(c.get("/subjects/s/versions").json, json::parse("[1]"));
}

TEST(RegistrySubjects, TheSameSchemaUnderAnotherSubjectKeepsItsIdWithItsOwnVersion) {
    RegistryClient c;
    const int first = c.register_schema("a", fields_schema({"x"}));
    const int other = c.register_schema("a", fields_schema({"x", "y?"}));
    EXPECT_EQ(other, first + 1);
    EXPECT_EQ(c.register_schema("b", fields_schema({"x", "y?"})), other);
    Answer v = c.get("/subjects/b/versions/1");
    EXPECT_EQ(v.json["id"], other);
    EXPECT_EQ(v.json["version"], 1);
    EXPECT_EQ(c.get("/subjects").json, json::parse(R"(["a","b"])"));
}

TEST(RegistrySubjects, TypeAndReferencesAreShownForNonAvroSchemas) {
    RegistryClient c;
    c.register_schema("common", fields_schema({"c"}), {{"schemaType", "PROTOBUF"}});
    json refs = json::array({{{"name", "common.proto"}, {"subject", "common"}, {"version", 1}}});
    const int id = c.register_schema("s", fields_schema({"a"}, {"common.proto"}),
                                     {{"schemaType", "PROTOBUF"}, {"references", refs}});
    Answer v = c.get("/subjects/s/versions/1");
    EXPECT_EQ(v.body, "{\"subject\":\"s\",\"version\":1,\"id\":" + std::to_string(id) +
                          ",\"schemaType\":\"PROTOBUF\",\"references\":[{\"name\":\"common.proto\","
                          "\"subject\":\"common\",\"version\":1}],\"schema\":" +
                          json(fields_schema({"a"}, {"common.proto"})).dump() + "}");
}

TEST(RegistrySubjects, ReferencesToLatestAreStoredWithTheVersionFound) {
    RegistryClient c;
    c.register_schema("dep", fields_schema({"c"}));
    c.register_schema("dep", fields_schema({"c", "d?"}));
    json refs = json::array({{{"name", "dep"}, {"subject", "dep"}, {"version", -1}}});
    c.register_schema("s", fields_schema({"a"}, {"dep"}), {{"references", refs}});
    EXPECT_EQ(c.get("/subjects/s/versions/1").json["references"][0]["version"], 2);
}

TEST(RegistrySubjects, AnUnknownReferenceIsAnInvalidSchema) {
    RegistryClient c;
    json refs = json::array({{{"name", "dep"}, {"subject", "missing"}, {"version", 1}}});
    Answer a = c.post("/subjects/s/versions",
                      {{"schema", fields_schema({"a"}, {"dep"})}, {"references", refs}});
    EXPECT_EQ(a.status, 422);
    EXPECT_EQ(a.error_code(), 42201);
    EXPECT_NE(a.json["message"].get<std::string>().find("No schema reference found for subject "
                                                        "\"missing\" and version 1"),
              std::string::npos);
    EXPECT_EQ(c.log.size(), 0u);
}

TEST(RegistrySubjects, AnInvalidSchemaIsRefusedWithTheParsersMessage) {
    RegistryClient c;
    Answer a = c.post("/subjects/s/versions", {{"schema", "not json"}});
    EXPECT_EQ(a.status, 422);
    EXPECT_EQ(a.error_code(), 42201);
    EXPECT_EQ(a.json["message"],
              "Invalid schema of type AVRO, details: not a test schema: not json");
    Answer t =
        c.post("/subjects/s/versions", {{"schema", fields_schema({"a"})}, {"schemaType", "XML"}});
    EXPECT_EQ(t.error_code(), 42201);
    EXPECT_EQ(t.json["message"], "Invalid schema type XML");
    Answer e = c.post("/subjects/s/versions", json::object());
    EXPECT_EQ(e.error_code(), 42201);
    EXPECT_EQ(e.json["message"], "Empty schema");
    EXPECT_EQ(c.log.size(), 0u);
}

TEST(RegistrySubjects, AnEmptySchemaMeansTheLatestVersions) {
    RegistryClient c;
    const int id = c.register_schema("s", fields_schema({"a"}));
    Answer a = c.post("/subjects/s/versions", {{"schema", ""}});
    EXPECT_EQ(a.status, 200);
    EXPECT_EQ(a.json["id"], id);
}

TEST(RegistrySubjects, NormalizeRegistersTheNormalizedForm) {
    RegistryClient c;
    const int id = c.register_schema("s", fields_schema({"b?", "a"}));
    // Normalized, the same fields in another order are another text than the one stored...
    Answer n =
        c.post("/subjects/s/versions?normalize=true", {{"schema", fields_schema({"a", "b?"})}});
    EXPECT_EQ(n.status, 200);
    EXPECT_NE(n.json["id"], id);
    // ...and two orders normalize to one schema.
    Answer m =
        c.post("/subjects/s/versions?normalize=true", {{"schema", fields_schema({"b?", "a"})}});
    EXPECT_EQ(m.json["id"], n.json["id"]);
}

TEST(RegistrySubjects, LookupFindsTheVersionOfASchema) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    const int id = c.register_schema("s", fields_schema({"a", "b?"}));
    Answer a = c.post("/subjects/s", {{"schema", fields_schema({"a", "b?"})}});
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.body, "{\"subject\":\"s\",\"version\":2,\"id\":" + std::to_string(id) +
                          ",\"schema\":" + json(fields_schema({"a", "b?"})).dump() + "}");

    Answer missing = c.post("/subjects/s", {{"schema", fields_schema({"zzz?"})}});
    EXPECT_EQ(missing.status, 404);
    EXPECT_EQ(missing.error_code(), 40403);
    EXPECT_EQ(missing.json["message"], "Schema not found");
    Answer no_subject = c.post("/subjects/other", {{"schema", fields_schema({"a"})}});
    EXPECT_EQ(no_subject.error_code(), 40401);
    EXPECT_EQ(no_subject.json["message"], "Subject 'other' not found.");
    Answer bad = c.post("/subjects/s", {{"schema", "{"}});
    EXPECT_EQ(bad.error_code(), 42201);
}

TEST(RegistrySubjects, LookupOfASoftDeletedVersionNeedsDeleted) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    ASSERT_EQ(c.del("/subjects/s/versions/1").status, 200);
    EXPECT_EQ(c.post("/subjects/s", {{"schema", fields_schema({"a"})}}).error_code(), 40403);
    Answer a = c.post("/subjects/s?deleted=true", {{"schema", fields_schema({"a"})}});
    EXPECT_EQ(a.status, 200);
    EXPECT_EQ(a.json["version"], 1);
}

TEST(RegistrySubjects, ARepeatedLookupIsNotParsedAgain) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    const json body = {{"schema", fields_schema({"a"})}};
    ASSERT_EQ(c.post("/subjects/s", body).status, 200);
    const int parses = c.formats.parses();
    for (int i = 0; i < 50; ++i)
        ASSERT_EQ(c.post("/subjects/s", body).status, 200);
    EXPECT_EQ(c.formats.parses(), parses);
    // A level or a mode does not change what a schema resolves to...
    ASSERT_EQ(c.put("/config", {{"compatibility", "FULL"}}).status, 200);
    ASSERT_EQ(c.post("/subjects/s", body).status, 200);
    EXPECT_EQ(c.formats.parses(), parses);
    // ...a change to versions does, and starts the cache over.
    c.register_schema("t", fields_schema({"z"}));
    ASSERT_EQ(c.post("/subjects/s", body).status, 200);
    EXPECT_EQ(c.formats.parses(), parses + 2);  // t's registration, then the lookup again
}

TEST(RegistrySubjects, VersionsAndSubjectsListingsFilterDeleted) {
    RegistryClient c;
    c.register_schema("a", fields_schema({"x"}));
    c.register_schema("a", fields_schema({"x", "y?"}));
    c.register_schema("b", fields_schema({"x"}));
    ASSERT_EQ(c.del("/subjects/a/versions/1").status, 200);
    ASSERT_EQ(c.del("/subjects/b").status, 200);
    EXPECT_EQ(c.get("/subjects").json, json::parse(R"(["a"])"));
    EXPECT_EQ(c.get("/subjects?deleted=true").json, json::parse(R"(["a","b"])"));
    EXPECT_EQ(c.get("/subjects?deletedOnly=true").json, json::parse(R"(["b"])"));
    EXPECT_EQ(c.get("/subjects?subjectPrefix=b&deleted=true").json, json::parse(R"(["b"])"));
    EXPECT_EQ(c.get("/subjects/a/versions").json, json::parse("[2]"));
    EXPECT_EQ(c.get("/subjects/a/versions?deleted=true").json, json::parse("[1,2]"));
    EXPECT_EQ(c.get("/subjects/a/versions?deletedOnly=true").json, json::parse("[1]"));
    EXPECT_EQ(c.get("/subjects/b/versions").error_code(), 40401);
    EXPECT_EQ(c.get("/subjects/b/versions?deleted=true").json, json::parse("[1]"));
    EXPECT_EQ(c.get("/subjects?offset=1&limit=1&deleted=true").json, json::parse(R"(["b"])"));
    EXPECT_EQ(c.get("/subjects?offset=x").status, 404);
}

TEST(RegistrySubjects, GettingAVersionFollowsConfluentsErrors) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    EXPECT_EQ(c.get("/subjects/s/versions/2").error_code(), 40402);
    EXPECT_EQ(c.get("/subjects/s/versions/2").json["message"], "Version 2 not found.");
    EXPECT_EQ(c.get("/subjects/nope/versions/1").error_code(), 40401);
    ASSERT_EQ(c.del("/subjects/s/versions/1").status, 200);
    EXPECT_EQ(c.get("/subjects/s/versions/1").error_code(), 40401);  // no live version left
    EXPECT_EQ(c.get("/subjects/s/versions/1?deleted=true").status, 200);
    EXPECT_EQ(c.get("/subjects/s/versions/latest").error_code(), 40401);
}

TEST(RegistrySubjects, AFormatAskedForIsServedWhenTheTypeHasIt) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    EXPECT_EQ(c.get("/subjects/s/versions/1?format=serialized").json["schema"],
              "serialized:" + fields_schema({"a"}));
    EXPECT_EQ(c.get("/subjects/s/versions/1?format=other").json["schema"], fields_schema({"a"}));
}

}  // namespace
}  // namespace skiff::schema_registry::testing
