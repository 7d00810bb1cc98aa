// The control API's routes without a server (broker/control/control_api.h): statuses and JSON
// errors a test suite's author sees, the token, and the API off.
#include <gtest/gtest.h>

#include "broker/control/control_api.h"
#include "storage/disk_delay.h"

namespace skiff::broker::control {
namespace {

using nlohmann::json;

http::HttpRequest request(std::string method, std::string target, std::string body = "") {
    http::HttpRequest r;
    r.method = std::move(method);
    r.target = target;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    r.query = q == std::string::npos ? "" : target.substr(q + 1);
    r.body = std::move(body);
    return r;
}

struct Answer {
    int status;
    json body;
};

Answer call(ControlApi& api, http::HttpRequest r) {
    auto response = api.answer(r);
    EXPECT_TRUE(response);
    if (!response)
        return {0, {}};
    return {response->status, json::parse(response->body)};
}

TEST(ControlApiTest, OffAnswers404ForEveryControlPathAndNothingElse) {
    ControlApi api(nullptr, "", {});
    auto a = call(api, request("POST", "/control/faults", "{}"));
    EXPECT_EQ(a.status, 404);
    EXPECT_NE(a.body["error"].get<std::string>().find("control.api.enable"), std::string::npos);
    EXPECT_FALSE(api.answer(request("GET", "/metrics")));
    EXPECT_FALSE(api.answer(request("GET", "/controlled")));
}

TEST(ControlApiTest, TokenMissingOrWrongIs401) {
    ControlPlane plane(10);
    ControlApi api(&plane, "s3cret", {});
    EXPECT_EQ(call(api, request("GET", "/control")).status, 401);
    auto wrong = request("GET", "/control");
    wrong.headers.emplace_back("authorization", "Bearer nope");
    EXPECT_EQ(call(api, wrong).status, 401);
    auto right = request("GET", "/control");
    right.headers.emplace_back("authorization", "Bearer s3cret");
    EXPECT_EQ(call(api, right).status, 200);
}

TEST(ControlApiTest, FaultRulesAddListRemoveAndBadBodies) {
    ControlPlane plane(10);
    ControlApi api(&plane, "", {});
    EXPECT_EQ(call(api, request("POST", "/control/faults", "{not json")).status, 400);
    auto bad = call(api, request("POST", "/control/faults",
                                 R"({"api":"Produce","action":"error","error":"BOGUS"})"));
    EXPECT_EQ(bad.status, 400);
    EXPECT_TRUE(plane.faults().empty());  // nothing stored from a refused rule
    auto added = call(api, request("POST", "/control/faults",
                                   R"({"api":"Fetch","action":"latency","latency_ms":100})"));
    ASSERT_EQ(added.status, 201);
    EXPECT_EQ(added.body["id"], 1);
    auto listed = call(api, request("GET", "/control/faults"));
    ASSERT_EQ(listed.body["rules"].size(), 1u);
    EXPECT_EQ(listed.body["rules"][0]["api"], "Fetch");
    EXPECT_EQ(call(api, request("GET", "/control/faults/1")).status, 200);
    EXPECT_EQ(call(api, request("GET", "/control/faults/9")).status, 404);
    EXPECT_EQ(call(api, request("GET", "/control/faults/x")).status, 404);
    EXPECT_EQ(call(api, request("DELETE", "/control/faults/1")).status, 200);
    EXPECT_EQ(call(api, request("PUT", "/control/faults")).status, 405);
    EXPECT_EQ(call(api, request("GET", "/control/nowhere")).status, 404);
}

TEST(ControlApiTest, RequestsOutageDiskAndEmulation) {
    ControlPlane plane(2);
    CapturedRequest r;
    r.api_key = 0;
    r.client_id = "c";
    plane.capture().add(r);
    r.api_key = 1;
    plane.capture().add(r);
    r.api_key = 0;
    plane.capture().add(r);  // the ring keeps 2
    std::string emulated;
    ControlActions actions;
    actions.emulated_version = [&] { return emulated; };
    actions.emulate = [&](const std::string& v) -> std::optional<std::string> {
        if (v != "" && v != "2.8")
            return "unknown release";
        emulated = v;
        return std::nullopt;
    };
    actions.listeners = [] { return std::vector<std::string>{"PLAINTEXT"}; };
    ControlApi api(&plane, "", actions);
    EXPECT_EQ(
        call(api, request("POST", "/control/outage", R"({"seconds":1,"listener":"NOPE"})")).status,
        400);
    EXPECT_EQ(
        call(api, request("POST", "/control/faults", R"({"listener":"NOPE","action":"drop"})"))
            .status,
        400);
    EXPECT_FALSE(plane.outage());
    EXPECT_TRUE(plane.faults().empty());
    auto produce = call(api, request("GET", "/control/requests?api=Produce"));
    ASSERT_EQ(produce.body["requests"].size(), 1u);
    EXPECT_EQ(produce.body["requests"][0]["sequence"], 3);
    EXPECT_EQ(call(api, request("GET", "/control/requests?bogus=1")).status, 400);
    EXPECT_EQ(call(api, request("DELETE", "/control/requests")).body["removed"], 2);

    EXPECT_EQ(call(api, request("POST", "/control/outage", R"({"seconds":-1})")).status, 400);
    EXPECT_EQ(call(api, request("POST", "/control/outage", R"({"seconds":1,"mode":"nap"})")).status,
              400);
    auto started =
        call(api, request("POST", "/control/outage",
                          R"({"seconds":60,"mode":"blackhole","listener":"PLAINTEXT"})"));
    EXPECT_EQ(started.status, 200);
    EXPECT_TRUE(plane.blackholes("PLAINTEXT"));
    EXPECT_FALSE(plane.blackholes("SSL"));
    EXPECT_FALSE(plane.refuses("PLAINTEXT"));
    EXPECT_EQ(call(api, request("DELETE", "/control/outage")).body["ended"], true);
    EXPECT_FALSE(plane.blackholes("PLAINTEXT"));

    EXPECT_EQ(call(api, request("PUT", "/control/disk", R"({"write_latency_ms":"x"})")).status,
              400);
    EXPECT_EQ(call(api, request("PUT", "/control/disk", R"({"write_latency_ms":5})")).status, 200);
    EXPECT_EQ(storage::disk_delay().write.count(), 5000);
    EXPECT_EQ(call(api, request("DELETE", "/control/disk")).status, 200);
    EXPECT_EQ(storage::disk_delay().write.count(), 0);

    EXPECT_EQ(call(api, request("PUT", "/control/emulation", R"({"kafka_version":"9.9"})")).status,
              400);
    EXPECT_EQ(call(api, request("PUT", "/control/emulation", R"({"kafka_version":"2.8"})")).status,
              200);
    EXPECT_EQ(emulated, "2.8");
    EXPECT_EQ(call(api, request("DELETE", "/control/emulation")).status, 200);
    EXPECT_EQ(emulated, "");
    EXPECT_EQ(call(api, request("POST", "/control/reset", R"({"everything":true})")).status, 400);
    EXPECT_EQ(call(api, request("POST", "/control/snapshots/x")).status, 409);  // no actions
}

}  // namespace
}  // namespace skiff::broker::control
