// Soft and hard deletes of versions and subjects, what references forbid, and what deletes do to
// version numbers and ids.
#include <gtest/gtest.h>

#include "tests/broker/schema_registry/registry_test_support.h"

namespace skiff::schema_registry::testing {
namespace {

using nlohmann::json;

TEST(RegistryDelete, AVersionIsSoftDeletedThenHardDeleted) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));

    Answer hard_first = c.del("/subjects/s/versions/1?permanent=true");
    EXPECT_EQ(hard_first.status, 404);
    EXPECT_EQ(hard_first.error_code(), 40407);
    EXPECT_EQ(hard_first.json["message"],
              "Subject 's' Version 1 was not deleted first before being permanently deleted");

    Answer soft = c.del("/subjects/s/versions/1");
    EXPECT_EQ(soft.status, 200);
    EXPECT_EQ(soft.body, "1");
    Answer again = c.del("/subjects/s/versions/1");
    EXPECT_EQ(again.error_code(), 40406);
    EXPECT_EQ(again.json["message"],
              "Subject 's' Version 1 was soft deleted.Set permanent=true to delete permanently");
    EXPECT_EQ(c.get("/subjects/s/versions/1?deleted=true").status, 200);

    EXPECT_EQ(c.del("/subjects/s/versions/1?permanent=true").body, "1");
    EXPECT_EQ(c.get("/subjects/s/versions/1?deleted=true").error_code(), 40402);
    EXPECT_EQ(c.del("/subjects/s/versions/1?permanent=true").error_code(), 40402);
    EXPECT_EQ(c.get("/subjects/s/versions?deleted=true").json, json::parse("[2]"));
}

TEST(RegistryDelete, LatestNamesTheNewestLiveVersion) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    EXPECT_EQ(c.del("/subjects/s/versions/latest").body, "2");
    EXPECT_EQ(c.del("/subjects/s/versions/latest").body, "1");
    EXPECT_EQ(c.del("/subjects/s/versions/latest").error_code(), 40402);
    EXPECT_EQ(c.del("/subjects/s/versions/abc").error_code(), 42202);
    EXPECT_EQ(c.del("/subjects/none/versions/1").error_code(), 40401);
}

TEST(RegistryDelete, ASubjectIsSoftDeletedThenHardDeleted) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));

    Answer hard_first = c.del("/subjects/s?permanent=true");
    EXPECT_EQ(hard_first.error_code(), 40405);
    EXPECT_EQ(hard_first.json["message"],
              "Subject 's' was not deleted first before being permanently deleted");
    EXPECT_EQ(c.del("/subjects/s").json, json::parse("[1,2]"));
    Answer again = c.del("/subjects/s");
    EXPECT_EQ(again.error_code(), 40404);
    EXPECT_EQ(again.json["message"],
              "Subject 's' was soft deleted.Set permanent=true to delete permanently");
    EXPECT_EQ(c.get("/subjects/s/versions?deleted=true").json, json::parse("[1,2]"));

    EXPECT_EQ(c.del("/subjects/s?permanent=true").json, json::parse("[1,2]"));
    EXPECT_EQ(c.get("/subjects/s/versions?deleted=true").error_code(), 40401);
    EXPECT_EQ(c.del("/subjects/s").error_code(), 40401);
    EXPECT_EQ(c.get("/subjects?deleted=true").json, json::array());
}

TEST(RegistryDelete, SoftDeletingASubjectWritesOneRecordUpToItsNewestVersion) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    ASSERT_EQ(c.del("/subjects/s").status, 200);
    const auto records = c.log.records();
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[2].key, R"({"keytype":"DELETE_SUBJECT","subject":"s","magic":0})");
    EXPECT_EQ(records[2].value, R"({"subject":"s","version":2})");
}

TEST(RegistryDelete, VersionNumbersContinueAfterSoftDeletesAndComeBackAfterHardOnes) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    ASSERT_EQ(c.del("/subjects/s/versions/2").status, 200);
    c.register_schema("s", fields_schema({"a", "c?"}));
    EXPECT_EQ(c.get("/subjects/s/versions/latest").json["version"], 3);

    // A hard delete removes the version, and Confluent numbers from what is stored.
    ASSERT_EQ(c.del("/subjects/s/versions/3").status, 200);
    ASSERT_EQ(c.del("/subjects/s/versions/3?permanent=true").status, 200);
    c.register_schema("s", fields_schema({"a", "d?"}));
    EXPECT_EQ(c.get("/subjects/s/versions/latest").json["version"], 3);

    ASSERT_EQ(c.del("/subjects/s").status, 200);
    ASSERT_EQ(c.del("/subjects/s?permanent=true").status, 200);
    c.register_schema("s", fields_schema({"z"}));
    EXPECT_EQ(c.get("/subjects/s/versions/latest").json["version"], 1);
}

