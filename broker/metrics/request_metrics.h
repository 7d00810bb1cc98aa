// Kafka request metrics, updated on the request path without a lock: requests and the error
// codes in their responses by API (counters), and the time from a request's frame being read to
// its response being written, by API (histograms). A Fetch that waited for data (a long poll)
// goes to a histogram of its own, so that fetch.max.wait.ms does not hide the latency of the
// fetches that answered at once. Fixed arrays indexed by API key and error code: nothing is
// allocated or looked up per request.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "broker/metrics/exposition.h"
#include "broker/metrics/histogram.h"
#include "protocol/error_code.h"

namespace skiff::broker::metrics {

class RequestMetrics {
  public:
    static constexpr size_t kApis = 128;  // API keys 0..127 (the router's table)
    // Error codes -1..129 (Kafka's) at code + 1; anything else in the last slot.
    static constexpr size_t kErrorSlots = 132;

    RequestMetrics();

    void count_request(int16_t api_key) {
        if (valid(api_key))
            requests_[index(api_key)].fetch_add(1, std::memory_order_relaxed);
    }
    void count_error(int16_t api_key, protocol::ErrorCode code) {
        if (valid(api_key))
            (*errors_)[index(api_key)][error_slot(code)].fetch_add(1, std::memory_order_relaxed);
    }
    void observe(int16_t api_key, bool long_poll, int64_t ns) {
        if (!valid(api_key))
            return;
        if (long_poll)
            long_poll_.observe_ns(ns);
        else
            (*durations_)[index(api_key)].observe_ns(ns);
    }

    // Requests of `api_key` counted so far (the console's rate sampler reads it).
    uint64_t requests(int16_t api_key) const {
        return valid(api_key) ? requests_[index(api_key)].load(std::memory_order_relaxed) : 0;
    }

    // skiff_requests_total, skiff_request_errors_total, skiff_request_duration_seconds and
    // skiff_fetch_long_poll_duration_seconds, for the APIs requested at least once.
    void write(Exposition& out) const;

  private:
    static bool valid(int16_t api_key) {
        return api_key >= 0 && static_cast<size_t>(api_key) < kApis;
    }
    static size_t index(int16_t api_key) { return static_cast<size_t>(api_key); }
    static size_t error_slot(protocol::ErrorCode code) {
        const int value = static_cast<int>(code) + 1;
        return value >= 0 && static_cast<size_t>(value) < kErrorSlots - 1
                   ? static_cast<size_t>(value)
                   : kErrorSlots - 1;
    }

    std::array<std::atomic<uint64_t>, kApis> requests_{};
    std::unique_ptr<std::array<std::array<std::atomic<uint64_t>, kErrorSlots>, kApis>> errors_;
    std::unique_ptr<std::array<Histogram, kApis>> durations_;
    Histogram long_poll_;
};

}  // namespace skiff::broker::metrics
