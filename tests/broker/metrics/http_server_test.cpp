// The metrics endpoint's HTTP handling: routes and their status codes, malformed and oversized
// requests, and a real server on an ephemeral port answering over a socket.
#include "broker/metrics/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace skiff::broker::metrics {
namespace {

HttpRoutes routes(bool ready) {
    HttpRoutes r;
    r.metrics = [] { return std::string("# TYPE x gauge\nx 1\n"); };
    r.ready = [ready] { return ready; };
    return r;
}

TEST(HttpRoutes, MetricsHealthAndNotFound) {
    auto metrics = answer_http("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", routes(true));
    EXPECT_EQ(metrics.status, 200);
    EXPECT_EQ(metrics.content_type, "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_EQ(metrics.body, "# TYPE x gauge\nx 1\n");
    EXPECT_EQ(answer_http("GET /metrics?x=1 HTTP/1.0\r\n\r\n", routes(true)).status, 200);
    EXPECT_EQ(answer_http("GET /health/live HTTP/1.1\r\n\r\n", routes(false)).status, 200);
    EXPECT_EQ(answer_http("GET /health/ready HTTP/1.1\r\n\r\n", routes(true)).status, 200);
    EXPECT_EQ(answer_http("GET /health/ready HTTP/1.1\r\n\r\n", routes(false)).status, 503);
    EXPECT_EQ(answer_http("GET / HTTP/1.1\r\n\r\n", routes(true)).status, 404);
    EXPECT_EQ(answer_http("HEAD /metrics HTTP/1.1\r\n\r\n", routes(true)).status, 200);
    EXPECT_EQ(answer_http("POST /metrics HTTP/1.1\r\n\r\n", routes(true)).status, 405);
}

TEST(HttpRoutes, MalformedRequestsAre400) {
    for (const char* bad :
         {"garbage\r\n\r\n", "GET /metrics\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
          "GET /metrics HTTP/2\r\n\r\n", "G(T /metrics HTTP/1.1\r\n\r\n",
          "GET /metrics HTTP/1.1\r\nno colon\r\n\r\n",
          "GET /metrics HTTP/1.1\r\n: empty name\r\n\r\n"})
        EXPECT_EQ(answer_http(bad, routes(true)).status, 400) << bad;
}

// Sends `request` to 127.0.0.1:port (the first `split` bytes, a pause, then the rest) and
// returns everything the server answers until it closes.
std::string exchange(uint16_t port, const std::string& request, size_t split = 0) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    for (size_t sent = 0; sent < request.size();) {
        if (split > 0 && sent == split)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const size_t until = split > sent ? split : request.size();
        ssize_t n = ::send(fd, request.data() + sent, until - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break;  // the server may close on an oversized head before reading it all
        sent += static_cast<size_t>(n);
    }
    std::string answer;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
        answer.append(buffer, static_cast<size_t>(n));
    ::close(fd);
    return answer;
}

TEST(HttpServer, AnswersOverASocketAndClosesEachConnection) {
    std::atomic<bool> ready{false};
    HttpRoutes r;
    r.metrics = [] { return std::string("x 1\n"); };
    r.ready = [&] { return ready.load(); };
    HttpServer server(config::Listener{"HTTP", "127.0.0.1", 0}, r);
    ASSERT_NE(server.port(), 0);

    auto metrics = exchange(server.port(), "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n");
    EXPECT_EQ(metrics.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << metrics;
    EXPECT_NE(metrics.find("Content-Length: 4\r\n"), std::string::npos);
    EXPECT_NE(metrics.find("Connection: close\r\n"), std::string::npos);
    EXPECT_EQ(metrics.substr(metrics.size() - 4), "x 1\n");

    auto head = exchange(server.port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
    EXPECT_NE(head.find("Content-Length: 4\r\n"), std::string::npos);
    EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n") << "HEAD has no body";

    EXPECT_EQ(
        exchange(server.port(), "GET /health/ready HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 503", 0), 0u);
    ready = true;
    EXPECT_EQ(
        exchange(server.port(), "GET /health/ready HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 200", 0), 0u);
    // A request split over several writes, the blank line straddling two of them.
    const std::string live = "GET /health/live HTTP/1.1\r\nHost: a\r\n\r\n";
    EXPECT_EQ(exchange(server.port(), live, live.size() - 2).rfind("HTTP/1.1 200", 0), 0u);

    EXPECT_EQ(exchange(server.port(), "\x01\x02garbage\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
    const std::string huge =
        "GET /metrics HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n";
    EXPECT_EQ(exchange(server.port(), huge).rfind("HTTP/1.1 400", 0), 0u);
    // Still serving after all that.
    EXPECT_EQ(exchange(server.port(), "GET /metrics HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 200", 0),
              0u);
}

TEST(HttpServer, AnAddressInUseIsAClearError) {
    HttpServer first(config::Listener{"HTTP", "127.0.0.1", 0}, routes(true));
    try {
        HttpServer second(config::Listener{"HTTP", "127.0.0.1", first.port()}, routes(true));
        FAIL() << "bound twice";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("metrics.listener"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace skiff::broker::metrics
