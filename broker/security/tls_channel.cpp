#include "broker/security/tls_channel.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "broker/net/use_tuple.h"

namespace skiff::broker::security {
namespace {

using Wait = asio::socket_base::wait_type;

// What to do after an SSL call returned `ret`: wait for a readiness, stop at the end of the
// stream, or fail with a message.
struct Outcome {
    std::optional<Wait> wait;
    bool eof = false;
    std::optional<std::string> error;
};

Outcome outcome_of(SSL* ssl, int ret) {
    Outcome o;
    switch (SSL_get_error(ssl, ret)) {
        case SSL_ERROR_WANT_READ:
            o.wait = Wait::wait_read;
            break;
        case SSL_ERROR_WANT_WRITE:
            o.wait = Wait::wait_write;
            break;
        case SSL_ERROR_ZERO_RETURN:
            o.eof = true;
            break;
        case SSL_ERROR_SYSCALL:
            if (errno == 0 || errno == ECONNRESET || errno == EPIPE)
                o.eof = true;
            else
                o.error = std::string(std::strerror(errno));
            break;
        default:
            o.error = openssl_errors();
    }
    return o;
}

}  // namespace

TlsChannel::TlsChannel(SslContextPtr ctx, asio::ip::tcp::socket& socket)
    : ctx_(std::move(ctx)), socket_(socket), ssl_(SSL_new(ctx_.get())) {
    if (!ssl_)
        throw std::runtime_error("SSL_new failed: " + openssl_errors());
    SSL_set_fd(ssl_, socket_.native_handle());
    SSL_set_accept_state(ssl_);
}

TlsChannel::~TlsChannel() {
    SSL_free(ssl_);
}

asio::awaitable<std::optional<std::string>> TlsChannel::handshake() {
    for (;;) {
        ERR_clear_error();
        errno = 0;
        const int ret = SSL_do_handshake(ssl_);
        if (ret == 1)
            co_return std::nullopt;
        auto what = outcome_of(ssl_, ret);
        if (what.eof)
            co_return std::string("the client closed the connection during the handshake");
        if (what.error) {
            // A failed certificate check says which check failed.
            const long verify = SSL_get_verify_result(ssl_);
            if (verify != X509_V_OK)
                co_return "client certificate: " +
                    std::string(X509_verify_cert_error_string(verify)) + " (" + *what.error + ")";
            co_return what.error;
        }
        auto [ec] = co_await socket_.async_wait(*what.wait, use_tuple);
        if (ec)
            co_return ec.message();
    }
}

TlsChannel::ReadResult TlsChannel::read(std::byte* buffer, size_t size) {
    ERR_clear_error();
    errno = 0;
    size_t n = 0;
    const int ret = SSL_read_ex(ssl_, buffer, size, &n);
    ReadResult result;
    if (ret == 1) {
        result.bytes = static_cast<ssize_t>(n);
        return result;
    }
    auto what = outcome_of(ssl_, ret);
    if (what.eof)
        return result;  // 0 bytes: the end of the stream
    result.bytes = -1;
    result.wait = what.wait;
    result.error = std::move(what.error);
    return result;
}

asio::awaitable<std::error_code> TlsChannel::write_bytes(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
        ERR_clear_error();
        errno = 0;
        size_t n = 0;
        const int ret = SSL_write_ex(ssl_, bytes.data(), bytes.size(), &n);
        if (ret == 1) {
            bytes = bytes.subspan(n);
            continue;
        }
        auto what = outcome_of(ssl_, ret);
        if (!what.wait)
            co_return std::make_error_code(what.eof ? std::errc::connection_reset
                                                    : std::errc::io_error);
        auto [ec] = co_await socket_.async_wait(*what.wait, use_tuple);
        if (ec)
            co_return ec;
    }
    co_return std::error_code{};
}

asio::awaitable<std::error_code> TlsChannel::flush_staging(size_t& staged) {
    if (staged == 0)
        co_return std::error_code{};
    auto ec = co_await write_bytes(std::span<const std::byte>(staging_.get(), staged));
    staged = 0;
    co_return ec;
}

asio::awaitable<std::error_code> TlsChannel::write_file_range(const protocol::FileRange& range,
                                                              size_t& staged) {
    auto position = static_cast<off_t>(range.position);
    int64_t left = range.length;
    while (left > 0) {
        if (staged == kTlsStagingBytes)
            if (auto ec = co_await flush_staging(staged))
                co_return ec;
        const size_t want =
            std::min<int64_t>(left, static_cast<int64_t>(kTlsStagingBytes - staged));
        const ssize_t n = ::pread(range.fd, staging_.get() + staged, want, position);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            co_return std::error_code(errno, std::generic_category());
        if (n == 0)  // shorter than storage promised: never send a torn frame
            co_return std::make_error_code(std::errc::io_error);
        staged += static_cast<size_t>(n);
        position += n;
        left -= n;
    }
    co_return std::error_code{};
}

asio::awaitable<std::error_code> TlsChannel::stage_memory(std::span<const std::byte> bytes,
                                                          size_t& staged) {
    while (!bytes.empty()) {
        if (staged == kTlsStagingBytes)
            if (auto ec = co_await flush_staging(staged))
                co_return ec;
        const size_t n = std::min(bytes.size(), kTlsStagingBytes - staged);
        std::memcpy(staging_.get() + staged, bytes.data(), n);
        staged += n;
        bytes = bytes.subspan(n);
    }
    co_return std::error_code{};
}

asio::awaitable<std::error_code> TlsChannel::write(const protocol::OutBuffer& frame) {
    auto memory = frame.bytes();
    if (frame.splices().empty())  // a response held in memory: no copy
        co_return co_await write_bytes(memory);
    if (!staging_)
        staging_ = std::make_unique_for_overwrite<std::byte[]>(kTlsStagingBytes);
    // Memory bytes and record bytes are staged together, so that small headers go out in the
    // same TLS record as the record bytes after them.
    size_t staged = 0;
    size_t written = 0;
    for (const auto& splice : frame.splices()) {
        if (auto ec = co_await stage_memory(memory.subspan(written, splice.memory_offset - written),
                                            staged))
            co_return ec;
        written = splice.memory_offset;
        if (auto ec = co_await write_file_range(splice.range, staged))
            co_return ec;
    }
    if (auto ec = co_await stage_memory(memory.subspan(written), staged))
        co_return ec;
    co_return co_await flush_staging(staged);
}

std::optional<std::string> TlsChannel::peer_subject() const {
    X509* cert = SSL_get0_peer_certificate(ssl_);
    if (!cert || SSL_get_verify_result(ssl_) != X509_V_OK)
        return std::nullopt;
    BIO* bio = BIO_new(BIO_s_mem());
    if (!bio)
        return std::nullopt;
    // RFC 2253, as Java's X500Principal.getName() (Kafka's default principal builder) writes it.
    X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio, &data);
    std::string subject(data, static_cast<size_t>(len));
    BIO_free(bio);
    return subject;
}

}  // namespace skiff::broker::security
