#include "broker/metrics/http_server.h"

#include <spdlog/spdlog.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>
#include <stdexcept>

#include "broker/net/use_tuple.h"

namespace skiff::broker::metrics {
namespace {

const char* reason_phrase(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 400:
            return "Bad Request";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 503:
            return "Service Unavailable";
        default:
            return "Error";
    }
}

HttpResponse plain(int status, std::string body) {
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    return r;
}

bool is_token_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string render(const HttpResponse& r, bool with_body) {
    std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason_phrase(r.status) +
                      "\r\nContent-Type: " + r.content_type +
                      "\r\nContent-Length: " + std::to_string(r.body.size());
    if (r.status == 405)
        out += "\r\nAllow: GET, HEAD";
    out += "\r\nConnection: close\r\n\r\n";
    if (with_body)
        out += r.body;
    return out;
}

}  // namespace

HttpResponse answer_http(std::string_view head, const HttpRoutes& routes) {
    const auto line_end = head.find("\r\n");
    if (line_end == std::string_view::npos)
        return plain(400, "malformed request line\n");
    const std::string_view line = head.substr(0, line_end);
    const auto sp1 = line.find(' ');
    const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || sp1 == 0)
        return plain(400, "malformed request line\n");
    const std::string_view method = line.substr(0, sp1);
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = line.substr(sp2 + 1);
    for (char c : method)
        if (!is_token_char(c))
            return plain(400, "malformed method\n");
    if (target.empty() || target.front() != '/' || (version != "HTTP/1.1" && version != "HTTP/1.0"))
        return plain(400, "malformed request line\n");
    // Header lines: name ':' value, the name a token.
    for (size_t pos = line_end + 2; pos < head.size();) {
        const auto end = head.find("\r\n", pos);
        if (end == std::string_view::npos)
            return plain(400, "malformed header\n");
        if (end == pos)
            break;  // the blank line
        const std::string_view header = head.substr(pos, end - pos);
        const auto colon = header.find(':');
        if (colon == 0 || colon == std::string_view::npos)
            return plain(400, "malformed header\n");
        for (char c : header.substr(0, colon))
            if (!is_token_char(c))
                return plain(400, "malformed header\n");
        pos = end + 2;
    }
    if (method != "GET" && method != "HEAD")
        return plain(405, "only GET and HEAD\n");
    if (const auto query = target.find('?'); query != std::string_view::npos)
        target = target.substr(0, query);
    if (target == "/metrics") {
        HttpResponse r;
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        r.body = routes.metrics ? routes.metrics() : std::string();
        return r;
    }
    if (target == "/health/live")
        return plain(200, "live\n");
    if (target == "/health/ready") {
        if (routes.ready && routes.ready())
            return plain(200, "ready\n");
        return plain(503,
                     "not ready: the logs are being recovered or the listeners are not "
                     "accepting yet\n");
    }
    return plain(404, "not found; try /metrics, /health/live or /health/ready\n");
}

HttpServer::HttpServer(const config::Listener& listener, HttpRoutes routes)
    : routes_(std::move(routes)), acceptor_(io_) {
    std::error_code ec;
    auto address = asio::ip::make_address(listener.host.empty() ? "0.0.0.0" : listener.host, ec);
    if (ec)
        throw std::runtime_error("cannot listen on metrics.listener " + listener.to_string() +
                                 ": expected a numeric address");
    const asio::ip::tcp::endpoint endpoint(address, listener.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec)
        acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
    if (!ec)
        acceptor_.bind(endpoint, ec);
    if (!ec)
        acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        throw std::runtime_error("cannot listen on metrics.listener " + listener.to_string() +
                                 ": " + ec.message());
    port_ = acceptor_.local_endpoint().port();
    accept();
    thread_ = std::thread([this] { io_.run(); });
}

HttpServer::~HttpServer() {
    io_.stop();
    if (thread_.joinable())
        thread_.join();
}

void HttpServer::accept() {
    acceptor_.async_accept([this](std::error_code ec, asio::ip::tcp::socket socket) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open())
            return;
        if (!ec) {
            if (open_.load() >= kMaxConnections) {
                std::error_code ignored;
                socket.close(ignored);  // a flood of HTTP clients: the newest go away at once
            } else {
                serve(std::move(socket));
            }
        }
        accept();
    });
}

asio::awaitable<void> HttpServer::session(asio::ip::tcp::socket s) {
    // The deadline closes the socket of a client that sends too slowly or never stops.
    asio::steady_timer deadline(s.get_executor());
    deadline.expires_after(kDeadline);
    deadline.async_wait([&s](std::error_code ec) {
        if (!ec) {
            std::error_code ignored;
            s.close(ignored);
        }
    });
    std::string head;
    char buffer[2048];
    size_t end = std::string::npos;
    while (end == std::string::npos) {
        auto [ec, n] = co_await s.async_read_some(asio::buffer(buffer), use_tuple);
        if (ec)
            break;  // closed by the peer or by the deadline: nothing to answer
        // Look for the blank line from a little before the new bytes: it may straddle reads.
        const size_t from = head.size() >= 3 ? head.size() - 3 : 0;
        head.append(buffer, n);
        end = head.find("\r\n\r\n", from);
        if (end == std::string::npos && head.size() > kMaxHead)
            break;
    }
    HttpResponse response;
    bool with_body = true;
    if (end != std::string::npos && end + 4 <= kMaxHead) {
        const std::string_view request(head.data(), end + 4);
        response = answer_http(request, routes_);
        with_body = !request.starts_with("HEAD ");
    } else if (head.size() > kMaxHead) {
        response = plain(400, "request head over 8192 bytes\n");
    } else {
        co_return;  // the connection ended before a whole request head
    }
    const std::string bytes = render(response, with_body);
    co_await asio::async_write(s, asio::buffer(bytes), use_tuple);
    std::error_code ignored;
    s.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    s.close(ignored);
}

void HttpServer::serve(asio::ip::tcp::socket socket) {
    ++open_;
    asio::co_spawn(io_, session(std::move(socket)), [this](const std::exception_ptr& e) {
        --open_;
        if (e) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                spdlog::warn("metrics endpoint: a request failed: {}", ex.what());
            }
        }
    });
}

}  // namespace skiff::broker::metrics
