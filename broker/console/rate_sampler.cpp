#include "broker/console/rate_sampler.h"

#include <algorithm>

#include "broker/broker.h"
#include "protocol/api_key.h"
#include "storage/log_config.h"

namespace skiff::broker::console {

RateSampler::RateSampler(Broker& broker, std::chrono::milliseconds interval,
                         std::chrono::milliseconds window)
    : broker_(broker),
      interval_(std::max(interval, std::chrono::milliseconds(1))),
      capacity_(static_cast<size_t>(std::max<int64_t>(1, window.count() / interval_.count()))) {}

RateSampler::~RateSampler() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable())
        thread_.join();
}

void RateSampler::start() {
    if (thread_.joinable())
        return;
    sample();  // the baseline, so the first rates come one interval from now
    thread_ = std::thread([this] { run(); });
}

void RateSampler::run() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (wake_.wait_for(lock, interval_, [this] { return stopping_; }))
            break;
        lock.unlock();
        sample();
        lock.lock();
    }
}

RateSampler::Counters RateSampler::read() const {
    Counters c;
    c.time_ms = storage::wall_clock_ms();
    for (const auto& entry : broker_.logs().logs()) {
        const auto& traffic = entry.second->traffic();
        c.produce_bytes += traffic.bytes_produced.load(std::memory_order_relaxed);
        c.fetch_bytes += traffic.bytes_fetched.load(std::memory_order_relaxed);
    }
    auto& requests = broker_.request_metrics();
    c.produce_requests = requests.requests(static_cast<int16_t>(protocol::ApiKey::produce));
    c.fetch_requests = requests.requests(static_cast<int16_t>(protocol::ApiKey::fetch));
    return c;
}

namespace {

// Per second over `ms` (at least 1: two readings within the same millisecond); a counter that
// went down (a deleted topic's partitions left the sum) counts as no traffic rather than a
// negative rate.
double rate(uint64_t now, uint64_t before, int64_t ms) {
    if (now <= before)
        return 0.0;
    ms = std::max<int64_t>(ms, 1);
    return static_cast<double>(now - before) * 1000.0 / static_cast<double>(ms);
}

}  // namespace

void RateSampler::sample() {
    const Counters now = read();
    std::lock_guard lock(mutex_);
    if (have_last_) {
        const int64_t ms = now.time_ms - last_.time_ms;
        samples_.push_back({now.time_ms, rate(now.produce_bytes, last_.produce_bytes, ms),
                            rate(now.fetch_bytes, last_.fetch_bytes, ms),
                            rate(now.produce_requests, last_.produce_requests, ms),
                            rate(now.fetch_requests, last_.fetch_requests, ms)});
        while (samples_.size() > capacity_)
            samples_.pop_front();
    }
    last_ = now;
    have_last_ = true;
}

std::vector<RateSample> RateSampler::samples() const {
    std::lock_guard lock(mutex_);
    return {samples_.begin(), samples_.end()};
}

}  // namespace skiff::broker::console
