#include "broker/log_throttle.h"

namespace skiff::broker {

void LogThrottle::emit(spdlog::level::level_enum level, std::string_view kind, std::string message,
                       Clock::time_point now) {
    {
        std::lock_guard lock(mutex_);
        // Past the cap every new kind shares one entry: still logged, still bounded.
        std::string key = kinds_.size() < kMaxKinds || kinds_.count(std::string(kind))
                              ? std::string(kind)
                              : std::string("(other)");
        auto [it, fresh] = kinds_.try_emplace(std::move(key));
        Kind& k = it->second;
        if (!fresh && now - k.window_start < interval_) {
            ++k.repeats;
            k.level = level;
            k.last = std::move(message);
            return;
        }
        if (k.repeats > 0)
            report(k);
        k.window_start = now;
        k.repeats = 0;
        k.last.clear();
    }
    spdlog::log(level, "{}", message);
}

void LogThrottle::flush(Clock::time_point now) {
    std::lock_guard lock(mutex_);
    for (auto it = kinds_.begin(); it != kinds_.end();) {
        Kind& k = it->second;
        if (now - k.window_start < interval_) {
            ++it;
            continue;
        }
        if (k.repeats == 0) {
            it = kinds_.erase(it);  // quiet for a whole interval: the next one logs at once
            continue;
        }
        report(k);
        k.window_start = now;  // the count starts again; a continuing flood logs once per interval
        k.repeats = 0;
        k.last.clear();
        ++it;
    }
}

uint64_t LogThrottle::pending() const {
    std::lock_guard lock(mutex_);
    uint64_t n = 0;
    for (const auto& [key, k] : kinds_)
        n += k.repeats;
    return n;
}

void LogThrottle::report(const Kind& k) const {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(interval_).count();
    spdlog::log(k.level, "{} more like this in the last {} s, the latest: {}", k.repeats, seconds,
                k.last);
}

LogThrottle& LogThrottle::global() {
    static LogThrottle instance;
    return instance;
}

}  // namespace skiff::broker
