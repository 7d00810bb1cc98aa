// TLS on one client connection: OpenSSL's SSL object over the connection's non-blocking socket,
// driven the way the connection drives a plaintext socket (try the call, wait for readiness only
// when OpenSSL asks for it), so one read loop and one write loop serve both.
//
// The handshake runs before the first request is read. Afterwards read() gives decrypted bytes
// (or says which readiness to wait for) and write() sends a response: memory bytes directly,
// record bytes from segment files through a per-connection staging buffer (TLS needs the bytes
// in user space, so sendfile(2) cannot be used; the copy is per chunk of up to
// kTlsStagingBytes, never per record). The read and write loops run on the connection's one
// I/O thread and never at the same time, as OpenSSL requires of one SSL object.
#pragma once

#include <openssl/ssl.h>

#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>

#include "broker/security/tls_context.h"
#include "protocol/out_buffer.h"

namespace skiff::broker::security {

// Size of the buffer record bytes are read into before encryption: several TLS records (16 KiB
// each) per pass, few enough syscalls.
inline constexpr size_t kTlsStagingBytes = size_t{256} * 1024;

class TlsChannel {
  public:
    // The socket must be non-blocking; it must outlive the channel.
    TlsChannel(SslContextPtr ctx, asio::ip::tcp::socket& socket);
    ~TlsChannel();
    TlsChannel(const TlsChannel&) = delete;
    TlsChannel& operator=(const TlsChannel&) = delete;

    // The server side of the handshake. On failure the message says why (a client speaking
    // plaintext, an untrusted or expired certificate, no shared protocol version or cipher).
    asio::awaitable<std::optional<std::string>> handshake();

    // One read: bytes (> 0), 0 at the end of the stream, or -1 with `wait` set to the readiness
    // to wait for (read or write) or `error` set.
    struct ReadResult {
        ssize_t bytes = 0;
        std::optional<asio::socket_base::wait_type> wait;
        std::optional<std::string> error;
    };
    ReadResult read(std::byte* buffer, size_t size);

    // Writes a whole response frame: memory bytes and file ranges, in order.
    asio::awaitable<std::error_code> write(const protocol::OutBuffer& frame);

    // The subject of the client's certificate in RFC 2253 form ("CN=alice,O=Example"), when the
    // client sent one that verified.
    std::optional<std::string> peer_subject() const;

    // Gives back the staging buffer (an idle connection keeps no memory for it).
    void release_buffers() { staging_.reset(); }

  private:
    asio::awaitable<std::error_code> write_bytes(std::span<const std::byte> bytes);
    asio::awaitable<std::error_code> write_file_range(const protocol::FileRange& range,
                                                      size_t& staged);
    asio::awaitable<std::error_code> flush_staging(size_t& staged);
    asio::awaitable<std::error_code> stage_memory(std::span<const std::byte> bytes, size_t& staged);

    SslContextPtr ctx_;  // kept alive for this connection across reloads
    asio::ip::tcp::socket& socket_;
    SSL* ssl_ = nullptr;
    std::unique_ptr<std::byte[]> staging_;
};

}  // namespace skiff::broker::security
