#include "broker/net/connection.h"

#include <spdlog/spdlog.h>

#include <sys/socket.h>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "broker/broker.h"
#include "broker/log_throttle.h"
#include "broker/net/connection_tracker.h"
#include "broker/net/request_budget.h"
#include "broker/net/response_writer.h"
#include "broker/net/spawn.h"
#include "broker/net/use_tuple.h"
#include "broker/request_router.h"
#include "protocol/frame.h"

namespace skiff::broker {
namespace {

// Read buffer of a connection that is receiving requests. Big enough for the requests clients
// send all the time (ApiVersions, Metadata, Fetch, Heartbeat, OffsetCommit are well under 1 KiB)
// and for several pipelined ones; a frame that does not fit gets a buffer of its own size. It was
// 64 KiB, allocated for every connection up front and kept while idle: 10,000 idle connections
// then took 700 MB.
constexpr size_t kSmallReadBuffer = size_t{4} * 1024;
// An idle connection keeps at most this many spare response buffers, each at most this large.
constexpr size_t kIdleSpares = 1;
constexpr size_t kIdleSpareCapacity = size_t{4} * 1024;
// Responses queued but not yet written. Past this the read loop waits for the writer, which
// bounds both memory and the number of requests in flight per connection.
constexpr size_t kMaxQueuedResponses = 32;

asio::awaitable<void> wait_signal(asio::steady_timer& t) {
    t.expires_at(asio::steady_timer::time_point::max());
    co_await t.async_wait(use_tuple);
}

// The client's IP address, which ACLs match as the host.
std::string peer_host(const asio::ip::tcp::socket& s) {
    std::error_code ec;
    auto ep = s.remote_endpoint(ec);
    return ec ? std::string() : ep.address().to_string();
}

std::string describe_peer(const asio::ip::tcp::socket& s) {
    std::error_code ec;
    auto ep = s.remote_endpoint(ec);
    if (ec)
        return "unknown peer";
    return ep.address().to_string() + ":" + std::to_string(ep.port());
}

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, std::string listener, Broker& broker,
                       const RequestRouter& router, ConnectionTracker& tracker,
                       RequestBudget& budget, security::SslContextPtr tls)
    : socket_(std::move(socket)),
      listener_(std::move(listener)),
      broker_(broker),
      router_(router),
      tracker_(tracker),
      budget_(budget),
      peer_(describe_peer(socket_)),
      tls_context_(std::move(tls)),
      queue_signal_(socket_.get_executor()),
      space_signal_(socket_.get_executor()),
      budget_signal_(socket_.get_executor()),
      idle_timer_(socket_.get_executor()),
      mute_timer_(socket_.get_executor()),
      last_activity_(std::chrono::steady_clock::now()) {
    static std::atomic<uint64_t> accepted{0};
    session_.connection_id = accepted.fetch_add(1, std::memory_order_relaxed) + 1;
    session_.host = peer_host(socket_);
    session_.security_protocol = broker_.security_protocol(listener_);
    using config::SecurityProtocol;
    session_.authenticated = session_.security_protocol != SecurityProtocol::sasl_plaintext &&
                             session_.security_protocol != SecurityProtocol::sasl_ssl;
}

Connection::~Connection() {
    // A grant that arrived after the read loop stopped waiting is ours too: give everything back.
    budget_.cancel(this);
    release_reservation();
    tracker_.remove(this);
    if (session_.opened_share_session)
        broker_.share_connection_closed(session_.connection_id);
    if (started_)  // a connection refused at max.connections was never served
        broker_.connection_metrics().closed(close_reason_.value_or(metrics::CloseReason::client));
    if (client_software_.name.empty())
        spdlog::debug("connection {} closed", peer_);
    else
        spdlog::debug("connection {} ({} {}) closed", peer_, client_software_.name,
                      client_software_.version);
}

void Connection::start() {
    spdlog::debug("connection {} accepted", peer_);
    started_ = true;
    std::error_code ec;
    socket_.set_option(asio::ip::tcp::no_delay(true), ec);
    socket_.native_non_blocking(true, ec);  // sendfile(2) must never block an I/O thread
    if (int bytes = broker_.config().socket_send_buffer_bytes; bytes > 0)
        socket_.set_option(asio::socket_base::send_buffer_size(bytes), ec);
    if (int bytes = broker_.config().socket_receive_buffer_bytes; bytes > 0)
        socket_.set_option(asio::socket_base::receive_buffer_size(bytes), ec);
    if (tls_context_)
        tls_ = std::make_unique<security::TlsChannel>(tls_context_, socket_);
    auto self = shared_from_this();
    auto ex = socket_.get_executor();
    // A failed loop only costs this connection: logged, and the others keep serving.
    spawn(ex, read_loop(), "connection " + peer_ + ": read loop", {.keep_alive = self});
    spawn(ex, write_loop(), "connection " + peer_ + ": write loop", {.keep_alive = self});
    spawn(ex, idle_watchdog(), "connection " + peer_ + ": idle timer", {.keep_alive = self});
}

void Connection::begin_shutdown() {
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
        self->stopping_ = true;
        self->set_close_reason(metrics::CloseReason::shutdown);
        self->mute_timer_.cancel();
        std::error_code ec;
        // EOF for the read loop; responses already queued are still written.
        self->socket_.shutdown(asio::ip::tcp::socket::shutdown_receive, ec);
    });
}