TEST(RegistryDelete, IdsAreNeverHandedOutTwiceEvenAfterHardDeletes) {
    RegistryClient c;
    const int a = c.register_schema("s", fields_schema({"a"}));
    const int b = c.register_schema("s", fields_schema({"a", "b?"}));
    ASSERT_EQ(c.del("/subjects/s").status, 200);
    // Soft-deleted, a schema is still served by id (old data stays readable).
    EXPECT_EQ(c.get("/schemas/ids/" + std::to_string(b)).status, 200);
    ASSERT_EQ(c.del("/subjects/s?permanent=true").status, 200);
    EXPECT_EQ(c.get("/schemas/ids/" + std::to_string(b)).error_code(), 40403);

    const int next = c.register_schema("t", fields_schema({"q"}));
    EXPECT_EQ(next, b + 1);
    // The first schema, gone everywhere, comes back under a new id.
    const int again = c.register_schema("u", fields_schema({"a"}));
    EXPECT_NE(again, a);
    EXPECT_EQ(again, next + 1);
}

TEST(RegistryDelete, ReRegisteringASoftDeletedSchemaKeepsItsIdInANewVersion) {
    RegistryClient c;
    const int a = c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    ASSERT_EQ(c.del("/subjects/s/versions/1").status, 200);
    EXPECT_EQ(c.register_schema("s", fields_schema({"a"})), a);
    EXPECT_EQ(c.get("/subjects/s/versions/latest").json["version"], 3);
    // The soft-deleted version 1 holding the same id is hard-deleted, as Confluent does.
    EXPECT_EQ(c.get("/subjects/s/versions?deleted=true").json, json::parse("[2,3]"));
    EXPECT_EQ(c.log.records()[3].key,
              R"({"keytype":"SCHEMA","subject":"s","version":1,"magic":1})");
    EXPECT_FALSE(c.log.records()[3].value.has_value());
}

TEST(RegistryDelete, AReferencedVersionCannotBeDeletedUntilItsReferrerIs) {
    RegistryClient c;
    c.register_schema("dep", fields_schema({"d"}));
    json refs = json::array({{{"name", "dep"}, {"subject", "dep"}, {"version", 1}}});
    const int user = c.register_schema("s", fields_schema({"a"}, {"dep"}), {{"references", refs}});

    EXPECT_EQ(c.get("/subjects/dep/versions/1/referencedby").json, json::array({user}));
    EXPECT_EQ(c.get("/subjects/dep/versions/latest/referencedby").json, json::array({user}));
    const size_t records = c.log.size();
    Answer version = c.del("/subjects/dep/versions/1");
    EXPECT_EQ(version.status, 422);
    EXPECT_EQ(version.error_code(), 42206);
    EXPECT_EQ(version.json["message"],
              "One or more references exist to the schema "
              "{magic=1,keytype=SCHEMA,subject=dep,version=1}.");
    EXPECT_EQ(c.del("/subjects/dep").error_code(), 42206);
    EXPECT_EQ(c.log.size(), records);

    ASSERT_EQ(c.del("/subjects/s/versions/1").status, 200);
    EXPECT_EQ(c.get("/subjects/dep/versions/1/referencedby").json, json::array());
    EXPECT_EQ(c.del("/subjects/dep/versions/1").status, 200);
    EXPECT_EQ(c.get("/subjects/nope/versions/1/referencedby").error_code(), 40401);
}

TEST(RegistryDelete, AHardDeletedSubjectLosesItsLevelAndMode) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    ASSERT_EQ(c.put("/config/s", {{"compatibility", "FULL"}}).status, 200);
    ASSERT_EQ(c.put("/mode/s", {{"mode", "READWRITE"}}).status, 200);
    ASSERT_EQ(c.del("/subjects/s").status, 200);
    EXPECT_EQ(c.get("/config/s").json["compatibilityLevel"], "FULL");
    ASSERT_EQ(c.del("/subjects/s?permanent=true").status, 200);
    EXPECT_EQ(c.get("/config/s").error_code(), 40408);
    EXPECT_EQ(c.get("/mode/s").error_code(), 40409);
    const auto records = c.log.records();
    EXPECT_EQ(records[records.size() - 2].key, R"({"keytype":"MODE","subject":"s","magic":0})");
    EXPECT_EQ(records.back().key, R"({"keytype":"CONFIG","subject":"s","magic":0})");
    EXPECT_FALSE(records.back().value.has_value());
}

TEST(RegistryDelete, ReadOnlyRefusesDeletes) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    ASSERT_EQ(c.put("/mode/s", {{"mode", "READONLY"}}).status, 200);
    const size_t records = c.log.size();
    Answer version = c.del("/subjects/s/versions/1");
    EXPECT_EQ(version.error_code(), 42205);
    EXPECT_EQ(version.json["message"], "Subject s is in read-only mode");
    EXPECT_EQ(c.del("/subjects/s").error_code(), 42205);
    EXPECT_EQ(c.log.size(), records);
}

}  // namespace
}  // namespace skiff::schema_registry::testing
