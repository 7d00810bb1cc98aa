#include "broker/http/http_server.h"

#include <spdlog/spdlog.h>

#include <asio/co_spawn.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/write.hpp>
#include <stdexcept>

#include "broker/net/use_tuple.h"
#include "broker/security/tls_channel.h"
#include "protocol/out_buffer.h"

namespace skiff::broker::http {

// One client's byte stream, plain or TLS, and the deadline that closes it. Lives in its
// serving coroutine, on the connection's strand, as does the deadline's handler: closing the
// socket from there cancels whatever the coroutine waits for.
class HttpServer::Connection {
  public:
    Connection(asio::ip::tcp::socket socket, const std::shared_ptr<security::TlsContext>& tls,
               std::chrono::milliseconds deadline)
        : socket_(std::make_shared<asio::ip::tcp::socket>(std::move(socket))),
          deadline_(socket_->get_executor()),
          limit_(deadline) {
        std::error_code ec;
        const auto remote = socket_->remote_endpoint(ec);
        if (!ec)
            peer_ = remote.address().to_string() + ":" + std::to_string(remote.port());
        if (tls) {
            socket_->native_non_blocking(true, ec);  // the TLS channel drives it that way
            tls_ = std::make_unique<security::TlsChannel>(tls->current(), *socket_);
        }
    }

    const std::string& peer() const { return peer_; }

    void arm() {
        deadline_.expires_after(limit_);
        // The handler holds the socket, not this: it may run after the connection ended.
        deadline_.async_wait([socket = socket_](std::error_code ec) {
            if (!ec)
                close_socket(*socket);
        });
    }
    void disarm() { deadline_.cancel(); }

    asio::awaitable<bool> handshake() {
        if (!tls_)
            co_return true;
        arm();
        auto failed = co_await tls_->handshake();
        disarm();
        if (failed)
            spdlog::debug("HTTPS handshake with {} failed: {}", peer_, *failed);
        co_return !failed;
    }

    // Bytes read (> 0), or 0 at the end of the stream, on an error or at the deadline.
    asio::awaitable<size_t> read_some(char* buffer, size_t size) {
        if (!tls_) {
            auto [ec, n] = co_await socket_->async_read_some(asio::buffer(buffer, size), use_tuple);
            co_return ec ? 0 : n;
        }
        for (;;) {
            auto r = tls_->read(reinterpret_cast<std::byte*>(buffer), size);
            if (r.bytes > 0)
                co_return static_cast<size_t>(r.bytes);
            if (r.bytes == 0 || !r.wait)
                co_return 0;
            auto [ec] = co_await socket_->async_wait(*r.wait, use_tuple);
            if (ec)
                co_return 0;
        }
    }

    asio::awaitable<bool> write_all(std::string_view bytes) {
        if (!tls_) {
            auto [ec, n] = co_await asio::async_write(*socket_, asio::buffer(bytes), use_tuple);
            co_return !ec;
        }
        out_.clear();
        out_.put_chars(bytes);
        co_return !(co_await tls_->write(out_));
    }

    void close() { close_socket(*socket_); }
    static void close_socket(asio::ip::tcp::socket& socket) {
        std::error_code ignored;
        socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
        socket.close(ignored);
    }

  private:
    std::shared_ptr<asio::ip::tcp::socket> socket_;
    asio::steady_timer deadline_;
    std::chrono::milliseconds limit_;
    std::unique_ptr<security::TlsChannel> tls_;
    protocol::OutBuffer out_;
    std::string peer_;
};

HttpServer::HttpServer(const config::Listener& listener, HttpServerOptions options,
                       HttpHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)), acceptor_(io_) {
    std::error_code ec;
    const auto address = asio::ip::make_address(listener.host, ec);
    if (ec)
        throw std::runtime_error("cannot listen on " + options_.setting + " " +
                                 listener.to_string() + ": expected a numeric address");
    const asio::ip::tcp::endpoint endpoint(address, listener.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec)
        acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
    if (!ec)
        acceptor_.bind(endpoint, ec);
    if (!ec)
        acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        throw std::runtime_error("cannot listen on " + options_.setting + " " +
                                 listener.to_string() + ": " + ec.message());
    port_ = acceptor_.local_endpoint().port();
    accept();
    for (size_t i = 0; i < std::max<size_t>(options_.threads, 1); ++i)
        threads_.emplace_back([this] { io_.run(); });
}

HttpServer::~HttpServer() {
    io_.stop();
    for (auto& t : threads_)
        t.join();
}

void HttpServer::accept() {
    acceptor_.async_accept(asio::make_strand(io_), [this](std::error_code ec,
                                                          asio::ip::tcp::socket socket) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open())
            return;
        if (!ec) {
            if (open_.load() >= options_.max_connections) {
                std::error_code ignored;
                socket.close(ignored);  // a flood of HTTP clients: the newest go away at once
            } else {
                ++open_;
                auto ex = socket.get_executor();
                asio::co_spawn(ex, serve(std::move(socket)), [this](const std::exception_ptr& e) {
                    --open_;
                    if (!e)
                        return;
                    try {
                        std::rethrow_exception(e);
                    } catch (const std::exception& failure) {
                        spdlog::warn("{}: a connection failed: {}", options_.setting,
                                     failure.what());
                    }
                });
            }
        }
        accept();
    });
}

asio::awaitable<void> HttpServer::serve(asio::ip::tcp::socket socket) {
    Connection c(std::move(socket), options_.tls, options_.deadline);
    if (!co_await c.handshake()) {
        c.close();
        co_return;
    }
    RequestParser parser(options_.limits);
    std::string pending;  // read but not yet parsed: the rest of a read, pipelined requests
    char buffer[16 * 1024];
    for (;;) {
        c.arm();
        bool continued = false;
        for (;;) {
            if (!pending.empty())
                pending.erase(0, parser.feed(pending.data(), pending.size()));
            if (parser.state() != RequestParser::State::incomplete)
                break;
            if (parser.expects_continue() && !continued) {
                continued = true;
                if (!co_await c.write_all("HTTP/1.1 100 Continue\r\n\r\n"))
                    co_return;
            }
            const size_t n = co_await c.read_some(buffer, sizeof buffer);
            if (n == 0) {  // gone, or too slow: nothing to answer
                c.close();
                co_return;
            }
            pending.append(buffer, n);
        }
        HttpResponse response;
        bool keep_alive = false;
        bool head_only = false;
        if (parser.state() == RequestParser::State::failed) {
            if (options_.refusal) {
                response = options_.refusal(parser.error_status(), parser.error());
            } else {
                response.status = parser.error_status();
                response.body = parser.error() + "\n";
            }
        } else {
            keep_alive = parser.keep_alive();
            HttpRequest request = parser.take();
            request.peer = c.peer();
            head_only = request.method == "HEAD";
            c.disarm();
            try {
                response = handler_(request);
            } catch (const std::exception& e) {
                spdlog::error("{}: {} {} failed: {}", options_.setting, request.method,
                              request.path, e.what());
                response = HttpResponse{500, "text/plain; charset=utf-8", "internal error\n", {}};
            }
        }
        c.arm();
        const bool written = co_await c.write_all(render_response(response, keep_alive, head_only));
        c.disarm();
        if (!written || !keep_alive)
            break;
    }
    c.close();
}

}  // namespace skiff::broker::http
