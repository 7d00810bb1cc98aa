// Compatibility levels at registration and in /compatibility, and the /config routes that set
// them. The test type's rule: a reader needs every field it has without a default in the writer.
#include <gtest/gtest.h>

#include "tests/broker/schema_registry/registry_test_support.h"

namespace skiff::schema_registry::testing {
namespace {

using nlohmann::json;

// Registers `schema` under "s" at the given level; the HTTP status.
int try_register(RegistryClient& c, const std::string& schema) {
    return c.post("/subjects/s/versions", {{"schema", schema}}).status;
}

void set_level(RegistryClient& c, const std::string& level) {
    ASSERT_EQ(c.put("/config/s", {{"compatibility", level}}).status, 200);
}

TEST(RegistryCompatibility, AnIncompatibleSchemaIsRefusedWithConfluentsReasons) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    const size_t records = c.log.size();
    Answer a = c.post("/subjects/s/versions", {{"schema", fields_schema({"a", "b"})}});
    EXPECT_EQ(a.status, 409);
    EXPECT_EQ(a.error_code(), 409);
    EXPECT_EQ(a.json["message"],
              "Schema being registered is incompatible with an earlier schema for subject \"s\", "
              "details: [{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field "
              "'b' has no default value', additionalInfo:'b'}, {oldSchemaVersion: 1}, {oldSchema: "
              "'{\"fields\":[\"a\"]}'}, {compatibility: 'BACKWARD'}]");
    EXPECT_EQ(c.log.size(), records);
}

TEST(RegistryCompatibility, BackwardForwardFullAndNoneAgainstTheLatest) {
    // {a} then {b?}: the new one reads the old (b has a default), the old cannot read the new.
    for (auto [level, accepted] : std::vector<std::pair<std::string, bool>>{
             {"BACKWARD", true}, {"FORWARD", false}, {"FULL", false}, {"NONE", true}}) {
        RegistryClient c;
        c.register_schema("s", fields_schema({"a"}));
        set_level(c, level);
        EXPECT_EQ(try_register(c, fields_schema({"b?"})), accepted ? 200 : 409) << level;
    }
    // {a, b} then {a}: the new reads the old; the old needs b, which the new lacks.
    for (auto [level, accepted] : std::vector<std::pair<std::string, bool>>{
             {"BACKWARD", true}, {"FORWARD", false}, {"FULL", false}, {"NONE", true}}) {
        RegistryClient c;
        c.register_schema("s", fields_schema({"a", "b"}));
        set_level(c, level);
        EXPECT_EQ(try_register(c, fields_schema({"a"})), accepted ? 200 : 409) << level;
    }
    // {a} then {a, c}: the old reads the new, the new cannot read the old.
    for (auto [level, accepted] : std::vector<std::pair<std::string, bool>>{
             {"BACKWARD", false}, {"FORWARD", true}, {"FULL", false}, {"NONE", true}}) {
        RegistryClient c;
        c.register_schema("s", fields_schema({"a"}));
        set_level(c, level);
        EXPECT_EQ(try_register(c, fields_schema({"a", "c"})), accepted ? 200 : 409) << level;
    }
}

TEST(RegistryCompatibility, TransitiveLevelsCheckEveryLiveVersion) {
    // {x}, {x, y?}, then {x, y}: readable from version 2 (it has y), not from version 1.
    for (auto [level, accepted] : std::vector<std::pair<std::string, bool>>{
             {"BACKWARD", true}, {"BACKWARD_TRANSITIVE", false}}) {
        RegistryClient c;
        c.register_schema("s", fields_schema({"x"}));
        c.register_schema("s", fields_schema({"x", "y?"}));
        set_level(c, level);
        Answer a = c.post("/subjects/s/versions", {{"schema", fields_schema({"x", "y"})}});
        EXPECT_EQ(a.status, accepted ? 200 : 409) << level;
        if (!accepted) {
            EXPECT_NE(a.json["message"].get<std::string>().find("{oldSchemaVersion: 1}"),
                      std::string::npos);
            EXPECT_NE(
                a.json["message"].get<std::string>().find("{compatibility: 'BACKWARD_TRANSITIVE'}"),
                std::string::npos);
        }
    }
    // {p, q}, {p, q?}, then {p}: version 2 reads it (q has a default), version 1 does not.
    for (auto [level, accepted] :
         std::vector<std::pair<std::string, bool>>{{"FORWARD", true},
                                                   {"FORWARD_TRANSITIVE", false},
                                                   {"FULL", true},
                                                   {"FULL_TRANSITIVE", false}}) {
        RegistryClient c;
        c.register_schema("s", fields_schema({"p", "q"}));
        set_level(c, "NONE");
        c.register_schema("s", fields_schema({"p", "q?"}));
        set_level(c, level);
        EXPECT_EQ(try_register(c, fields_schema({"p"})), accepted ? 200 : 409) << level;
    }
}

TEST(RegistryCompatibility, SoftDeletedVersionsDoNotCount) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"x"}));
    c.register_schema("s", fields_schema({"x", "y?"}));
    set_level(c, "BACKWARD_TRANSITIVE");
    EXPECT_EQ(try_register(c, fields_schema({"x", "y"})), 409);
    ASSERT_EQ(c.del("/subjects/s/versions/1").status, 200);
    EXPECT_EQ(try_register(c, fields_schema({"x", "y"})), 200);
}

