// Logging of errors that can repeat thousands of times a second: a full disk refuses every
// produce, a misbehaving client sends the same bad request in a loop. The first occurrence of a
// kind is logged at once; repeats within the interval are only counted, and the count is logged
// (with the last message) when the interval is over: at the next occurrence, or from flush(),
// which the maintenance thread calls every second so a burst that stops is still reported.
//
// A kind is a key chosen by the caller from fixed text (the call site and an error code), never
// from client-supplied strings, so the table stays small; it is capped all the same.
//
// Thread-safe: one mutex, taken only on these error paths, never on a successful request.
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace skiff::broker {

class LogThrottle {
  public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::seconds kDefaultInterval{10};
    static constexpr size_t kMaxKinds = 1024;

    explicit LogThrottle(Clock::duration interval = kDefaultInterval) : interval_(interval) {}

    template <class... Args>
    void log(spdlog::level::level_enum level, std::string_view kind,
             spdlog::format_string_t<Args...> format, Args&&... args) {
        emit(level, kind, fmt::format(format, std::forward<Args>(args)...), Clock::now());
    }
    // The formatted message, with an explicit time (tests).
    void emit(spdlog::level::level_enum level, std::string_view kind, std::string message,
              Clock::time_point now);
    // Logs the repeat counts whose interval is over and forgets kinds that went quiet.
    void flush(Clock::time_point now = Clock::now());
    // Repeats counted and not yet logged, over all kinds (tests).
    uint64_t pending() const;

    // The broker's shared instance.
    static LogThrottle& global();

  private:
    struct Kind {
        Clock::time_point window_start;
        uint64_t repeats = 0;  // suppressed since window_start
        spdlog::level::level_enum level = spdlog::level::warn;
        std::string last;  // the newest suppressed message
    };
    void report(const Kind& k) const;

    Clock::duration interval_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Kind> kinds_;
};

}  // namespace skiff::broker
