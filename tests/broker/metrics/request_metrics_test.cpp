// Request counters by API and error code, and the two duration histograms.
#include "broker/metrics/request_metrics.h"

#include <gtest/gtest.h>

namespace skiff::broker::metrics {
namespace {

bool has(const std::string& text, const std::string& line) {
    return text.find(line + "\n") != std::string::npos;
}

TEST(RequestMetrics, CountsByApiAndErrorAndTimesApartTheLongPolls) {
    RequestMetrics m;
    m.count_request(0);  // Produce
    m.count_request(0);
    m.count_error(0, protocol::ErrorCode::none);
    m.count_error(0, protocol::ErrorCode::not_leader_or_follower);
    m.count_request(1);  // Fetch
    m.observe(0, false, 1'000'000);
    m.observe(1, true, 400'000'000);
    m.count_request(-5);  // out of range: ignored
    m.count_error(500, protocol::ErrorCode::none);
    m.count_error(0, static_cast<protocol::ErrorCode>(9999));
    Exposition out;
    m.write(out);
    const std::string& t = out.text();
    EXPECT_TRUE(has(t, "skiff_requests_total{api=\"Produce\"} 2")) << t;
    EXPECT_TRUE(has(t, "skiff_requests_total{api=\"Fetch\"} 1")) << t;
    EXPECT_TRUE(has(t, "skiff_request_errors_total{api=\"Produce\",error=\"NONE\"} 1")) << t;
    EXPECT_TRUE(
        has(t, "skiff_request_errors_total{api=\"Produce\",error=\"NOT_LEADER_OR_FOLLOWER\"} 1"))
        << t;
    EXPECT_TRUE(
        has(t, "skiff_request_errors_total{api=\"Produce\",error=\"UNKNOWN_ERROR_CODE\"} 1"))
        << t;
    EXPECT_TRUE(has(t, "skiff_request_duration_seconds_count{api=\"Produce\"} 1")) << t;
    // The long poll is not in Fetch's ordinary histogram.
    EXPECT_TRUE(has(t, "skiff_request_duration_seconds_count{api=\"Fetch\"} 0")) << t;
    EXPECT_TRUE(has(t, "skiff_fetch_long_poll_duration_seconds_count 1")) << t;
    EXPECT_TRUE(has(t, "skiff_fetch_long_poll_duration_seconds_bucket{le=\"0.5\"} 1")) << t;
    EXPECT_TRUE(has(t, "skiff_fetch_long_poll_duration_seconds_bucket{le=\"0.25\"} 0")) << t;
    // APIs never requested are left out.
    EXPECT_EQ(t.find("api=\"Metadata\""), std::string::npos);
}

}  // namespace
}  // namespace skiff::broker::metrics
