// The operations HTTP endpoint (metrics.listener): GET /metrics (Prometheus text format 0.0.4),
// GET /health/live (200 while the process serves HTTP at all) and GET /health/ready (200 once
// recovery is over and the Kafka listeners accept, 503 before). Anything else is 404, a method
// other than GET or HEAD 405, a malformed request or a request head over 8 KiB 400; every answer
// closes the connection (Prometheus and probes open one per request anyway).
//
// Small and apart from the Kafka path on purpose: its own thread and io_context, at most
// kMaxConnections at once, and a deadline per connection, so a slow or hostile HTTP client costs
// one socket for a few seconds and never a Kafka request's time. HTTP/1.0 and 1.1 request heads
// only; a body is never read.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "config/listener.h"

namespace skiff::broker::metrics {

struct HttpResponse {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
};

// The answer to one request head (exposed for unit tests): `head` is everything up to and
// including the blank line.
struct HttpRoutes {
    std::function<std::string()> metrics;
    std::function<bool()> ready;
};
HttpResponse answer_http(std::string_view head, const HttpRoutes& routes);

class HttpServer {
  public:
    static constexpr size_t kMaxHead = 8192;
    static constexpr size_t kMaxConnections = 32;
    static constexpr std::chrono::seconds kDeadline{10};

    // Binds and listens now (throws std::runtime_error naming the address when it cannot) and
    // serves on a thread of its own until destroyed.
    HttpServer(const config::Listener& listener, HttpRoutes routes);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    uint16_t port() const { return port_; }

  private:
    void accept();
    void serve(asio::ip::tcp::socket socket);
    asio::awaitable<void> session(asio::ip::tcp::socket socket);

    HttpRoutes routes_;
    asio::io_context io_;
    asio::ip::tcp::acceptor acceptor_;
    uint16_t port_ = 0;
    std::atomic<size_t> open_{0};
    std::thread thread_;
};

}  // namespace skiff::broker::metrics