TEST(RegistryCompatibility, ADifferentSchemaTypeIsIncompatible) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    Answer a =
        c.post("/subjects/s/versions", {{"schema", fields_schema({"a"})}, {"schemaType", "JSON"}});
    EXPECT_EQ(a.status, 409);
    EXPECT_NE(a.json["message"].get<std::string>().find(
                  "[Incompatible because of different schema type, {compatibility: 'BACKWARD'}]"),
              std::string::npos);
}

TEST(RegistryCompatibility, CheckingAgainstAVersionAnswersWithoutWriting) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    const size_t records = c.log.size();
    const json candidate = {{"schema", fields_schema({"a", "b"})}};
    // Against version 2 it is fine (b is there); against version 1 it is not.
    EXPECT_EQ(c.post("/compatibility/subjects/s/versions/latest", candidate).body,
              R"({"is_compatible":true})");
    EXPECT_EQ(c.post("/compatibility/subjects/s/versions/1", candidate).body,
              R"({"is_compatible":false})");
    Answer verbose = c.post("/compatibility/subjects/s/versions/1?verbose=true", candidate);
    EXPECT_EQ(verbose.json["is_compatible"], false);
    EXPECT_EQ(verbose.json["messages"], json::parse(R"([
                "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' has no default value', additionalInfo:'b'}",
                "{oldSchemaVersion: 1}",
                "{oldSchema: '{\"fields\":[\"a\"]}'}",
                "{compatibility: 'BACKWARD'}"])"));
    EXPECT_EQ(c.post("/compatibility/subjects/s/versions/2?verbose=true", candidate).body,
              R"({"is_compatible":true,"messages":[]})");
    EXPECT_EQ(c.log.size(), records);
}

TEST(RegistryCompatibility, CheckingAgainstAllVersionsFollowsTheLevel) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    const json candidate = {{"schema", fields_schema({"a", "b"})}};
    EXPECT_EQ(c.post("/compatibility/subjects/s/versions", candidate).json["is_compatible"], true);
    set_level(c, "BACKWARD_TRANSITIVE");
    EXPECT_EQ(c.post("/compatibility/subjects/s/versions", candidate).json["is_compatible"], false);
}

