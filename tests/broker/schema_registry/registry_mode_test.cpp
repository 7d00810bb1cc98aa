// Modes: READONLY refuses writes, IMPORT takes the caller's ids and versions and only where
// nothing can clash, and the /mode routes that set them.
#include <gtest/gtest.h>

#include "tests/broker/schema_registry/registry_test_support.h"

namespace skiff::schema_registry::testing {
namespace {

using nlohmann::json;

TEST(RegistryMode, ReadOnlyRefusesWritesButNotModeChanges) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    EXPECT_EQ(c.get("/mode").body, R"({"mode":"READWRITE"})");
    EXPECT_EQ(c.put("/mode", {{"mode", "READONLY"}}).body, R"({"mode":"READONLY"})");
    const size_t records = c.log.size();
    Answer a = c.post("/subjects/s/versions", {{"schema", fields_schema({"a", "b?"})}});
    EXPECT_EQ(a.status, 422);
    EXPECT_EQ(a.error_code(), 42205);
    EXPECT_EQ(a.json["message"], "Subject s is in read-only mode");
    EXPECT_EQ(c.put("/config/s", {{"compatibility", "NONE"}}).error_code(), 42205);
    EXPECT_EQ(c.put("/config", {{"compatibility", "NONE"}}).error_code(), 42205);
    EXPECT_EQ(c.del("/config").error_code(), 42205);
    EXPECT_EQ(c.log.size(), records);
    // Reads still work, and the mode can be changed back.
    EXPECT_EQ(c.post("/subjects/s", {{"schema", fields_schema({"a"})}}).status, 200);
    EXPECT_EQ(c.put("/mode", {{"mode", "readwrite"}}).body, R"({"mode":"readwrite"})");
    EXPECT_EQ(c.register_schema("s", fields_schema({"a", "b?"})), 2);
}

TEST(RegistryMode, ASubjectsModeOverridesTheRegistrys) {
    RegistryClient c;
    EXPECT_EQ(c.put("/mode/s", {{"mode", "READONLY"}}).status, 200);
    EXPECT_EQ(c.post("/subjects/s/versions", {{"schema", fields_schema({"a"})}}).error_code(),
              42205);
    EXPECT_EQ(c.register_schema("t", fields_schema({"a"})), 1);
    EXPECT_EQ(c.get("/mode/s").body, R"({"mode":"READONLY"})");
    Answer none = c.get("/mode/t");
    EXPECT_EQ(none.error_code(), 40409);
    EXPECT_EQ(none.json["message"], "Subject 't' does not have subject-level mode configured");
    EXPECT_EQ(c.get("/mode/t?defaultToGlobal=true").body, R"({"mode":"READWRITE"})");
    EXPECT_EQ(c.del("/mode/s").body, R"({"mode":"READONLY"})");
    EXPECT_EQ(c.del("/mode/s").error_code(), 40401);
    EXPECT_EQ(c.register_schema("s", fields_schema({"a"})), 1);
    // A PUT without a mode removes the one set there, as Confluent does.
    ASSERT_EQ(c.put("/mode/s", {{"mode", "READONLY"}}).status, 200);
    EXPECT_EQ(c.put("/mode/s", json::object()).body, "{}");
    EXPECT_EQ(c.get("/mode/s").error_code(), 40409);
    EXPECT_EQ(c.del("/mode").body, R"({"mode":"READWRITE"})");
}

TEST(RegistryMode, AnInvalidModeIsRefused) {
    RegistryClient c;
    for (const char* mode : {"FORWARD", "READONLY_OVERRIDE", "sideways", ""}) {
        Answer a = c.put("/mode", {{"mode", mode}});
        EXPECT_EQ(a.status, 422) << mode;
        EXPECT_EQ(a.error_code(), 42204);
    }
    EXPECT_EQ(c.put("/mode", {{"mode", 1}}).error_code(), 422);
    EXPECT_EQ(c.put("/mode/__GLOBAL", {{"mode", "IMPORT"}}).error_code(), 42208);
    EXPECT_EQ(c.log.size(), 0u);
}

TEST(RegistryMode, ImportNeedsAnEmptyRegistryUnlessForced) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    Answer refused = c.put("/mode", {{"mode", "IMPORT"}});
    EXPECT_EQ(refused.error_code(), 42205);
    EXPECT_EQ(refused.json["message"], "Cannot import since found existing subjects");
    EXPECT_EQ(c.put("/mode/s", {{"mode", "IMPORT"}}).error_code(), 42205);
    // Another subject is no obstacle to importing into this one.
    EXPECT_EQ(c.put("/mode/t", {{"mode", "IMPORT"}}).status, 200);
    EXPECT_EQ(c.put("/mode?force=true", {{"mode", "IMPORT"}}).status, 200);
    EXPECT_EQ(c.get("/mode").json["mode"], "IMPORT");
}