void Connection::abort() {
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
        self->stopping_ = true;
        self->set_close_reason(metrics::CloseReason::shutdown);
        self->close_socket();
    });
}

asio::awaitable<bool> Connection::start_tls() {
    if (auto failed = co_await tls_->handshake()) {
        // A plaintext client on a TLS port, an untrusted or expired certificate: the client
        // learns it from the handshake; the operator from this line (rate limited per host).
        LogThrottle::global().log(spdlog::level::warn, "tls-handshake:" + session_.host,
                                  "connection {}: TLS handshake failed: {}", peer_, *failed);
        set_close_reason(metrics::CloseReason::protocol_error);
        co_return false;
    }
    // Kafka's default principal for a client certificate: its subject's distinguished name.
    // SASL (SASL_SSL) replaces it with the authenticated user.
    if (auto subject = tls_->peer_subject())
        session_.principal = "User:" + *subject;
    last_activity_ = std::chrono::steady_clock::now();
    co_return true;
}

asio::awaitable<std::error_code> Connection::write_frame(const protocol::OutBuffer& frame) {
    if (tls_)
        co_return co_await tls_->write(frame);
    co_return co_await write_response(socket_, frame);
}

asio::awaitable<void> Connection::read_loop() {
    auto self = shared_from_this();
    const int32_t max_frame = broker_.config().socket_request_max_bytes;
    if (tls_ && !co_await start_tls())
        stopping_ = true;  // skips the loop; the write loop then closes the socket
    while (!stopping_ && !closed_) {
        auto available = std::span<const std::byte>(in_.get() + begin_, end_ - begin_);
        auto frame = protocol::parse_frame(available, max_frame);
        if (frame.status == protocol::FrameParse::Status::error) {
            spdlog::warn("connection {}: {}; closing", peer_, frame.error);
            set_close_reason(metrics::CloseReason::protocol_error);
            break;
        }
        if (frame.status == protocol::FrameParse::Status::complete) {
            const size_t total = 4 + static_cast<size_t>(frame.frame_size);
            // A large frame was reserved when its size became known; a small one that arrived
            // whole is reserved now, before it is handled.
            if (reserved_ == 0 && !co_await reserve(total))
                break;
            bool keep = co_await process(available.subspan(4, total - 4));
            consume(total);
            release_reservation();
            if (!keep)
                break;
            if (throttle_ms_ > 0) {
                // Over a client quota (docs/quotas.md): nothing more is read from this client
                // until its throttle time has passed, as Kafka mutes the channel (KIP-219).
                mute_timer_.expires_after(
                    std::chrono::milliseconds(std::exchange(throttle_ms_, 0)));
                co_await mute_timer_.async_wait(use_tuple);
                last_activity_ = std::chrono::steady_clock::now();
            }
            while (queue_.size() >= kMaxQueuedResponses && !closed_)
                co_await wait_signal(space_signal_);
            continue;
        }
        // Need more bytes. parse_frame has refused sizes over socket.request.max.bytes already.
        const size_t needed =
            available.size() >= 4 ? 4 + static_cast<size_t>(frame.frame_size) : size_t{4};
        if (needed > kSmallReadBuffer) {
            // A large frame: its bytes count against queued.max.request.bytes before its buffer
            // exists, so that many large requests at once wait here instead of allocating.
            if (reserved_ == 0 && !co_await reserve(needed))
                break;
            if (in_capacity_ < needed) {
                auto bigger = std::make_unique_for_overwrite<std::byte[]>(needed);
                std::memcpy(bigger.get(), in_.get() + begin_, end_ - begin_);
                in_ = std::move(bigger);
                in_capacity_ = needed;
                end_ -= begin_;
                begin_ = 0;
            }
        } else if (in_capacity_ == 0) {
            allocate_read_buffer(kSmallReadBuffer);
        } else if (in_capacity_ - begin_ < needed) {
            std::memmove(in_.get(), in_.get() + begin_, end_ - begin_);
            end_ -= begin_;
            begin_ = 0;
        }
        // recv(2) on the non-blocking socket (or a TLS read over it); wait only when nothing is
        // there, so that a busy connection never leaves the loop and an idle one can drop its
        // buffer first.
        auto wait = asio::ip::tcp::socket::wait_read;
        ssize_t n = 0;
        if (tls_) {
            auto r = tls_->read(in_.get() + end_, in_capacity_ - end_);
            if (r.error) {
                spdlog::debug("connection {}: TLS read failed: {}", peer_, *r.error);
                set_close_reason(metrics::CloseReason::io_error);
                break;
            }
            n = r.bytes;
            if (r.wait)
                wait = *r.wait;  // TLS may need to write before it can read
        } else {
            n = ::recv(socket_.native_handle(), in_.get() + end_, in_capacity_ - end_, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                spdlog::debug("connection {}: read failed: {}", peer_, std::strerror(errno));
                set_close_reason(metrics::CloseReason::io_error);
                break;
            }
        }
        if (n > 0) {
            end_ += static_cast<size_t>(n);
            last_activity_ = std::chrono::steady_clock::now();
            continue;
        }
        if (n == 0) {
            set_close_reason(stopping_ ? metrics::CloseReason::shutdown
                                       : metrics::CloseReason::client);
            break;  // EOF
        }
        if (begin_ == end_) {
            // Idle: nothing buffered, nothing reserved. Keep no memory while waiting.
            free_read_buffer();
            trim_spares();
            if (tls_)
                tls_->release_buffers();
        }
        auto [ec] = co_await socket_.async_wait(wait, use_tuple);
        if (ec) {
            if (ec != asio::error::operation_aborted)
                spdlog::debug("connection {}: read wait failed: {}", peer_, ec.message());
            break;
        }
    }
    release_reservation();  // a large frame that never completed
    free_read_buffer();
    reading_done_ = true;
    queue_signal_.cancel();
}

