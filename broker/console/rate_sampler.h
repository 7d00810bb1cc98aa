// The overview's produce and fetch rates (docs/console-api.md, GET /api/overview): every
// `interval` the sampler reads counters the request path already keeps (the partitions' traffic
// counters and the requests counted by API, both relaxed atomics) and keeps the rates over the
// last `window`. The request path does nothing for it: all the work is here, a few atomic loads
// per partition every interval, on a thread of the console's own.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace skiff::broker {
class Broker;
}

namespace skiff::broker::console {

struct RateSample {
    int64_t time_ms = 0;  // end of the interval the rates are over
    double produce_bytes_per_s = 0;
    double fetch_bytes_per_s = 0;
    double produce_requests_per_s = 0;
    double fetch_requests_per_s = 0;
};

class RateSampler {
  public:
    RateSampler(Broker& broker, std::chrono::milliseconds interval,
                std::chrono::milliseconds window);
    ~RateSampler();  // stops the thread, if started
    RateSampler(const RateSampler&) = delete;
    RateSampler& operator=(const RateSampler&) = delete;

    // Starts sampling every interval on a thread of its own (the first sample one interval
    // from now). Unit tests call sample() instead.
    void start();
    // Reads the counters now and, from the second reading on, records the rates since the last.
    void sample();
    // The samples kept, oldest first.
    std::vector<RateSample> samples() const;
    std::chrono::milliseconds interval() const { return interval_; }

  private:
    struct Counters {
        int64_t time_ms = 0;
        uint64_t produce_bytes = 0, fetch_bytes = 0, produce_requests = 0, fetch_requests = 0;
    };
    Counters read() const;
    void run();

    Broker& broker_;
    const std::chrono::milliseconds interval_;
    const size_t capacity_;  // samples in the window
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;           // guarded by mutex_
    bool have_last_ = false;          // guarded by mutex_
    Counters last_;                   // guarded by mutex_
    std::deque<RateSample> samples_;  // guarded by mutex_
    std::thread thread_;
};

}  // namespace skiff::broker::console
