// skiff's HTTP server over real sockets on an ephemeral port: keep-alive and pipelining, a
// request split across writes, "100 Continue", malformed and oversized requests answered and
// closed, the deadline closing a client that stalls, the connection cap, and the server still
// serving after all of it.
#include "broker/http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace skiff::broker::http {
namespace {

int connect_to(uint16_t port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    return fd;
}

void send_all(int fd, const std::string& bytes) {
    for (size_t sent = 0; sent < bytes.size();) {
        const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n <= 0)
            return;  // the server may close on an oversized request before reading it all
        sent += static_cast<size_t>(n);
    }
}

// Everything the server sends until it closes or `timeout` passes without a byte.
std::string receive(int fd, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::string answer;
    char buffer[4096];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0)
            break;
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            break;
        answer.append(buffer, static_cast<size_t>(n));
    }
    return answer;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

// Echoes the method, decoded-free path and body; "/slow" takes 200 ms.
HttpResponse echo(const HttpRequest& r) {
    if (r.path == "/slow")
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    HttpResponse out;
    out.body = r.method + " " + r.path + " " + r.body;
    return out;
}

HttpServerOptions options() {
    HttpServerOptions o;
    o.setting = "test.listener";
    o.threads = 2;
    o.max_connections = 4;
    o.limits = {.max_head_bytes = 1024, .max_body_bytes = 64};
    o.deadline = std::chrono::milliseconds(300);
    return o;
}

TEST(HttpServer, KeepAliveAndPipelinedRequestsAreAnsweredInOrder) {
    HttpServer server(config::Listener{"HTTP", "127.0.0.1", 0}, options(), echo);
    int fd = connect_to(server.port());
    send_all(fd, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    auto first = receive(fd, std::chrono::milliseconds(100));
    EXPECT_EQ(first.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << first;
    EXPECT_NE(first.find("Content-Length: 7\r\n"), std::string::npos) << first;
    EXPECT_EQ(first.find("Connection: close"), std::string::npos) << "kept alive";
    // Two pipelined, the second closing; the slow one first proves the order is kept.
    send_all(fd,
             "POST /slow HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"
             "GET /b HTTP/1.1\r\nConnection: close\r\n\r\n");
    auto rest = receive(fd);
    const auto slow = rest.find("POST /slow {}");
    const auto b = rest.find("GET /b ");
    ASSERT_NE(slow, std::string::npos) << rest;
    ASSERT_NE(b, std::string::npos) << rest;
    EXPECT_LT(slow, b);
    EXPECT_NE(rest.find("Connection: close"), std::string::npos);
    ::close(fd);
}

TEST(HttpServer, ASplitRequestAndExpectContinue) {
    HttpServer server(config::Listener{"HTTP", "127.0.0.1", 0}, options(), echo);
    int fd = connect_to(server.port());
    send_all(fd, "PUT /c HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
    auto interim = receive(fd, std::chrono::milliseconds(100));
    EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
    send_all(fd, "ab");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    send_all(fd, "cd");
    auto answer = receive(fd, std::chrono::milliseconds(100));
    EXPECT_NE(answer.find("PUT /c abcd"), std::string::npos) << answer;
    ::close(fd);
}

TEST(HttpServer, BadRequestsAreAnsweredAndClosedAndTheServerGoesOn) {
    HttpServer server(config::Listener{"HTTP", "127.0.0.1", 0}, options(), echo);
    struct Case {
        std::string request;
        std::string status;
    };
    for (const auto& [request, status] : std::vector<Case>{
             {"\x01\x02garbage\r\n\r\n", "400"},
             {"GET / HTTP/1.1\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n", "431"},
             {"POST / HTTP/1.1\r\nContent-Length: 100000\r\n\r\n", "413"},
         }) {
        int fd = connect_to(server.port());
        send_all(fd, request);
        auto answer = receive(fd);  // returns when the server closes
        EXPECT_EQ(answer.rfind("HTTP/1.1 " + status, 0), 0u) << answer;
        EXPECT_NE(answer.find("Connection: close"), std::string::npos);
        ::close(fd);
    }
    int fd = connect_to(server.port());
    send_all(fd, "GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_NE(receive(fd).find("GET /ok"), std::string::npos);
    ::close(fd);
}

TEST(HttpServer, TheDeadlineClosesAStalledClientAndTheCapRefusesTheNewest) {
    HttpServer server(config::Listener{"HTTP", "127.0.0.1", 0}, options(), echo);
    int stalled = connect_to(server.port());
    send_all(stalled, "GET / HTTP/1.1\r\nHo");
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(receive(stalled), "") << "closed without an answer";
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
    ::close(stalled);
    for (int i = 0; i < 1000 && server.open_connections() > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));

    std::vector<int> open;
    for (int i = 0; i < 4; ++i)
        open.push_back(connect_to(server.port()));
    // Accepted by the server, not only by the kernel's backlog: on a loaded machine a fixed
    // sleep was not always enough, and the fifth then took a free slot (a cold CI run failed so).
    for (int i = 0; i < 1000 && server.open_connections() < 4; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(server.open_connections(), 4u);
    int fifth = connect_to(server.port());
    send_all(fifth, "GET / HTTP/1.1\r\n\r\n");
    EXPECT_EQ(receive(fifth), "") << "over the cap: closed at once";
    ::close(fifth);
    for (int fd : open)
        ::close(fd);
}

TEST(HttpServer, AHandlerThatThrowsIs500) {
    HttpServer server(config::Listener{"HTTP", "127.0.0.1", 0}, options(),
                      [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("no"); });
    int fd = connect_to(server.port());
    send_all(fd, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(receive(fd).rfind("HTTP/1.1 500", 0), 0u);
    ::close(fd);
}

TEST(HttpServer, AnAddressInUseIsAClearError) {
    HttpServer first(config::Listener{"HTTP", "127.0.0.1", 0}, options(), echo);
    try {
        HttpServer second(config::Listener{"HTTP", "127.0.0.1", first.port()}, options(), echo);
        FAIL() << "bound twice";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("test.listener"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace skiff::broker::http