TEST(RegistryMode, ImportRemovesSoftDeletedVersionsFirst) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    ASSERT_EQ(c.del("/subjects/s").status, 200);
    ASSERT_EQ(c.put("/mode", {{"mode", "IMPORT"}}).status, 200);
    EXPECT_EQ(c.get("/subjects?deleted=true").json, json::array());
    const auto records = c.log.records();
    ASSERT_EQ(records.size(), 5u);
    EXPECT_FALSE(records[2].value.has_value());  // version 1 hard-deleted
    EXPECT_EQ(records[3].key, R"({"keytype":"CLEAR_SUBJECT","magic":0})");
    EXPECT_EQ(records[3].value, "{}");
    EXPECT_EQ(records[4].key, R"({"keytype":"MODE","magic":0})");
    EXPECT_EQ(records[4].value, R"({"mode":"IMPORT"})");
}

TEST(RegistryMode, ImportTakesTheCallersIdsAndVersions) {
    RegistryClient c;
    ASSERT_EQ(c.put("/mode", {{"mode", "IMPORT"}}).status, 200);
    Answer a = c.post("/subjects/s/versions",
                      {{"schema", fields_schema({"a"})}, {"id", 7}, {"version", 3}});
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.body, R"({"id":7})");
    EXPECT_EQ(c.get("/subjects/s/versions/3").json["id"], 7);
    // No compatibility check in IMPORT mode.
    EXPECT_EQ(c.post("/subjects/s/versions", {{"schema", fields_schema({"z"})}, {"id", 9}}).status,
              200);
    EXPECT_EQ(c.get("/subjects/s/versions").json, json::parse("[3,4]"));
    // The same schema under its id elsewhere is fine; another schema under it is not.
    EXPECT_EQ(c.post("/subjects/t/versions", {{"schema", fields_schema({"a"})}, {"id", 7}}).status,
              200);
    Answer clash = c.post("/subjects/u/versions", {{"schema", fields_schema({"q"})}, {"id", 7}});
    EXPECT_EQ(clash.error_code(), 42205);
    EXPECT_EQ(clash.json["message"], "Overwrite new schema with id 7 is not permitted.");
    // Without an id, IMPORT mode refuses.
    Answer no_id = c.post("/subjects/s/versions", {{"schema", fields_schema({"w"})}});
    EXPECT_EQ(no_id.error_code(), 42205);
    EXPECT_EQ(no_id.json["message"], "Subject s is not in read-write mode");

    // Back to READWRITE: new ids continue above the highest imported.
    ASSERT_EQ(c.put("/mode", {{"mode", "READWRITE"}}).status, 200);
    EXPECT_EQ(c.register_schema("n", fields_schema({"n"})), 10);
    Answer with_id = c.post("/subjects/n/versions", {{"schema", fields_schema({"m"})}, {"id", 50}});
    EXPECT_EQ(with_id.error_code(), 42205);
    EXPECT_EQ(with_id.json["message"], "Subject n is not in import mode");
}

TEST(RegistryMode, AVersionOutsideImportMustBeTheNextOne) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    Answer wrong =
        c.post("/subjects/s/versions", {{"schema", fields_schema({"a", "b?"})}, {"version", 5}});
    EXPECT_EQ(wrong.error_code(), 42201);
    EXPECT_EQ(wrong.json["message"], "Version is not one more than previous version");
    EXPECT_EQ(
        c.post("/subjects/s/versions", {{"schema", fields_schema({"a", "b?"})}, {"version", 2}})
            .status,
        200);
}

}  // namespace
}  // namespace skiff::schema_registry::testing
