// The _schemas records: what each change writes, that replaying them rebuilds the same registry,
// that records it cannot read are skipped and counted, and that a failed append changes nothing.
#include <gtest/gtest.h>

#include "tests/broker/schema_registry/registry_test_support.h"

namespace skiff::schema_registry::testing {
namespace {

using nlohmann::json;

// Every answer a client could read from the registry, as one text to compare.
std::string snapshot(Registry& registry) {
    std::string all;
    auto add = [&](const std::string& target) {
        Answer a = call_registry(registry, "GET", target);
        all += target + " -> " + std::to_string(a.status) + " " + a.body + "\n";
        return a;
    };
    Answer subjects = add("/subjects?deleted=true");
    add("/subjects");
    add("/config");
    add("/mode");
    add("/schemas?deleted=true");
    for (int id = 0; id <= 12; ++id) {
        add("/schemas/ids/" + std::to_string(id));
        add("/schemas/ids/" + std::to_string(id) + "/versions?deleted=true");
    }
    for (const auto& s : subjects.json) {
        const std::string subject = s.get<std::string>();
        add("/config/" + subject);
        add("/mode/" + subject);
        Answer versions = add("/subjects/" + subject + "/versions?deleted=true");
        for (const auto& v : versions.json) {
            const std::string path =
                "/subjects/" + subject + "/versions/" + std::to_string(v.get<int>());
            add(path + "?deleted=true");
            add(path + "/referencedby");
        }
    }
    return all;
}

TEST(RegistryReplay, ReplayingTheRecordsRebuildsTheSameRegistry) {
    RegistryClient c;
    c.register_schema("dep", fields_schema({"d"}), {{"schemaType", "PROTOBUF"}});
    json refs = json::array({{{"name", "dep.proto"}, {"subject", "dep"}, {"version", 1}}});
    c.register_schema("user", fields_schema({"u"}, {"dep.proto"}),
                      {{"schemaType", "PROTOBUF"}, {"references", refs}});
    c.register_schema("a", fields_schema({"x"}));
    c.register_schema("a", fields_schema({"x", "y?"}));
    c.register_schema("a", fields_schema({"x", "y?", "z?"}));
    c.register_schema("b", fields_schema({"x", "y?"}));
    ASSERT_EQ(c.del("/subjects/a/versions/2").status, 200);
    c.register_schema("gone", fields_schema({"g"}));
    ASSERT_EQ(c.del("/subjects/gone").status, 200);
    ASSERT_EQ(c.del("/subjects/gone?permanent=true").status, 200);
    c.register_schema("soft", fields_schema({"s"}));
    ASSERT_EQ(c.del("/subjects/soft").status, 200);
    ASSERT_EQ(c.put("/config", {{"compatibility", "FULL"}}).status, 200);
    ASSERT_EQ(c.put("/config/b", {{"compatibility", "NONE"}}).status, 200);
    ASSERT_EQ(c.put("/mode/b", {{"mode", "READONLY"}}).status, 200);
    ASSERT_EQ(c.put("/mode/imported", {{"mode", "IMPORT"}}).status, 200);
    ASSERT_EQ(c.post("/subjects/imported/versions", {{"schema", fields_schema({"i"})}, {"id", 11}})
                  .status,
              200);
    ASSERT_EQ(c.del("/mode/imported").status, 200);

    MemorySchemaLog other_log;
    std::unique_ptr<Registry> replayed = c.replayed(other_log);
    EXPECT_EQ(snapshot(*replayed), snapshot(*c.registry));
    const ReplayStats stats = replayed->replay_stats();
    EXPECT_EQ(stats.applied, c.log.size());
    EXPECT_EQ(stats.unreadable, 0u);
    EXPECT_EQ(stats.conflicting_ids, 0u);
    // Ids go on from the highest ever seen, in both.
    Answer next = call_registry(*replayed, "POST", "/subjects/c/versions",
                                json{{"schema", fields_schema({"new"})}}.dump());
    EXPECT_EQ(next.body, R"({"id":12})");
    EXPECT_EQ(c.register_schema("c", fields_schema({"new"})), 12);
}

TEST(RegistryReplay, TheHighestIdSurvivesHardDeletesOfEverything) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    ASSERT_EQ(c.del("/subjects/s").status, 200);
    ASSERT_EQ(c.del("/subjects/s?permanent=true").status, 200);
    MemorySchemaLog other_log;
    std::unique_ptr<Registry> replayed = c.replayed(other_log);
    Answer next = call_registry(*replayed, "POST", "/subjects/t/versions",
                                json{{"schema", fields_schema({"a"})}}.dump());
    EXPECT_EQ(next.body, R"({"id":3})");
}

TEST(RegistryReplay, RecordsAreWrittenInConfluentsFormat) {
    RegistryClient c;
    json refs = json::array({{{"name", "r"}, {"subject", "dep"}, {"version", 1}}});
    c.register_schema("dep", fields_schema({"d"}));
    c.register_schema("s", fields_schema({"a"}, {"r"}),
                      {{"schemaType", "JSON"}, {"references", refs}});
    ASSERT_EQ(c.put("/mode/s", {{"mode", "READONLY"}}).status, 200);
    const auto records = c.log.records();
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0].key, R"({"keytype":"SCHEMA","subject":"dep","version":1,"magic":1})");
    EXPECT_EQ(
        records[0].value,
        R"({"subject":"dep","version":1,"id":1,"schema":"{\"fields\":[\"d\"]}","deleted":false})");
    EXPECT_EQ(
        records[1].value,
        R"({"subject":"s","version":1,"id":2,"schemaType":"JSON","references":[{"name":"r","subject":"dep","version":1}],"schema":"{\"fields\":[\"a\"],\"refs\":[\"r\"]}","deleted":false})");
    EXPECT_EQ(records[2].key, R"({"keytype":"MODE","subject":"s","magic":0})");
    EXPECT_EQ(records[2].value, R"({"subject":"s","mode":"READONLY"})");
}

