// Client connections for the metrics: accepted, refused at max.connections, and closed by reason,
// as relaxed atomic counters (one update per connection, none per request).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "broker/metrics/exposition.h"

namespace skiff::broker::metrics {

enum class CloseReason : uint8_t {
    client,          // the client closed it (EOF)
    idle,            // connections.max.idle.ms passed
    protocol_error,  // a malformed or unsupported request, or a failed acks=0 produce
    io_error,        // a read or write failed (reset by the peer, ...)
    shutdown,        // the broker is stopping
};
inline constexpr std::array<std::string_view, 5> kCloseReasonNames = {
    "client", "idle", "protocol_error", "io_error", "shutdown"};

class ConnectionMetrics {
  public:
    void accepted() { accepted_.fetch_add(1, std::memory_order_relaxed); }
    void refused() { refused_.fetch_add(1, std::memory_order_relaxed); }
    void closed(CloseReason reason) {
        closed_[static_cast<size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
    }

    // skiff_connections_accepted_total, skiff_connections_refused_total and
    // skiff_connections_closed_total{reason}; the open count is the caller's (it owns the
    // tracker).
    void write(Exposition& out) const {
        out.family("skiff_connections_accepted_total", "counter",
                   "Client connections accepted on the Kafka listeners.");
        out.sample("skiff_connections_accepted_total", {},
                   static_cast<double>(accepted_.load(std::memory_order_relaxed)));
        out.family("skiff_connections_refused_total", "counter",
                   "Client connections closed at once because max.connections was reached.");
        out.sample("skiff_connections_refused_total", {},
                   static_cast<double>(refused_.load(std::memory_order_relaxed)));
        out.family("skiff_connections_closed_total", "counter",
                   "Client connections closed, by reason.");
        for (size_t i = 0; i < kCloseReasonNames.size(); ++i)
            out.sample("skiff_connections_closed_total", {{"reason", kCloseReasonNames[i]}},
                       static_cast<double>(closed_[i].load(std::memory_order_relaxed)));
    }

  private:
    std::atomic<uint64_t> accepted_{0};
    std::atomic<uint64_t> refused_{0};
    std::array<std::atomic<uint64_t>, kCloseReasonNames.size()> closed_{};
};

}  // namespace skiff::broker::metrics
