// Many threads at once, as the HTTP server and the produce path will call: lookups, reads by id
// and subject_has_schema_id() while registrations go on. Every id is handed out once, every
// answer is whole, and the log replays into the same registry.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "tests/broker/schema_registry/registry_test_support.h"

namespace skiff::schema_registry::testing {
namespace {

using nlohmann::json;

TEST(RegistryConcurrency, ReadersAndWritersTogether) {
    RegistryClient c;
    const int base = c.register_schema("hot", fields_schema({"a"}));
    constexpr int kWriters = 3;
    constexpr int kSchemasPerWriter = 40;
    std::atomic<bool> writing{true};
    std::atomic<int> bad_answers{0};

    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r) {
        readers.emplace_back([&] {
            const std::string lookup = json{{"schema", fields_schema({"a"})}}.dump();
            while (writing.load()) {
                Answer a = c.call("POST", "/subjects/hot", lookup);
                Answer b = c.get("/schemas/ids/" + std::to_string(base));
                if (a.status != 200 || a.json["id"] != base || b.status != 200)
                    bad_answers.fetch_add(1);
                if (!c.registry->subject_has_schema_id("hot", base))
                    bad_answers.fetch_add(1);
                c.get("/subjects");
                c.get("/schemas?latestOnly=true");
            }
        });
    }
    std::vector<std::thread> writers;
    std::mutex ids_mutex;
    std::multiset<int> ids;
    for (int w = 0; w < kWriters; ++w) {
        writers.emplace_back([&, w] {
            const std::string subject = "w" + std::to_string(w);
            std::vector<std::string> fields{"k"};
            for (int i = 0; i < kSchemasPerWriter; ++i) {
                // Each writer's schemas are new to the registry, so each gets a new id.
                fields.push_back(subject + "_" + std::to_string(i) + "?");
                Answer a = c.post("/subjects/" + subject + "/versions",
                                  {{"schema", fields_schema(fields)}});
                if (a.status != 200) {
                    bad_answers.fetch_add(1);
                    continue;
                }
                std::lock_guard<std::mutex> lock(ids_mutex);
                ids.insert(a.json["id"].get<int>());
            }
        });
    }
    for (auto& t : writers)
        t.join();
    writing = false;
    for (auto& t : readers)
        t.join();

    EXPECT_EQ(bad_answers.load(), 0);
    ASSERT_EQ(ids.size(), static_cast<size_t>(kWriters * kSchemasPerWriter));
    EXPECT_EQ(std::set<int>(ids.begin(), ids.end()).size(), ids.size());  // no id twice
    for (int w = 0; w < kWriters; ++w) {
        EXPECT_EQ(c.get("/subjects/w" + std::to_string(w) + "/versions/latest").json["version"],
                  kSchemasPerWriter);
    }
    MemorySchemaLog other_log;
    std::unique_ptr<Registry> replayed = c.replayed(other_log);
    for (int id = 1; id <= kWriters * kSchemasPerWriter + 1; ++id) {
        const std::string path = "/schemas/ids/" + std::to_string(id) + "/versions";
        EXPECT_EQ(call_registry(*replayed, "GET", path).body, c.get(path).body);
    }
}

TEST(RegistryConcurrency, SubjectHasSchemaIdFollowsDeletes) {
    RegistryClient c;
    const int id = c.register_schema("orders-value", fields_schema({"a"}));
    EXPECT_TRUE(c.registry->subject_has_schema_id("orders-value", id));
    EXPECT_FALSE(c.registry->subject_has_schema_id("orders-key", id));
    EXPECT_FALSE(c.registry->subject_has_schema_id("orders-value", id + 1));
    ASSERT_EQ(c.del("/subjects/orders-value/versions/1").status, 200);
    EXPECT_FALSE(c.registry->subject_has_schema_id("orders-value", id));
    c.register_schema("orders-value", fields_schema({"a"}));
    EXPECT_TRUE(c.registry->subject_has_schema_id("orders-value", id));
}

}  // namespace
}  // namespace skiff::schema_registry::testing