TEST(RegistryReplay, RecordsOfOtherWritersAreReadLeniently) {
    RegistryClient c;
    Registry& r = *c.registry;
    // A SCHEMA key of magic 0 and a value without schemaType (AVRO) or deleted flag.
    r.replay(R"({"keytype":"SCHEMA","subject":"s","version":1,"magic":0})",
             std::string_view(
                 R"({"subject":"s","version":1,"id":4,"schema":"{\"fields\":[]}","extra":1})"));
    // A global config key written with "subject":null, as older Confluents did.
    r.replay(R"({"keytype":"CONFIG","subject":null,"magic":0})",
             std::string_view(R"({"compatibilityLevel":"FORWARD"})"));
    r.replay(R"({"magic":0,"keytype":"NOOP"})", std::nullopt);
    r.replay(R"({"keytype":"MODE","subject":"s","magic":0})",
             std::string_view(R"({"mode":"READONLY"})"));
    r.replay(R"({"keytype":"MODE","subject":"s","magic":0})", std::nullopt);
    EXPECT_EQ(c.get("/schemas/ids/4").body, R"({"schema":"{\"fields\":[]}"})");
    EXPECT_EQ(c.get("/config").json["compatibilityLevel"], "FORWARD");
    EXPECT_EQ(c.get("/mode/s").error_code(), 40409);
    EXPECT_EQ(r.replay_stats().applied, 5u);
    // The next id is above the replayed one.
    EXPECT_EQ(c.register_schema("t", fields_schema({"x"})), 5);
}

TEST(RegistryReplay, UnreadableRecordsAreSkippedAndCounted) {
    RegistryClient c;
    Registry& r = *c.registry;
    const std::string_view good =
        R"({"subject":"s","version":1,"id":1,"schema":"{\"fields\":[\"a\"]}","deleted":false})";
    r.replay(R"({"keytype":"SCHEMA","subject":"s","version":1,"magic":1})", good);
    r.replay("not json", good);
    r.replay(R"({"keytype":"CONTEXT","tenant":"t","context":".c","magic":0})",
             std::string_view("{}"));
    r.replay(R"({"keytype":"SCHEMA","subject":"s","magic":1})", good);  // no version
    r.replay(R"({"keytype":"SCHEMA","subject":"s","version":0,"magic":1})", good);
    r.replay(R"({"keytype":"SCHEMA","subject":"s","version":2,"magic":7})", good);
    r.replay(R"({"keytype":"SCHEMA","subject":"s","version":2,"magic":1})", std::string_view("{"));
    r.replay(R"({"keytype":"SCHEMA","subject":"s","version":2,"magic":1})",
             std::string_view(R"({"id":"two","schema":"x"})"));
    r.replay(R"({"keytype":"SCHEMA","subject":"s","version":2,"magic":1})",
             std::string_view(R"({"id":2,"schema":""})"));
    r.replay(R"({"keytype":"CONFIG","magic":0})",
             std::string_view(R"({"compatibilityLevel":"SOME"})"));
    r.replay(R"({"keytype":"MODE","magic":0})", std::string_view(R"({"mode":"FORWARD"})"));
    r.replay(R"({"keytype":"DELETE_SUBJECT","subject":"s","magic":0})", std::string_view("{}"));
    r.replay(R"({"keytype":7})", std::nullopt);
    // Another schema under id 1: refused, as Confluent refuses a duplicate id.
    r.replay(
        R"({"keytype":"SCHEMA","subject":"t","version":1,"magic":1})",
        std::string_view(
            R"({"subject":"t","version":1,"id":1,"schema":"{\"fields\":[\"b\"]}","deleted":false})"));
    const ReplayStats stats = r.replay_stats();
    EXPECT_EQ(stats.applied, 1u);
    EXPECT_EQ(stats.unreadable, 12u);
    EXPECT_EQ(stats.conflicting_ids, 1u);
    EXPECT_EQ(c.get("/subjects").json, json::parse(R"(["s"])"));
    EXPECT_EQ(c.get("/config").json["compatibilityLevel"], "BACKWARD");
    EXPECT_EQ(c.get("/mode").json["mode"], "READWRITE");
}

TEST(RegistryReplay, AFailedAppendChangesNothing) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    ASSERT_EQ(c.put("/mode/m", {{"mode", "READONLY"}}).status, 200);
    const std::string before = snapshot(*c.registry);

    c.log.fail_always(true);
    Answer reg = c.post("/subjects/s/versions", {{"schema", fields_schema({"a", "b?"})}});
    EXPECT_EQ(reg.status, 500);
    EXPECT_EQ(reg.error_code(), 50001);
    EXPECT_EQ(
        reg.json["message"],
        "Register schema operation failed while writing to the Kafka store: the disk is full");
    EXPECT_EQ(c.del("/subjects/s/versions/1").error_code(), 50001);
    EXPECT_EQ(c.del("/subjects/s").error_code(), 50001);
    EXPECT_EQ(c.put("/config", {{"compatibility", "NONE"}}).error_code(), 50001);
    EXPECT_EQ(c.put("/config/s", {{"compatibility", "NONE"}}).error_code(), 50001);
    EXPECT_EQ(c.del("/config").error_code(), 50001);
    EXPECT_EQ(c.put("/mode", {{"mode", "READONLY"}}).error_code(), 50001);
    EXPECT_EQ(c.del("/mode/m").error_code(), 50001);
    EXPECT_EQ(snapshot(*c.registry), before);
    EXPECT_EQ(c.log.size(), 2u);

    // The id the failed registration was given is not handed out again: the failure may have
    // been a lost acknowledgement of a record that did land.
    c.log.fail_always(false);
    EXPECT_EQ(c.register_schema("s", fields_schema({"a", "b?"})), 3);
}

TEST(RegistryReplay, AFailureHalfwayKeepsWhatWasWrittenAndOnlyThat) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    c.register_schema("s", fields_schema({"a", "b?"}));
    ASSERT_EQ(c.del("/subjects/s").status, 200);
    // A hard delete writes one tombstone per version: the first lands, the second does not.
    c.log.fail_after(1);
    EXPECT_EQ(c.del("/subjects/s?permanent=true").error_code(), 50001);
    EXPECT_EQ(c.get("/subjects/s/versions?deleted=true").json, json::parse("[2]"));
    MemorySchemaLog other_log;
    EXPECT_EQ(snapshot(*c.replayed(other_log)), snapshot(*c.registry));
    // Asking again finishes it.
    EXPECT_EQ(c.del("/subjects/s?permanent=true").json, json::parse("[2]"));
}

}  // namespace
}  // namespace skiff::schema_registry::testing
