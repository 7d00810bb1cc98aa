// The metrics endpoint's routes and their status codes (the HTTP itself: tests/broker/http/).
#include "broker/metrics/endpoint.h"

#include <gtest/gtest.h>

namespace skiff::broker::metrics {
namespace {

EndpointRoutes routes(bool ready) {
    EndpointRoutes r;
    r.metrics = [] { return std::string("# TYPE x gauge\nx 1\n"); };
    r.ready = [ready] { return ready; };
    return r;
}

http::HttpRequest get(std::string path, std::string method = "GET") {
    http::HttpRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.target = r.path;
    return r;
}

TEST(MetricsEndpoint, MetricsHealthAndNotFound) {
    auto metrics = answer_endpoint(get("/metrics"), routes(true));
    EXPECT_EQ(metrics.status, 200);
    EXPECT_EQ(metrics.content_type, "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_EQ(metrics.body, "# TYPE x gauge\nx 1\n");
    EXPECT_EQ(answer_endpoint(get("/health/live"), routes(false)).status, 200);
    EXPECT_EQ(answer_endpoint(get("/health/ready"), routes(true)).status, 200);
    EXPECT_EQ(answer_endpoint(get("/health/ready"), routes(false)).status, 503);
    EXPECT_EQ(answer_endpoint(get("/"), routes(true)).status, 404);
    EXPECT_EQ(answer_endpoint(get("/metrics", "HEAD"), routes(true)).status, 200);
    auto post = answer_endpoint(get("/metrics", "POST"), routes(true));
    EXPECT_EQ(post.status, 405);
    ASSERT_EQ(post.headers.size(), 1u);
    EXPECT_EQ(post.headers[0].second, "GET, HEAD");
}

TEST(MetricsEndpoint, AnAddressInUseNamesTheSetting) {
    auto first = start_endpoint(config::Listener{"HTTP", "127.0.0.1", 0}, routes(true));
    try {
        auto second =
            start_endpoint(config::Listener{"HTTP", "127.0.0.1", first->port()}, routes(true));
        FAIL() << "bound twice";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("metrics.listener"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace skiff::broker::metrics
