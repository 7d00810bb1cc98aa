// Bad input: unknown routes and methods, path tricks, malformed bodies, bad versions and
// subjects. Each gets Confluent's answer and nothing is stored. Also the authorization hook.
#include <gtest/gtest.h>

#include "tests/broker/schema_registry/registry_test_support.h"

namespace skiff::schema_registry::testing {
namespace {

using nlohmann::json;

TEST(RegistryInput, UnknownRoutesAndMethodsAnswer404And405) {
    RegistryClient c;
    Answer none = c.get("/nope");
    EXPECT_EQ(none.status, 404);
    EXPECT_EQ(none.body, R"({"error_code":404,"message":"HTTP 404 Not Found"})");
    Answer method = c.call("PATCH", "/subjects");
    EXPECT_EQ(method.status, 405);
    EXPECT_EQ(method.body, R"({"error_code":405,"message":"HTTP 405 Method Not Allowed"})");
    EXPECT_EQ(c.call("DELETE", "/schemas/types").status, 405);
    EXPECT_EQ(c.get("/subjects/s/versions/1/extra").status, 404);
    EXPECT_EQ(c.get("").status, 404);
    EXPECT_EQ(c.get("/").body, "{}");
    EXPECT_EQ(c.get("/subjects/").body, "[]");  // one trailing slash is ignored
}

TEST(RegistryInput, ClusterIdIsServed) {
    RegistrySettings settings;
    settings.kafka_cluster_id = "abc";
    RegistryClient c(settings);
    EXPECT_EQ(
        c.get("/v1/metadata/id").body,
        R"({"id":"","scope":{"path":[],"clusters":{"kafka-cluster":"abc","schema-registry-cluster":"schema-registry"}}})");
}

TEST(RegistryInput, PathTricksNeverReachAnotherRoute) {
    RegistryClient c;
    for (const char* path :
         {"/subjects/../config", "/subjects/./versions", "//subjects", "/subjects//versions",
          "/subjects/%zz/versions", "/subjects/%2/versions", "/subjects/a/b/versions"}) {
        EXPECT_EQ(c.get(path).status, 404) << path;
        EXPECT_EQ(c.call("POST", path, json{{"schema", fields_schema({"a"})}}.dump()).status, 404)
            << path;
    }
    // An encoded slash stays in its segment: a subject named "a/b", reachable only encoded.
    EXPECT_EQ(c.register_schema("a%2Fb", fields_schema({"a"})), 1);
    EXPECT_EQ(c.get("/subjects").json, json::parse(R"(["a/b"])"));
    EXPECT_EQ(c.get("/subjects/a%2fb/versions/1").json["subject"], "a/b");
    // Encoded dots are a name, and not a valid one to register.
    EXPECT_EQ(c.post("/subjects/%2E%2E/versions", {{"schema", fields_schema({"a"})}}).error_code(),
              42208);
    EXPECT_EQ(c.get("/subjects/%2E%2E/versions").error_code(), 40401);
    EXPECT_EQ(c.log.size(), 1u);
}

TEST(RegistryInput, BadSubjectNamesAreRefusedOnWrites) {
    RegistryClient c;
    for (const char* subject :
         {"a%00b", "tab%09", "%7F", "%C2%85", "%FF", "%C0%AF", "__GLOBAL", "__EMPTY"}) {
        Answer a = c.post("/subjects/" + std::string(subject) + "/versions",
                          {{"schema", fields_schema({"a"})}});
        EXPECT_EQ(a.status, 422) << subject;
        EXPECT_EQ(a.error_code(), 42208) << subject;
        // Reading one is simply not found, and the answer is valid JSON even for bad UTF-8.
        Answer r = c.get("/subjects/" + std::string(subject) + "/versions");
        EXPECT_EQ(r.error_code(), 40401) << subject;
    }
    Answer a = c.post("/subjects/a%00b/versions", {{"schema", fields_schema({"a"})}});
    EXPECT_EQ(a.json["message"],
              std::string("The specified subject 'a") + '\0' + "b' is not a valid.");
    EXPECT_EQ(c.register_schema("caf%C3%A9", fields_schema({"a"})), 1);
    EXPECT_EQ(c.get("/subjects").json, json::parse(R"(["café"])"));
    EXPECT_EQ(c.log.size(), 1u);
}

TEST(RegistryInput, MalformedBodiesAre400AndWrongShapes422) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    const size_t records = c.log.size();
    for (const char* path :
         {"/subjects/s/versions", "/subjects/s", "/compatibility/subjects/s/versions"}) {
        Answer broken = c.call("POST", path, "{\"schema\":");
        EXPECT_EQ(broken.status, 400) << path;
        EXPECT_EQ(broken.error_code(), 400) << path;
        for (const char* body :
             {"", "[]", "\"x\"", R"({"schema":5})", R"({"schemaType":true})",
              R"({"references":"x"})", R"({"references":[1]})", R"({"references":[{"name":1}]})",
              R"({"id":"7"})", R"({"version":1.5})", R"({"id":99999999999})"}) {
            Answer a = c.call("POST", path, body);
            EXPECT_EQ(a.status, 422) << path << " " << body;
            EXPECT_EQ(a.error_code(), 422) << path << " " << body;
        }
    }
    for (const char* path : {"/config", "/config/s", "/mode", "/mode/s"}) {
        EXPECT_EQ(c.call("PUT", path, "nope").error_code(), 400) << path;
        EXPECT_EQ(c.call("PUT", path, "[1]").error_code(), 422) << path;
    }
    // A reference missing its parts is refused when resolved, as Confluent does.
    Answer partial =
        c.post("/subjects/s/versions",
               {{"schema", fields_schema({"a"})}, {"references", json::array({json::object()})}});
    EXPECT_EQ(partial.error_code(), 42201);
    EXPECT_EQ(c.log.size(), records);
}

TEST(RegistryInput, BadVersionsAre42202) {
    RegistryClient c;
    c.register_schema("s", fields_schema({"a"}));
    for (const char* version :
         {"abc", "0", "-2", "2147483648", "99999999999999999999", "1.0", "%2B", "0x1"}) {
        const std::string path = "/subjects/s/versions/" + std::string(version);
        Answer a = c.get(path);
        EXPECT_EQ(a.status, 422) << version;
        EXPECT_EQ(a.error_code(), 42202) << version;
        EXPECT_EQ(c.get(path + "/schema").error_code(), 42202) << version;
        EXPECT_EQ(c.get(path + "/referencedby").error_code(), 42202) << version;
        EXPECT_EQ(c.del(path).error_code(), 42202) << version;
        EXPECT_EQ(c.post("/compatibility/subjects/s/versions/" + std::string(version),
                         {{"schema", fields_schema({"a"})}})
                      .error_code(),
                  42202)
            << version;
    }
    EXPECT_EQ(c.get("/subjects/s/versions/abc").json["message"],
              "The specified version 'abc' is not a valid version id. Allowed values are between "
              "[1, 2^31-1] and the string \"latest\"");
    EXPECT_EQ(c.get("/subjects/s/versions/-2").json["message"].get<std::string>().substr(0, 28),
              "The specified version '-2' i");
    // Java's parsing: blanks around are trimmed, the word is any case, a '+' sign is a sign.
    EXPECT_EQ(c.get("/subjects/s/versions/%201%20").status, 200);
    EXPECT_EQ(c.get("/subjects/s/versions/LATEST").status, 200);
    EXPECT_EQ(c.get("/subjects/s/versions/+1").status, 200);
    EXPECT_EQ(c.get("/subjects/s/versions/01").status, 200);
    EXPECT_EQ(c.log.size(), 1u);
}

TEST(RegistryInput, AnAuthorizerIsAskedAndItsRefusalIs40301) {
    RegistrySettings settings;
    std::vector<std::string> asked;
    settings.authorize = [&asked](const std::string& principal, std::string_view operation,
                                  std::string_view resource_type, std::string_view name) {
        asked.push_back(principal + " " + std::string(operation) + " " +
                        std::string(resource_type) + " " + std::string(name));
        if (principal == "User:admin")
            return true;
        if (name == "secret")
            return false;
        return resource_type == "SUBJECT";  // alice may touch subjects, not the registry
    };
    RegistryClient c(settings);
    const json body = {{"schema", fields_schema({"a"})}};
    ASSERT_EQ(c.call("POST", "/subjects/open/versions", body.dump(), "User:alice").status, 200);
    EXPECT_EQ(asked.back(), "User:alice WRITE SUBJECT open");

    Answer refused = c.call("POST", "/subjects/secret/versions", body.dump(), "User:alice");
    EXPECT_EQ(refused.status, 403);
    EXPECT_EQ(
        refused.body,
        R"({"error_code":40301,"message":"User is denied operation WRITE on SUBJECT: secret"})");
    ASSERT_EQ(c.call("POST", "/subjects/secret/versions", body.dump(), "User:admin").status, 200);

    // Listings leave out what may not be described.
    EXPECT_EQ(c.call("GET", "/subjects", "", "User:alice").json, json::parse(R"(["open"])"));
    EXPECT_EQ(c.call("GET", "/subjects", "", "User:admin").json,
              json::parse(R"(["open","secret"])"));
    EXPECT_EQ(c.call("GET", "/schemas", "", "User:alice").json.size(), 1u);
    // The registry-wide routes need rights on the registry.
    EXPECT_EQ(c.call("GET", "/config", "", "User:alice").error_code(), 40301);
    EXPECT_EQ(c.call("PUT", "/mode", R"({"mode":"READONLY"})", "User:alice").error_code(), 40301);
    EXPECT_EQ(c.call("GET", "/config/open", "", "User:alice").error_code(), 40408);
    EXPECT_EQ(asked.back(), "User:alice DESCRIBE_CONFIGS SUBJECT open");
    // A schema by id: readable through any subject holding it that may be read.
    EXPECT_EQ(c.call("GET", "/schemas/ids/1", "", "User:alice").status, 200);
    EXPECT_EQ(c.call("GET", "/schemas/ids/1/subjects", "", "User:alice").json,
              json::parse(R"(["open"])"));
    EXPECT_EQ(c.call("GET", "/subjects/secret/versions/1", "", "User:alice").error_code(), 40301);
    EXPECT_EQ(c.call("DELETE", "/subjects/secret", "", "User:alice").error_code(), 40301);
    EXPECT_EQ(c.call("GET", "/schemas/types", "", "User:nobody").status, 200);
}

TEST(RegistryInput, AnIdOnlyASecretSubjectHoldsIsNotReadable) {
    RegistrySettings settings;
    settings.authorize = [](const std::string& principal, std::string_view, std::string_view,
                            std::string_view name) {
        return principal == "User:admin" || (name != "secret" && !name.empty());
    };
    RegistryClient c(settings);
    ASSERT_EQ(c.call("POST", "/subjects/secret/versions",
                     json{{"schema", fields_schema({"a"})}}.dump(), "User:admin")
                  .status,
              200);
    Answer a = c.call("GET", "/schemas/ids/1", "", "User:alice");
    EXPECT_EQ(a.status, 403);
    EXPECT_EQ(a.error_code(), 40301);
    EXPECT_EQ(c.call("GET", "/schemas/ids/1", "", "User:admin").status, 200);
}

}  // namespace
}  // namespace skiff::schema_registry::testing
