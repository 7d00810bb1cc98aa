#include "broker/console/kafka_call.h"

#include <unistd.h>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>

#include <exception>

#include "broker/broker.h"
#include "broker/request_router.h"
#include "protocol/api_table.h"
#include "protocol/out_buffer.h"
#include "protocol/wire.h"

namespace skiff::broker::console {

KafkaCall::KafkaCall(Broker& broker, const RequestRouter& router, Caller caller,
                     std::string listener)
    : broker_(broker), router_(router), caller_(std::move(caller)), listener_(std::move(listener)) {
    if (listener_.empty() && !broker_.config().listeners.empty())
        listener_ = broker_.config().listeners.front().name;
    session_.host = caller_.host;
    session_.principal = caller_.principal;
    session_.security_protocol = broker_.security_protocol(listener_);
    session_.authenticated = true;  // the console authenticated the caller itself
    session_.in_process = true;     // not a client of an emulated Kafka release
}

namespace {

// The response frame as one contiguous buffer: memory with every spliced file range read in.
Expected<std::vector<std::byte>, std::string> flatten(const protocol::OutBuffer& out) {
    std::vector<std::byte> bytes;
    bytes.reserve(static_cast<size_t>(out.total_size()));
    const auto memory = out.bytes();
    size_t copied = 0;
    for (const auto& splice : out.splices()) {
        bytes.insert(bytes.end(), memory.begin() + static_cast<std::ptrdiff_t>(copied),
                     memory.begin() + static_cast<std::ptrdiff_t>(splice.memory_offset));
        copied = splice.memory_offset;
        const size_t at = bytes.size();
        bytes.resize(at + static_cast<size_t>(splice.range.length));
        int64_t done = 0;
        while (done < splice.range.length) {
            const ssize_t n = ::pread(splice.range.fd, bytes.data() + at + done,
                                      static_cast<size_t>(splice.range.length - done),
                                      splice.range.position + done);
            if (n <= 0)
                return unexpected(std::string("cannot read the log to answer"));
            done += n;
        }
    }
    bytes.insert(bytes.end(), memory.begin() + static_cast<std::ptrdiff_t>(copied), memory.end());
    return bytes;
}

}  // namespace

Expected<std::vector<std::byte>, std::string> KafkaCall::exchange(std::span<const std::byte> frame,
                                                                  int16_t api_key,
                                                                  int16_t version) {
    asio::io_context io;
    protocol::OutBuffer out;
    RequestRouter::Result result = RequestRouter::Result::close;
    std::exception_ptr failure;
    const std::string peer = caller_.host + ":console";
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            result = co_await router_.dispatch(broker_, peer, listener_, frame, out, nullptr,
                                               nullptr, &session_);
        },
        [&](const std::exception_ptr& e) { failure = e; });
    io.run();
    if (failure)
        return unexpected(std::string("the broker failed to answer"));
    if (result == RequestRouter::Result::no_response)
        return std::vector<std::byte>{};
    if (result == RequestRouter::Result::close)
        return unexpected(std::string("the broker refused the request"));
    auto bytes = flatten(out);
    if (!bytes)
        return bytes;
    // size, correlation id, and the header's tagged fields from response header v1
    size_t header = 8;
    if (protocol::response_header_version(static_cast<protocol::ApiKey>(api_key), version) >= 1)
        header += 1;  // the console never gets header tags: an empty tag buffer is one byte
    if (bytes->size() < header)
        return unexpected(std::string("short answer from the broker"));
    bytes->erase(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(header));
    return bytes;
}

}  // namespace skiff::broker::console