asio::awaitable<bool> Connection::reserve(size_t n) {
    // The grant may come from any I/O thread (whichever finished a request): it is handed to this
    // connection's own thread with a post, which is where reserved_ lives. Weak: a queued grant
    // must not keep a dead connection alive; if the connection is gone, nobody else will give
    // the bytes back, so the callback does.
    auto on_grant = [weak = weak_from_this(), n, &budget = budget_] {
        if (auto c = weak.lock()) {
            auto ex = c->socket_.get_executor();
            asio::post(ex, [c = std::move(c), n] {
                c->reserved_ += n;
                c->budget_signal_.cancel();
            });
        } else {
            budget.release(n);
        }
    };
    if (budget_.acquire_or_wait(n, this, std::move(on_grant))) {
        reserved_ = n;
        co_return true;
    }
    spdlog::debug("connection {}: waiting for {} bytes of queued.max.request.bytes ({} in use)",
                  peer_, n, budget_.used());
    while (reserved_ < n && !closed_)
        co_await wait_signal(budget_signal_);
    if (reserved_ >= n)
        co_return true;
    // Closed while waiting. If the grant was already made, its post adds to reserved_ and the
    // destructor releases it.
    budget_.cancel(this);
    co_return false;
}

void Connection::release_reservation() {
    if (reserved_ > 0) {
        budget_.release(reserved_);
        reserved_ = 0;
    }
}

void Connection::allocate_read_buffer(size_t capacity) {
    in_ = std::make_unique_for_overwrite<std::byte[]>(capacity);
    in_capacity_ = capacity;
    begin_ = end_ = 0;
}

void Connection::free_read_buffer() {
    in_.reset();
    in_capacity_ = 0;
    begin_ = end_ = 0;
}

void Connection::consume(size_t n) {
    begin_ += n;
    if (begin_ < end_)
        return;
    begin_ = end_ = 0;
    // A frame's own buffer goes as soon as the frame has been handled.
    if (in_capacity_ > kSmallReadBuffer)
        free_read_buffer();
}

void Connection::trim_spares() {
    // Spare response buffers are there to avoid an allocation per request on a busy connection;
    // an idle one keeps only a small one.
    while (spare_.size() > kIdleSpares)
        spare_.pop_back();
    if (!spare_.empty() && spare_.back()->capacity() > kIdleSpareCapacity)
        spare_.pop_back();
}

