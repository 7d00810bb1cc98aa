// The test-control API's state (docs/control-api.md): the fault rules, the request capture, the
// outage in force and the counters its metrics show. The Broker owns one only when
// control.api.enable is true; otherwise Broker::control() is null and the request path takes
// none of this code. Thread-safe: the control API's HTTP thread changes it, every I/O thread
// reads it.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "broker/control/fault_table.h"
#include "broker/control/request_capture.h"

namespace skiff::broker::control {

enum class OutageMode {
    refuse,     // every connection closed, new ones closed as soon as accepted
    blackhole,  // connections accepted and kept, requests read and never answered
};
std::string_view outage_mode_name(OutageMode mode);

struct Outage {
    OutageMode mode = OutageMode::refuse;
    std::optional<std::string> listener;  // none: every Kafka listener
    std::chrono::milliseconds length{0};
    std::chrono::steady_clock::time_point until;
};

class ControlPlane {
  public:
    explicit ControlPlane(size_t capture_capacity) : capture_(capture_capacity) {}

    FaultTable& faults() { return faults_; }
    RequestCapture& capture() { return capture_; }

    // The server's way to close the Kafka connections of one listener (or of all): set once
    // before any connection is accepted.
    using ConnectionCloser = std::function<size_t(const std::optional<std::string>& listener)>;
    void set_connection_closer(ConnectionCloser closer) { closer_ = std::move(closer); }

    // Starts an outage (replacing one in force) and, in refuse mode, closes the connections it
    // covers; returns how many were closed.
    size_t start_outage(const Outage& outage);
    bool end_outage();
    std::optional<Outage> outage() const;
    // Whether a connection accepted on `listener` now is to be closed at once / whose requests
    // are to be swallowed.
    bool refuses(std::string_view listener) const {
        return quiesced_.load(std::memory_order_acquire) > 0 ||
               covers(listener, OutageMode::refuse);
    }
    // While the state is reset or restored no Kafka request may run: every connection is
    // closed and new ones are refused from begin_quiesce() to end_quiesce().
    size_t begin_quiesce() {
        quiesced_.fetch_add(1, std::memory_order_acq_rel);
        return closer_ ? closer_(std::nullopt) : 0;
    }
    void end_quiesce() { quiesced_.fetch_sub(1, std::memory_order_acq_rel); }
    bool blackholes(std::string_view listener) const {
        return covers(listener, OutageMode::blackhole);
    }

    void count_fired(FaultAction action) {
        fired_[static_cast<size_t>(action)].fetch_add(1, std::memory_order_relaxed);
    }
    uint64_t fired(FaultAction action) const {
        return fired_[static_cast<size_t>(action)].load(std::memory_order_relaxed);
    }
    uint64_t outages_started() const { return outages_.load(std::memory_order_relaxed); }
    void count_connection_refused() { refused_.fetch_add(1, std::memory_order_relaxed); }
    uint64_t connections_refused() const { return refused_.load(std::memory_order_relaxed); }

  private:
    bool covers(std::string_view listener, OutageMode mode) const;

    FaultTable faults_;
    RequestCapture capture_;
    ConnectionCloser closer_;
    mutable std::mutex outage_mutex_;
    std::optional<Outage> outage_;
    std::atomic<bool> outage_active_{false};  // the request path's lock-free check
    std::array<std::atomic<uint64_t>, 5> fired_{};
    std::atomic<uint64_t> outages_{0};
    std::atomic<uint64_t> refused_{0};
    std::atomic<int> quiesced_{0};
};

}  // namespace skiff::broker::control
