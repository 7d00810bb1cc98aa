// The console's HTTP side before any route: its pages, the headers that keep a record's bytes
// from running as script, read-only mode, cross-site writes, basic authentication, and errors in
// Confluent's shape.
#include "tests/broker/console/console_fixture.h"

#include "broker/console/console_assets.h"

namespace skiff::broker::test {
namespace {

std::string header_of(const http::HttpResponse& r, const std::string& name) {
    for (const auto& [n, v] : r.headers) {
        if (n == name)
            return v;
    }
    return {};
}

TEST_F(ConsoleTest, ServesItsPageFromTheBinaryWithAStrictContentSecurityPolicy) {
    auto r = get("/");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
    EXPECT_NE(r.body.find("<html"), std::string::npos);
    EXPECT_NE(header_of(r, "Content-Security-Policy").find("script-src 'self'"), std::string::npos);
    EXPECT_EQ(header_of(r, "X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(get("/index.html").body, r.body);
    EXPECT_FALSE(console::all_assets().empty());
}

TEST_F(ConsoleTest, UnknownPathsAndMethodsGetJsonErrors) {
    auto r = get("/no-such-page");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(json_of(r)["error_code"], 404);
    r = get("/api/no-such-route");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(json_of(r)["error_code"], 404);
    r = request("DELETE", "/api/topics");
    EXPECT_EQ(r.status, 405);
    r = request("POST", "/index.html");
    EXPECT_EQ(r.status, 405);
    r = get("/api/topics/%zz");
    EXPECT_EQ(r.status, 400);
}

TEST_F(ConsoleTest, ListsTopicsThroughAMetadataRequest) {
    create_topic("orders", 3);
    auto r = get("/api/topics");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.content_type, "application/json");
    bool found = false;
    const auto body = json_of(r);  // kept: a range-for over a temporary's member would dangle
    for (const auto& topic : body["topics"]) {
        if (topic["name"] == "orders") {
            found = true;
            EXPECT_EQ(topic["partitions"], 3);
            EXPECT_EQ(topic["internal"], false);
        }
    }
    EXPECT_TRUE(found) << r.body;
}

// A write route of the test's own: the endpoint's checks come before any route's handler.
class ConsoleWriteTest : public ConsoleTest {
  protected:
    bool wrote = false;
    void add_write_route() {
        const_cast<console::RouteTable&>(endpoint().routes())
            .push_back({"POST", "/api/test-write", true, [this](console::ApiCall&) {
                            wrote = true;
                            return console::json_response(200, nlohmann::json::object());
                        }});
    }
};

TEST_F(ConsoleWriteTest, ReadOnlyRefusesEveryWrite) {
    settings.read_only = true;
    add_write_route();
    auto r = request("POST", "/api/test-write", "{}");
    EXPECT_EQ(r.status, 403);
    EXPECT_NE(json_of(r)["message"].get<std::string>().find("read-only"), std::string::npos);
    EXPECT_FALSE(wrote);
}

TEST_F(ConsoleWriteTest, RefusesWritesFromAnotherSite) {
    add_write_route();
    auto r = request("POST", "/api/test-write", "{}", {{"origin", "http://evil.example"}});
    EXPECT_EQ(r.status, 403);
    r = request("POST", "/api/test-write", "{}", {{"sec-fetch-site", "cross-site"}});
    EXPECT_EQ(r.status, 403);
    r = request("POST", "/api/test-write", "{}", {{"sec-fetch-site", "same-site"}});
    EXPECT_EQ(r.status, 403);
    EXPECT_FALSE(wrote);
    // The console's own page (same origin) and tools without a browser's headers may write.
    r = request("POST", "/api/test-write", "{}",
                {{"origin", "http://127.0.0.1:8080"}, {"sec-fetch-site", "same-origin"}});
    EXPECT_EQ(r.status, 200) << r.body;
    wrote = false;
    r = request("POST", "/api/test-write", "{}");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(wrote);
}

TEST_F(ConsoleTest, BasicAuthenticationIsRequiredWhenConfigured) {
    basic_auth = true;
    auto r = get("/api/topics");
    EXPECT_EQ(r.status, 401);
    EXPECT_NE(header_of(r, "WWW-Authenticate").find("Basic"), std::string::npos);
    r = request("GET", "/", {}, {{"authorization", "Basic bm9ib2R5Ondyb25n"}});  // nobody:wrong
    EXPECT_EQ(r.status, 401);
}

}  // namespace
}  // namespace skiff::broker::test
