#include "broker/metrics/request_metrics.h"

#include <string>

#include "protocol/api_key.h"

namespace skiff::broker::metrics {

RequestMetrics::RequestMetrics()
    : errors_(
          std::make_unique<std::array<std::array<std::atomic<uint64_t>, kErrorSlots>, kApis>>()),
      durations_(std::make_unique<std::array<Histogram, kApis>>()) {}

void RequestMetrics::write(Exposition& out) const {
    std::array<uint64_t, kApis> requests{};
    for (size_t i = 0; i < kApis; ++i)
        requests[i] = requests_[i].load(std::memory_order_relaxed);
    auto api = [](size_t i) { return protocol::api_name(static_cast<protocol::ApiKey>(i)); };

    out.family("skiff_requests_total", "counter", "Kafka requests received, by API.");
    for (size_t i = 0; i < kApis; ++i)
        if (requests[i] > 0)
            out.sample("skiff_requests_total", {{"api", api(i)}}, static_cast<double>(requests[i]));

    out.family("skiff_request_errors_total", "counter",
               "Error codes in Kafka responses, by API and code (NONE included): one per "
               "response, topic or partition carrying one, as Kafka's ErrorsPerSec.");
    for (size_t i = 0; i < kApis; ++i) {
        if (requests[i] == 0)
            continue;
        for (size_t e = 0; e < kErrorSlots; ++e) {
            const uint64_t n = (*errors_)[i][e].load(std::memory_order_relaxed);
            if (n == 0)
                continue;
            const char* name = e + 1 == kErrorSlots
                                   ? "UNKNOWN_ERROR_CODE"
                                   : protocol::error_name(
                                         static_cast<protocol::ErrorCode>(static_cast<int>(e) - 1));
            out.sample("skiff_request_errors_total", {{"api", api(i)}, {"error", name}},
                       static_cast<double>(n));
        }
    }

    out.family("skiff_request_duration_seconds", "histogram",
               "Time from a request's frame being read to its response being written, by API; "
               "long-poll fetches are in skiff_fetch_long_poll_duration_seconds.");
    for (size_t i = 0; i < kApis; ++i)
        if (requests[i] > 0)
            out.histogram("skiff_request_duration_seconds", {{"api", api(i)}},
                          (*durations_)[i].snapshot());

    out.family("skiff_fetch_long_poll_duration_seconds", "histogram",
               "Time of the Fetch requests that waited for data (up to their max wait) from the "
               "frame being read to the response being written.");
    out.histogram("skiff_fetch_long_poll_duration_seconds", {}, long_poll_.snapshot());
}

}  // namespace skiff::broker::metrics
