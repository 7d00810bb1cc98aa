// The Prometheus text format as skiff writes it: HELP/TYPE lines, escaping, number spelling and
// histogram series.
#include "broker/metrics/exposition.h"

#include <gtest/gtest.h>

namespace skiff::broker::metrics {
namespace {

TEST(Exposition, NumbersAsPrometheusReadsThem) {
    EXPECT_EQ(format_number(0), "0");
    EXPECT_EQ(format_number(42), "42");
    EXPECT_EQ(format_number(-3), "-3");
    EXPECT_EQ(format_number(0.25), "0.25");
    EXPECT_EQ(format_number(1e-4), "0.0001");
    EXPECT_EQ(format_number(1.0 / 0.0), "+Inf");
    EXPECT_EQ(format_number(-1.0 / 0.0), "-Inf");
    EXPECT_EQ(format_number(0.0 / 0.0), "NaN");
    EXPECT_EQ(format_number(123456789012.0), "123456789012");
}

TEST(Exposition, FamilySamplesAndEscaping) {
    Exposition out;
    out.family("skiff_x_total", "counter", "Help with a \\ and a\nnewline.");
    out.sample("skiff_x_total", {{"topic", "a\"b\\c\nd"}, {"partition", "0"}}, 7);
    out.sample("skiff_x_total", {}, 1.5);
    EXPECT_EQ(out.text(),
              "# HELP skiff_x_total Help with a \\\\ and a\\nnewline.\n"
              "# TYPE skiff_x_total counter\n"
              "skiff_x_total{topic=\"a\\\"b\\\\c\\nd\",partition=\"0\"} 7\n"
              "skiff_x_total 1.5\n");
}

TEST(Exposition, HistogramBucketsAreCumulativeInSeconds) {
    Histogram h;
    h.observe_ns(50'000);          // 50 us: the first bucket (100 us)
    h.observe_ns(2'000'000);       // 2 ms: le 0.0025
    h.observe_ns(20'000'000'000);  // 20 s: only +Inf
    Exposition out;
    out.histogram("skiff_d_seconds", {{"api", "Produce"}}, h.snapshot());
    const std::string& t = out.text();
    EXPECT_NE(t.find("skiff_d_seconds_bucket{api=\"Produce\",le=\"0.0001\"} 1\n"),
              std::string::npos);
    EXPECT_NE(t.find("skiff_d_seconds_bucket{api=\"Produce\",le=\"0.001\"} 1\n"),
              std::string::npos);
    EXPECT_NE(t.find("skiff_d_seconds_bucket{api=\"Produce\",le=\"0.0025\"} 2\n"),
              std::string::npos);
    EXPECT_NE(t.find("skiff_d_seconds_bucket{api=\"Produce\",le=\"10\"} 2\n"), std::string::npos);
    EXPECT_NE(t.find("skiff_d_seconds_bucket{api=\"Produce\",le=\"+Inf\"} 3\n"), std::string::npos);
    EXPECT_NE(t.find("skiff_d_seconds_sum{api=\"Produce\"} 20.00205\n"), std::string::npos);
    EXPECT_NE(t.find("skiff_d_seconds_count{api=\"Produce\"} 3\n"), std::string::npos);
}

}  // namespace
}  // namespace skiff::broker::metrics