asio::awaitable<bool> Connection::process(std::span<const std::byte> frame) {
    auto out = take_buffer();
    Timing timing{.api_key = -1, .long_poll = false, .started = std::chrono::steady_clock::now()};
    DispatchInfo info;
    const auto result = co_await router_.dispatch(broker_, peer_, listener_, frame, *out,
                                                  &client_software_, &info, &session_);
    timing.api_key = info.api_key;
    timing.long_poll = info.long_poll;
    throttle_ms_ = info.throttle_ms;
    using Result = RequestRouter::Result;
    if (result == Result::close || result == Result::no_response) {
        recycle(std::move(out));
        if (result == Result::no_response)
            observe(timing);  // acks=0: done when handled
        else
            set_close_reason(metrics::CloseReason::protocol_error);
        co_return result == Result::no_response;
    }
    if (result == Result::respond_and_close)
        set_close_reason(metrics::CloseReason::protocol_error);
    // After the response the connection closes: returning false ends the read loop, and the
    // write loop closes the socket once the queue is written.
    const bool keep_open = result == Result::respond;
    // An empty queue means the write loop is idle: nothing is being written (it pops a response
    // only after writing it). A response held in memory (a produce answer, say) is then written
    // here at once. Waking the write loop instead posts a handler that another I/O thread picks
    // up: with one request in flight that hand-over costs two or three context switches per
    // request (measured with perf stat: about 6.8 switches per acks=all produce through the
    // queue, see tests/bench/RESULTS.md). Responses with file ranges still go through the write
    // loop, so a long sendfile never stops this loop from reading the next request.
    if (queue_.empty() && out->splices().empty()) {
        auto ec = co_await write_frame(*out);
        recycle(std::move(out));
        if (ec) {
            spdlog::debug("connection {}: write failed: {}", peer_, ec.message());
            set_close_reason(metrics::CloseReason::io_error);
            co_return false;
        }
        last_activity_ = std::chrono::steady_clock::now();
        observe(timing);
        co_return keep_open;
    }
    enqueue(std::move(out), timing);
    co_return keep_open;
}

asio::awaitable<void> Connection::write_loop() {
    auto self = shared_from_this();
    for (;;) {
        while (queue_.empty() && !reading_done_ && !closed_)
            co_await wait_signal(queue_signal_);
        if (queue_.empty() || closed_)
            break;
        auto ec = co_await write_frame(*queue_.front().out);
        if (ec) {
            spdlog::debug("connection {}: write failed: {}", peer_, ec.message());
            set_close_reason(metrics::CloseReason::io_error);
            break;
        }
        recycle(std::move(queue_.front().out));
        observe(queue_.front().timing);
        queue_.pop_front();
        space_signal_.cancel();
        last_activity_ = std::chrono::steady_clock::now();
    }
    close_socket();
}

asio::awaitable<void> Connection::idle_watchdog() {
    auto self = shared_from_this();
    const auto idle = std::chrono::milliseconds(broker_.config().connections_max_idle_ms);
    while (!closed_) {
        idle_timer_.expires_at(last_activity_ + idle);
        co_await idle_timer_.async_wait(use_tuple);
        if (closed_)
            break;
        if (std::chrono::steady_clock::now() - last_activity_ >= idle && queue_.empty()) {
            spdlog::debug("connection {}: idle for {} ms; closing", peer_, idle.count());
            set_close_reason(metrics::CloseReason::idle);
            close_socket();
        }
    }
}

std::unique_ptr<protocol::OutBuffer> Connection::take_buffer() {
    if (spare_.empty())
        return std::make_unique<protocol::OutBuffer>();
    auto b = std::move(spare_.back());
    spare_.pop_back();
    b->clear();
    return b;
}

void Connection::enqueue(std::unique_ptr<protocol::OutBuffer> response, const Timing& timing) {
    queue_.push_back({std::move(response), timing});
    queue_signal_.cancel();
}

void Connection::recycle(std::unique_ptr<protocol::OutBuffer> buffer) {
    // A buffer that grew for one huge response is not kept: its memory would sit idle.
    constexpr size_t kKeepCapacity = 1 << 20;
    if (spare_.size() < kMaxQueuedResponses && buffer->capacity() < kKeepCapacity) {
        buffer->clear();
        spare_.push_back(std::move(buffer));
    }
}

void Connection::observe(const Timing& timing) const {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - timing.started)
                        .count();
    broker_.request_metrics().observe(timing.api_key, timing.long_poll, ns);
}

void Connection::close_socket() {
    if (closed_)
        return;
    closed_ = true;
    std::error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    queue_signal_.cancel();
    space_signal_.cancel();
    budget_signal_.cancel();
    idle_timer_.cancel();
    mute_timer_.cancel();
}

}  // namespace skiff::broker
