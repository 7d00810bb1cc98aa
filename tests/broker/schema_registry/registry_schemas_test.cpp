// The /schemas routes: a schema by id, where an id is registered, the types, and the listing.
#include <gtest/gtest.h>

#include "tests/broker/schema_registry/registry_test_support.h"

namespace skiff::schema_registry::testing {
namespace {

using nlohmann::json;

TEST(RegistrySchemas, ASchemaByIdAsConfluentServesIt) {
    RegistryClient c;
    c.register_schema("dep", fields_schema({"d"}), {{"schemaType", "PROTOBUF"}});
    json refs = json::array({{{"name", "dep.proto"}, {"subject", "dep"}, {"version", 1}}});
    c.register_schema("s", fields_schema({"a"}, {"dep.proto"}),
                      {{"schemaType", "PROTOBUF"}, {"references", refs}});
    c.register_schema("avro", fields_schema({"x"}));

    EXPECT_EQ(c.get("/schemas/ids/3").body, R"({"schema":"{\"fields\":[\"x\"]}"})");
    EXPECT_EQ(
        c.get("/schemas/ids/2").body,
        R"({"schemaType":"PROTOBUF","schema":"{\"fields\":[\"a\"],\"refs\":[\"dep.proto\"]}","references":[{"name":"dep.proto","subject":"dep","version":1}]})");
    EXPECT_EQ(c.get("/schemas/ids/3/schema").body, R"({"fields":["x"]})");
    EXPECT_EQ(c.get("/schemas/ids/3?format=serialized").json["schema"],
              "serialized:" + fields_schema({"x"}));
    EXPECT_EQ(c.get("/schemas/ids/3/schema?format=serialized").body,
              "serialized:" + fields_schema({"x"}));
    // The subject parameter changes nothing: an id names one schema.
    EXPECT_EQ(c.get("/schemas/ids/3?subject=other").status, 200);

    Answer missing = c.get("/schemas/ids/9");
    EXPECT_EQ(missing.status, 404);
    EXPECT_EQ(missing.body, R"({"error_code":40403,"message":"Schema 9 not found"})");
    EXPECT_EQ(c.get("/schemas/ids/9/schema").error_code(), 40403);
    EXPECT_EQ(c.get("/schemas/ids/9/subjects").body,
              R"({"error_code":40403,"message":"Schema not found"})");
    EXPECT_EQ(c.get("/schemas/ids/9/versions").error_code(), 40403);
    // Not an integer: no route, as Jersey answers.
    EXPECT_EQ(c.get("/schemas/ids/abc").status, 404);
    EXPECT_EQ(c.get("/schemas/ids/abc").error_code(), 404);
}

TEST(RegistrySchemas, WhereAnIdIsRegistered) {
    RegistryClient c;
    c.register_schema("a", fields_schema({"x?"}));
    c.register_schema("b", fields_schema({"y?"}));
    c.register_schema("b", fields_schema({"x?"}));
    c.register_schema("c", fields_schema({"x?"}));
    ASSERT_EQ(c.del("/subjects/c/versions/1").status, 200);
    EXPECT_EQ(c.get("/schemas/ids/1/subjects").json, json::parse(R"(["a","b"])"));
    EXPECT_EQ(c.get("/schemas/ids/1/subjects?deleted=true").json, json::parse(R"(["a","b","c"])"));
    EXPECT_EQ(c.get("/schemas/ids/1/versions").body,
              R"([{"subject":"a","version":1},{"subject":"b","version":2}])");
    EXPECT_EQ(c.get("/schemas/ids/1/versions?deleted=true&offset=2").body,
              R"([{"subject":"c","version":1}])");
    EXPECT_EQ(c.get("/schemas/ids/1/subjects?limit=1").json, json::parse(R"(["a"])"));
}

TEST(RegistrySchemas, TheTypesAreListed) {
    RegistryClient c;
    EXPECT_EQ(c.get("/schemas/types").body, R"(["JSON","PROTOBUF","AVRO"])");
}

TEST(RegistrySchemas, SchemasAreListedWithTheirFilters) {
    RegistryClient c;
    c.register_schema("a", fields_schema({"x"}));
    c.register_schema("a", fields_schema({"x", "y?"}));
    c.register_schema("b", fields_schema({"z"}));
    c.register_schema("other", fields_schema({"o"}));
    ASSERT_EQ(c.del("/subjects/a/versions/2").status, 200);

    auto listed = [&](const std::string& query) {
        std::vector<std::string> out;
        for (const auto& s : c.get("/schemas" + query).json)
            out.push_back(s["subject"].get<std::string>() + ":" +
                          std::to_string(s["version"].get<int>()));
        return out;
    };
    using V = std::vector<std::string>;
    EXPECT_EQ(listed(""), (V{"a:1", "b:1", "other:1"}));
    EXPECT_EQ(listed("?deleted=true"), (V{"a:1", "a:2", "b:1", "other:1"}));
    EXPECT_EQ(listed("?deleted=true&latestOnly=true"), (V{"a:2", "b:1", "other:1"}));
    EXPECT_EQ(listed("?latestOnly=true"), (V{"a:1", "b:1", "other:1"}));
    EXPECT_EQ(listed("?subjectPrefix=o"), (V{"other:1"}));
    EXPECT_EQ(listed("?offset=1&limit=1"), (V{"b:1"}));
    EXPECT_EQ(c.get("/schemas?limit=zz").status, 404);
    EXPECT_EQ(c.get("/schemas").json[0],
              json::parse(R"({"subject":"a","version":1,"id":1,"schema":"{\"fields\":[\"x\"]}"})"));
}

}  // namespace
}  // namespace skiff::schema_registry::testing
