#include "broker/quotas/quota_rate.h"

#include <algorithm>
#include <cmath>

namespace skiff::broker::quotas {

QuotaRate::QuotaRate(int samples, int64_t window_ms)
    : samples_(std::max(samples, 2)), window_ms_(std::max<int64_t>(window_ms, 1)) {}

void QuotaRate::purge_obsolete(int64_t now_ms) {
    const int64_t expire_age = static_cast<int64_t>(samples_) * window_ms_;
    for (auto& w : windows_)
        if (now_ms - w.start_ms >= expire_age)
            w = Sample{now_ms, 0};
}

void QuotaRate::record(double value, int64_t now_ms) {
    last_record_ms_ = now_ms;
    if (windows_.empty()) {
        windows_.push_back({now_ms, 0});
        current_ = 0;
    } else if (now_ms >= windows_[current_].start_ms + window_ms_) {
        // The current window is complete: the next one starts now.
        current_ = (current_ + 1) % static_cast<size_t>(samples_);
        if (current_ >= windows_.size())
            windows_.push_back({now_ms, 0});
        else
            windows_[current_] = Sample{now_ms, 0};
    }
    windows_[current_].value += value;
}

int64_t QuotaRate::window_size_ms(int64_t now_ms) {
    purge_obsolete(now_ms);
    int64_t oldest = now_ms;
    for (const auto& w : windows_)
        oldest = std::min(oldest, w.start_ms);
    int64_t elapsed = now_ms - oldest;
    const int64_t full_windows = elapsed / window_ms_;
    const int64_t min_full_windows = samples_ - 1;
    if (full_windows < min_full_windows)
        elapsed += (min_full_windows - full_windows) * window_ms_;
    return std::max<int64_t>(elapsed, 1);
}

double QuotaRate::rate(int64_t now_ms) {
    const int64_t span = window_size_ms(now_ms);  // purges first
    double total = 0;
    for (const auto& w : windows_)
        total += w.value;
    return total / (static_cast<double>(span) / 1000.0);
}

int64_t throttle_time_ms(double rate, double quota, int64_t window_ms) {
    if (rate <= quota || quota <= 0)
        return 0;
    return std::llround((rate - quota) / quota * static_cast<double>(window_ms));
}

}  // namespace skiff::broker::quotas
