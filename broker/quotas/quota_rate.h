// A byte rate measured as Kafka's quota sensors measure it (org.apache.kafka.common.metrics.stats
// Rate over a SampledStat): `samples` windows of `window_ms` each; a value is added to the current
// window, a window older than samples x window_ms counts nothing, and the rate is the sum of the
// windows over the time they span, which is at least samples - 1 whole windows (so a client's
// first burst is spread over ten seconds with Kafka's defaults, not over the milliseconds since it
// started).
#pragma once

#include <cstdint>
#include <vector>

namespace skiff::broker::quotas {

class QuotaRate {
  public:
    QuotaRate(int samples, int64_t window_ms);

    void record(double value, int64_t now_ms);
    // Bytes per second now.
    double rate(int64_t now_ms);
    // The span the rate is taken over, in ms (Kafka's Rate.windowSize): the throttle time of a
    // violation is (rate - quota) / quota x this.
    int64_t window_size_ms(int64_t now_ms);
    // When the rate last counted anything (to drop idle sensors).
    int64_t last_record_ms() const { return last_record_ms_; }

  private:
    struct Sample {
        int64_t start_ms = 0;
        double value = 0;
    };
    void purge_obsolete(int64_t now_ms);

    int samples_;
    int64_t window_ms_;
    std::vector<Sample> windows_;
    size_t current_ = 0;
    int64_t last_record_ms_ = 0;
};

// Kafka's ClientQuotaManager.throttleTime: how long the client must wait for `rate` to come down
// to `quota` if it sent nothing more: (rate - quota) / quota x window.
int64_t throttle_time_ms(double rate, double quota, int64_t window_ms);

}  // namespace skiff::broker::quotas
