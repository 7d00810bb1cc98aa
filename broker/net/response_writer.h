// Writes one response frame to a client socket. The frame's memory bytes (size prefix, headers,
// every non-record field) go out with ordinary writes; each file range of record data goes from
// the segment file straight to the socket with sendfile(2), so record bytes never pass through
// user space on the fetch path.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <system_error>

#include "protocol/out_buffer.h"

namespace skiff::broker {

// The socket must be in non-blocking mode (native_non_blocking(true)).
asio::awaitable<std::error_code> write_response(asio::ip::tcp::socket& socket,
                                                const protocol::OutBuffer& frame);

}  // namespace skiff::broker