TEST(RegistryCompatibility, CheckingFollowsConfluentsErrors) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    const json candidate = {{"schema", fields_schema({"a"})}};
    EXPECT_EQ(c.post("/compatibility/subjects/s/versions/7", candidate).error_code(), 40402);
    EXPECT_EQ(c.post("/compatibility/subjects/s/versions/0", candidate).error_code(), 42202);
    // No subject and "latest": nothing to be incompatible with.
    EXPECT_EQ(
        c.post("/compatibility/subjects/new/versions/latest", candidate).json["is_compatible"],
        true);
    const json invalid = {{"schema", "nope"}};
    EXPECT_EQ(c.post("/compatibility/subjects/s/versions/1", invalid).error_code(), 42201);
    Answer verbose = c.post("/compatibility/subjects/s/versions/1?verbose=true", invalid);
    EXPECT_EQ(verbose.status, 200);
    EXPECT_EQ(verbose.json["is_compatible"], false);
    EXPECT_EQ(verbose.json["messages"][0],
              "Invalid schema of type AVRO, details: not a test schema: nope");
}

TEST(RegistryCompatibility, TheGlobalLevelAppliesUntilASubjectHasItsOwn) {
    RegistryClient c;
    EXPECT_EQ(c.get("/config").body, R"({"compatibilityLevel":"BACKWARD"})");
    Answer put = c.put("/config", {{"compatibility", "full"}});
    EXPECT_EQ(put.body, R"({"compatibility":"FULL"})");
    EXPECT_EQ(c.get("/config").body, R"({"compatibilityLevel":"FULL"})");

    Answer none = c.get("/config/s");
    EXPECT_EQ(none.error_code(), 40408);
    EXPECT_EQ(none.json["message"],
              "Subject 's' does not have subject-level compatibility configured");
    EXPECT_EQ(c.get("/config/s?defaultToGlobal=true").json["compatibilityLevel"], "FULL");
    EXPECT_EQ(c.put("/config/s", {{"compatibilityLevel", "NONE"}}).body,
              R"({"compatibility":"NONE"})");
    EXPECT_EQ(c.get("/config/s").json["compatibilityLevel"], "NONE");

    EXPECT_EQ(c.del("/config/s").body, R"({"compatibilityLevel":"NONE"})");
    EXPECT_EQ(c.del("/config/s").error_code(), 40401);
    EXPECT_EQ(c.del("/config").body, R"({"compatibilityLevel":"FULL"})");
    EXPECT_EQ(c.get("/config").json["compatibilityLevel"], "BACKWARD");

    const auto records = c.log.records();
    ASSERT_EQ(records.size(), 4u);
    EXPECT_EQ(records[0].key, R"({"keytype":"CONFIG","magic":0})");
    EXPECT_EQ(records[0].value, R"({"compatibilityLevel":"FULL"})");
    EXPECT_EQ(records[1].key, R"({"keytype":"CONFIG","subject":"s","magic":0})");
    EXPECT_EQ(records[1].value, R"({"subject":"s","compatibilityLevel":"NONE"})");
    EXPECT_FALSE(records[2].value.has_value());
    EXPECT_FALSE(records[3].value.has_value());
}

TEST(RegistryCompatibility, AnInvalidLevelIsRefused) {
    RegistryClient c;
    for (const json& body : {json{{"compatibility", "SIDEWAYS"}}, json::object()}) {
        Answer a = c.put("/config", body);
        EXPECT_EQ(a.status, 422);
        EXPECT_EQ(a.error_code(), 42203);
        EXPECT_EQ(a.json["message"],
                  "Invalid compatibility level. Valid values are none, backward, forward, full, "
                  "backward_transitive, forward_transitive, and full_transitive");
    }
    EXPECT_EQ(c.put("/config/s", {{"compatibility", 3}}).error_code(), 422);
    EXPECT_EQ(c.put("/config/%00", {{"compatibility", "FULL"}}).error_code(), 42208);
    EXPECT_EQ(c.log.size(), 0u);
}

}  // namespace
}  // namespace skiff::schema_registry::testing
