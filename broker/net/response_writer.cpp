#include "broker/net/response_writer.h"

#include <sys/sendfile.h>
#include <sys/socket.h>

#include <asio/use_awaitable.hpp>
#include <cerrno>

#include "broker/net/use_tuple.h"

namespace skiff::broker {
namespace {

// Sends memory bytes with send(2) on the non-blocking socket, waiting for writability only when
// the socket buffer is full. `more` (MSG_MORE) is set when a file range follows: the socket has
// TCP_NODELAY, so without it the few header bytes of a fetch response would leave as a TCP
// segment of their own, one more packet and one more wake-up of the client per response; with
// it they go out in the same segment as the first record bytes. The last chunk sendfile(2)
// sends of a non-empty range carries no MSG_MORE and so pushes everything pending.
asio::awaitable<std::error_code> write_memory(asio::ip::tcp::socket& socket,
                                              std::span<const std::byte> bytes, bool more) {
    const int flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0);
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::send(socket.native_handle(), bytes.data() + done, bytes.size() - done, flags);
        if (n >= 0) {
            done += static_cast<size_t>(n);
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            co_return std::error_code(errno, std::generic_category());
        auto [ec] = co_await socket.async_wait(asio::ip::tcp::socket::wait_write, use_tuple);
        if (ec)
            co_return ec;
    }
    co_return std::error_code{};
}

asio::awaitable<std::error_code> send_file_range(asio::ip::tcp::socket& socket,
                                                 const protocol::FileRange& range) {
    off_t offset = static_cast<off_t>(range.position);
    int64_t left = range.length;
    while (left > 0) {
        ssize_t n =
            ::sendfile(socket.native_handle(), range.fd, &offset, static_cast<size_t>(left));
        if (n > 0) {
            left -= n;
            continue;
        }
        if (n == 0)  // the file is shorter than the range storage promised: never send a torn frame
            co_return std::make_error_code(std::errc::io_error);
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN)
            co_return std::error_code(errno, std::generic_category());
        auto [ec] = co_await socket.async_wait(asio::ip::tcp::socket::wait_write, use_tuple);
        if (ec)
            co_return ec;
    }
    co_return std::error_code{};
}

}  // namespace

asio::awaitable<std::error_code> write_response(asio::ip::tcp::socket& socket,
                                                const protocol::OutBuffer& frame) {
    auto memory = frame.bytes();
    size_t written = 0;
    for (const auto& splice : frame.splices()) {
        if (auto ec = co_await write_memory(socket,
                                            memory.subspan(written, splice.memory_offset - written),
                                            splice.range.length > 0))
            co_return ec;
        written = splice.memory_offset;
        if (auto ec = co_await send_file_range(socket, splice.range))
            co_return ec;
    }
    co_return co_await write_memory(socket, memory.subspan(written), false);
}

}  // namespace skiff::broker
