// skiff's one HTTP stack: the server under the metrics and health endpoint (metrics.listener)
// and the schema registry (schema.registry.listeners). Asio, as the Kafka listeners, with
// nodejs/http-parser reading the requests (request_parser.h) and, with a TLS context, HTTPS
// through the same TLS channel as the Kafka listeners (broker/security/tls_channel.h).
//
// Apart from the Kafka path on purpose: its own io_context and threads, at most
// `max_connections` open at once (the newest refused beyond), and a deadline on reading each
// request and writing each response, so a slow or hostile HTTP client costs one socket for a
// few seconds and never a Kafka request's time. Keep-alive and pipelining as HTTP/1.1 has them;
// requests of one connection are answered in order. The handler runs on one of the server's
// threads and may block (the registry waits for its log's fsync): give the server as many
// threads as handlers should run at once.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "broker/http/http_message.h"
#include "broker/http/request_parser.h"
#include "broker/security/tls_context.h"
#include "config/listener.h"

namespace skiff::broker::http {

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
    std::string setting = "http listener";  // the setting that named the address, for errors
    size_t threads = 1;
    size_t max_connections = 64;
    ParserLimits limits;
    // Reading one request (from its first byte, or from the end of the previous response on a
    // kept-alive connection) and writing one response must each finish within this.
    std::chrono::milliseconds deadline{10000};
    // Serve HTTPS with this context (new connections take its current one, so a certificate
    // reload applies as on the Kafka listeners). Null: plain HTTP.
    std::shared_ptr<security::TlsContext> tls;
    // The answer to a request the server refuses itself (malformed 400, head too large 431, body
    // too large 413) with why; plain text when not set. The registry answers in its JSON.
    std::function<HttpResponse(int status, const std::string& why)> refusal;
};

class HttpServer {
  public:
    // Binds and listens now (throws std::runtime_error naming the setting and the address when
    // it cannot) and serves on its own threads until destroyed.
    HttpServer(const config::Listener& listener, HttpServerOptions options, HttpHandler handler);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    uint16_t port() const { return port_; }
    bool https() const { return options_.tls != nullptr; }
    // Connections accepted and not yet closed (at most max_connections).
    size_t open_connections() const { return open_.load(); }

  private:
    class Connection;
    void accept();
    asio::awaitable<void> serve(asio::ip::tcp::socket socket);

    HttpServerOptions options_;
    HttpHandler handler_;
    asio::io_context io_;
    asio::ip::tcp::acceptor acceptor_;
    uint16_t port_ = 0;
    std::atomic<size_t> open_{0};
    std::vector<std::thread> threads_;
};

}  // namespace skiff::broker::http
