#include "broker/log_throttle.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>
#include <string>

namespace skiff::broker {
namespace {

using namespace std::chrono_literals;

// Captures what the default logger writes, one message per line.
class CapturedLog {
  public:
    CapturedLog() : previous_(spdlog::default_logger()) {
        auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
        sink->set_pattern("%v");
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
    }
    ~CapturedLog() { spdlog::set_default_logger(previous_); }
    std::vector<std::string> lines() const {
        std::vector<std::string> result;
        std::istringstream in(out_.str());
        for (std::string line; std::getline(in, line);)
            result.push_back(line);
        return result;
    }

  private:
    std::ostringstream out_;
    std::shared_ptr<spdlog::logger> previous_;
};

TEST(LogThrottle, FirstOccurrenceAtOnceThenOneCountPerInterval) {
    CapturedLog captured;
    LogThrottle throttle(10s);
    const auto t0 = LogThrottle::Clock::time_point{} + 1h;
    for (int i = 0; i < 9176; ++i)
        throttle.emit(spdlog::level::err, "append:disk_full", "append failed #" + std::to_string(i),
                      t0 + std::chrono::microseconds(i * 300));
    auto lines = captured.lines();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "append failed #0");
    EXPECT_EQ(throttle.pending(), 9175u);

    throttle.flush(t0 + 5s);  // interval not over: nothing yet
    EXPECT_EQ(captured.lines().size(), 1u);
    throttle.flush(t0 + 10s);
    lines = captured.lines();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[1], "9175 more like this in the last 10 s, the latest: append failed #9175");
    EXPECT_EQ(throttle.pending(), 0u);
}

TEST(LogThrottle, KindsAreCountedApartAndAQuietKindLogsAtOnceAgain) {
    CapturedLog captured;
    LogThrottle throttle(10s);
    const auto t0 = LogThrottle::Clock::time_point{} + 1h;
    throttle.emit(spdlog::level::warn, "a", "a1", t0);
    throttle.emit(spdlog::level::warn, "b", "b1", t0);
    throttle.emit(spdlog::level::warn, "a", "a2", t0 + 1s);
    EXPECT_EQ(captured.lines(), (std::vector<std::string>{"a1", "b1"}));

    // The next "a" after the interval reports the repeat first, then logs itself.
    throttle.emit(spdlog::level::warn, "a", "a3", t0 + 11s);
    auto lines = captured.lines();
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[2], "1 more like this in the last 10 s, the latest: a2");
    EXPECT_EQ(lines[3], "a3");

    // "b" had no repeats: flush forgets it, so its next occurrence is logged at once.
    throttle.flush(t0 + 30s);
    throttle.emit(spdlog::level::warn, "b", "b2", t0 + 31s);
    EXPECT_EQ(captured.lines().back(), "b2");
}

TEST(LogThrottle, KindsBeyondTheCapShareOneEntry) {
    CapturedLog captured;
    LogThrottle throttle(10s);
    const auto t0 = LogThrottle::Clock::time_point{} + 1h;
    for (size_t i = 0; i < LogThrottle::kMaxKinds + 500; ++i)
        throttle.emit(spdlog::level::warn, "kind" + std::to_string(i), "m", t0);
    EXPECT_EQ(captured.lines().size(), LogThrottle::kMaxKinds + 1);
    EXPECT_EQ(throttle.pending(), 499u);
}

}  // namespace
}  // namespace skiff::broker
