// A Prometheus histogram of durations with fixed buckets, updated lock-free from any thread: one
// relaxed atomic add per bucket hit, the sum and the count. Observations are nanoseconds; the
// exposition shows seconds (Prometheus's base unit). A scrape reads the atomics one by one, so it
// may see an observation in _count and not yet in its bucket; Prometheus tolerates that.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace skiff::broker::metrics {

// Upper bounds in seconds: 100 us to 10 s, enough resolution for a produce round trip on one
// machine (sub-millisecond) and for a long-poll fetch (up to fetch.max.wait.ms, 500 ms default).
inline constexpr std::array<double, 15> kDurationBuckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                                            0.005,  0.01,    0.025,  0.05,  0.1,
                                                            0.25,   0.5,     1.0,    2.5,   10.0};

class Histogram {
  public:
    static constexpr size_t kBuckets = kDurationBuckets.size();

    void observe_ns(int64_t ns) {
        if (ns < 0)
            ns = 0;
        size_t i = 0;
        while (i<kBuckets&& static_cast<double>(ns)> kDurationBuckets[i] * 1e9)
            ++i;
        counts_[i].fetch_add(1, std::memory_order_relaxed);  // i == kBuckets: above the last
        sum_ns_.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
    }

    struct Snapshot {
        std::array<uint64_t, kBuckets + 1> cumulative{};  // the last is +Inf, the count
        double sum_seconds = 0;
        uint64_t count() const { return cumulative.back(); }
    };
    Snapshot snapshot() const {
        Snapshot s;
        uint64_t running = 0;
        for (size_t i = 0; i <= kBuckets; ++i) {
            running += counts_[i].load(std::memory_order_relaxed);
            s.cumulative[i] = running;
        }
        s.sum_seconds = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
        return s;
    }

  private:
    std::array<std::atomic<uint64_t>, kBuckets + 1> counts_{};
    std::atomic<uint64_t> sum_ns_{0};
};

}  // namespace skiff::broker::metrics
