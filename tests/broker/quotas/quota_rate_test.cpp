// The byte rate of a client quota, measured as Kafka's quota sensors measure it: a burst is spread
// over at least (samples - 1) windows, old windows stop counting, and a violation's throttle time
// is what brings the rate back down to the quota.
#include <gtest/gtest.h>

#include "broker/quotas/quota_rate.h"

namespace skiff::broker::quotas {
namespace {

TEST(QuotaRate, AFirstBurstIsSpreadOverAllButOneWindow) {
    QuotaRate rate(11, 1000);
    rate.record(10000, 5000);
    // 10 windows of 1 s at least: 10000 bytes / 10 s.
    EXPECT_DOUBLE_EQ(rate.rate(5000), 1000.0);
    EXPECT_EQ(rate.window_size_ms(5000), 10000);
}

TEST(QuotaRate, CountsEveryWindowWithinTheSpan) {
    QuotaRate rate(3, 1000);
    rate.record(100, 0);
    rate.record(200, 1000);
    rate.record(300, 2500);
    // Windows started at 0, 1000 and 2500: all three count, over the 2.5 s since the oldest
    // began (already samples - 1 = 2 whole windows, so nothing is added).
    EXPECT_EQ(rate.window_size_ms(2500), 2500);
    EXPECT_DOUBLE_EQ(rate.rate(2500), 600.0 / 2.5);
    // Early in the span it is stretched to 2 whole windows.
    QuotaRate young(3, 1000);
    young.record(100, 0);
    EXPECT_EQ(young.window_size_ms(500), 2500);
}

TEST(QuotaRate, WindowsOlderThanTheSpanStopCounting) {
    QuotaRate rate(3, 1000);
    rate.record(900, 0);
    // 3 windows of 1 s: by 3 s the first window has expired.
    rate.record(30, 3000);
    EXPECT_DOUBLE_EQ(rate.rate(3000), 30.0 / 2.0);
}

TEST(QuotaRate, ANegativeRecordTakesAValueBack) {
    QuotaRate rate(11, 1000);
    rate.record(5000, 0);
    rate.record(-5000, 0);
    EXPECT_DOUBLE_EQ(rate.rate(0), 0.0);
}

TEST(QuotaRate, ThrottleTimeBringsTheRateBackToTheQuota) {
    // Kafka's X = (O - T) / T * W: 2000 B/s observed over 10 s against 1000 B/s means 10 s more.
    EXPECT_EQ(throttle_time_ms(2000, 1000, 10000), 10000);
    EXPECT_EQ(throttle_time_ms(1500, 1000, 10000), 5000);
    EXPECT_EQ(throttle_time_ms(1000, 1000, 10000), 0);
    EXPECT_EQ(throttle_time_ms(500, 1000, 10000), 0);
}

}  // namespace
}  // namespace skiff::broker::quotas
