// One client connection. Three coroutines run on the connection's I/O thread (see
// io_threads.h), so none of them ever runs at the same time as another:
//   read loop   reads pipelined request frames, handles them one at a time in arrival order (as
//               Kafka does) and queues each response;
//   write loop  writes queued responses strictly in order (memory + sendfile ranges);
//   watchdog    closes the connection after connections.max.idle.ms without a request.
// The response queue is bounded: a client that sends faster than it reads stops being read.
//
// Memory: an idle connection holds no read buffer (the read loop waits for readability, not for
// bytes). While requests arrive it reads into a small buffer (kSmallReadBuffer); a frame that
// does not fit gets a buffer of exactly its size, freed as soon as it has been handled. Every
// request's bytes are reserved in the broker-wide RequestBudget (queued.max.request.bytes) from
// the moment its size is known, before a large buffer is allocated, until it has been handled.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/metrics/connection_metrics.h"
#include "broker/net/session.h"
#include "broker/request_context.h"
#include "broker/security/tls_channel.h"
#include "protocol/out_buffer.h"

namespace skiff::broker {

class Broker;
class RequestRouter;
class ConnectionTracker;
class RequestBudget;

class Connection : public std::enable_shared_from_this<Connection> {
  public:
    // `listener`: the name of the listener that accepted the socket. `tls`: the TLS context of
    // an SSL or SASL_SSL listener (the connection starts with the handshake), null otherwise.
    Connection(asio::ip::tcp::socket socket, std::string listener, Broker& broker,
               const RequestRouter& router, ConnectionTracker& tracker, RequestBudget& budget,
               security::SslContextPtr tls = nullptr);
    ~Connection();

    void start();
    // Thread-safe: stop reading new requests, answer what was read, then close.
    void begin_shutdown();
    // Closes the socket now, without answering what is in flight (the control API's outage).
    void abort();
    const std::string& peer() const { return peer_; }
    const std::string& listener() const { return listener_; }

  private:
    // For the request metrics: a request's API and when its frame was read.
    struct Timing {
        int16_t api_key = -1;
        bool long_poll = false;
        std::chrono::steady_clock::time_point started;
    };
    asio::awaitable<void> read_loop();
    asio::awaitable<void> write_loop();
    asio::awaitable<void> idle_watchdog();
    // Handles one complete request frame (without its size prefix). False: close the connection.
    asio::awaitable<bool> process(std::span<const std::byte> frame);
    // Reserves n bytes of the request budget, waiting while it is spent. False: the connection
    // closed while waiting.
    asio::awaitable<bool> reserve(size_t n);
    void release_reservation();
    // Read buffer management (see the class comment).
    void allocate_read_buffer(size_t capacity);
    void free_read_buffer();
    void consume(size_t n);
    void trim_spares();

    std::unique_ptr<protocol::OutBuffer> take_buffer();
    void enqueue(std::unique_ptr<protocol::OutBuffer> response, const Timing& timing);
    void recycle(std::unique_ptr<protocol::OutBuffer> buffer);
    void close_socket();
    // Writes one response: through TLS, or with send(2) and sendfile(2).
    asio::awaitable<std::error_code> write_frame(const protocol::OutBuffer& frame);
    // The TLS handshake, and the principal from the client's certificate. False: close.
    asio::awaitable<bool> start_tls();
    void set_close_reason(metrics::CloseReason reason) {
        if (!close_reason_)
            close_reason_ = reason;
    }
    void observe(const Timing& timing) const;

    asio::ip::tcp::socket socket_;
    const std::string listener_;  // the accepting listener's name (RequestContext::listener)
    Broker& broker_;
    const RequestRouter& router_;
    ConnectionTracker& tracker_;
    RequestBudget& budget_;
    std::string peer_;
    ClientSoftware client_software_;             // from ApiVersions v3+, for log lines
    Session session_;                            // the client's principal and authentication state
    security::SslContextPtr tls_context_;        // SSL / SASL_SSL listeners only
    std::unique_ptr<security::TlsChannel> tls_;  // from start() on, when tls_context_ is set

    // Read buffer: bytes [begin_, end_) of in_[0, in_capacity_) are received and not yet
    // consumed. Not value-initialised: a 20 MiB frame buffer is written by recv, not zeroed first.
    std::unique_ptr<std::byte[]> in_;
    size_t in_capacity_ = 0;
    size_t begin_ = 0;
    size_t end_ = 0;
    size_t reserved_ = 0;  // bytes of the request budget this connection holds

    // Responses waiting for the write loop, each with its timing. One deque: a second one would
    // allocate its first block for every connection, idle ones included (10,000 idle
    // connections, test_connection_memory.py).
    struct Queued {
        std::unique_ptr<protocol::OutBuffer> out;
        Timing timing;
    };
    std::deque<Queued> queue_;
    // Why the connection closes (the first reason given wins), counted when it is destroyed.
    std::optional<metrics::CloseReason> close_reason_;
    std::vector<std::unique_ptr<protocol::OutBuffer>> spare_;  // reused: no allocation per request
    asio::steady_timer queue_signal_;  // timers used as condition variables (cancel = notify)
    asio::steady_timer space_signal_;
    asio::steady_timer budget_signal_;
    asio::steady_timer idle_timer_;
    // Over a client quota: the read loop waits on this before the next request (cancelled when
    // the connection shuts down), for throttle_ms_ set by the request just handled.
    asio::steady_timer mute_timer_;
    int32_t throttle_ms_ = 0;
    std::chrono::steady_clock::time_point last_activity_;
    bool reading_done_ = false;
    bool closed_ = false;
    bool stopping_ = false;
    bool started_ = false;
};

}  // namespace skiff::broker
