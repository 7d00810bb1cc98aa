#include "broker/health_check.h"

#include <asio/connect.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <tuple>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/use_awaitable.hpp>

#include "broker/net/use_tuple.h"
#include "protocol/api_versions.h"
#include "protocol/protocol.h"
#include "protocol/wire.h"

namespace skiff::broker {
namespace {

constexpr int32_t kCorrelationId = 1;

// The exchange runs as one coroutine with io_context::run_for as the deadline: a hung broker
// is an unhealthy broker.
asio::awaitable<void> exchange(asio::ip::tcp::socket& socket,
                               asio::ip::tcp::resolver::results_type endpoints,
                               std::string& verdict) {
    auto [ec, _] = co_await asio::async_connect(socket, endpoints, use_tuple);
    if (ec)
        co_return verdict = "cannot connect: " + ec.message(), void();
    protocol::ApiVersionsRequest request;
    auto frame = protocol::encode_request(request, 0, kCorrelationId, "skiff-health");
    std::tie(ec, std::ignore) =
        co_await asio::async_write(socket, asio::buffer(frame.data(), frame.size()), use_tuple);
    if (ec)
        co_return verdict = "send failed: " + ec.message(), void();
    std::array<std::byte, 4> size_bytes{};
    std::tie(ec, std::ignore) =
        co_await asio::async_read(socket, asio::buffer(size_bytes), use_tuple);
    if (ec)
        co_return verdict = "no answer: " + ec.message(), void();
    const auto size = protocol::wire::load_be<uint32_t>(size_bytes.data());
    if (size < 4 || size > (1u << 20))
        co_return verdict = "implausible response size " + std::to_string(size), void();
    std::vector<std::byte> body(size);
    std::tie(ec, std::ignore) = co_await asio::async_read(socket, asio::buffer(body), use_tuple);
    if (ec)
        co_return verdict = "truncated answer: " + ec.message(), void();
    // Response header v0 (the correlation id), then the ApiVersions v0 body.
    if (protocol::wire::load_be<int32_t>(body.data()) != kCorrelationId)
        co_return verdict = "answer to another request", void();
    auto response =
        protocol::decode_message<protocol::ApiVersionsResponse>(std::span(body).subspan(4), 0);
    if (!response)
        co_return verdict = "malformed answer: " + response.error().message, void();
    verdict = response->error_code == protocol::ErrorCode::none
                  ? ""
                  : "broker answered " + std::string(protocol::error_name(response->error_code));
}

bool ask(const std::string& host, const std::string& port, int timeout_ms, std::string& why) {
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    asio::ip::tcp::resolver resolver(io);
    std::error_code ec;
    auto endpoints = resolver.resolve(host, port, ec);
    if (ec)
        return why = "cannot resolve " + host + ": " + ec.message(), false;
    why = "no answer within " + std::to_string(timeout_ms) + " ms";
    asio::co_spawn(io, exchange(socket, endpoints, why), asio::detached);
    io.run_for(std::chrono::milliseconds(timeout_ms));
    return why.empty();
}

}  // namespace

int health_check_main(int argc, char** argv) {
    std::string address = "127.0.0.1:9092";
    int timeout_ms = 5000;
    for (int i = 0; i < argc; ++i) {
        std::string_view a = argv[i];
        if ((a == "--bootstrap-server" || a == "-b") && i + 1 < argc) {
            address = argv[++i];
        } else if (a == "--timeout-ms" && i + 1 < argc) {
            timeout_ms = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr,
                         "usage: skiff health [--bootstrap-server HOST:PORT] [--timeout-ms N]\n");
            return 2;
        }
    }
    auto colon = address.rfind(':');
    if (colon == std::string::npos) {
        std::fprintf(stderr, "skiff health: expected HOST:PORT, got %s\n", address.c_str());
        return 2;
    }
    std::string why;
    if (!ask(address.substr(0, colon), address.substr(colon + 1), timeout_ms, why)) {
        std::fprintf(stderr, "unhealthy: %s\n", why.c_str());
        return 1;
    }
    std::printf("healthy: %s answers ApiVersions\n", address.c_str());
    return 0;
}

}  // namespace skiff::broker
