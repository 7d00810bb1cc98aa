// The pushed-metrics reader (broker/telemetry/otlp_metrics.h): gauges and sums with their
// attributes and resource attributes, fields in any order and unknown ones skipped, histograms
// counted as skipped; malformed bytes (truncated, lengths beyond their message, wrong wire types,
// zero tags) refused; every limit (points, attributes, string lengths, resources) holding.
#include "broker/telemetry/otlp_metrics.h"

#include <gtest/gtest.h>

#include "otlp_builder.h"

namespace skiff::broker::telemetry::test {
namespace {

TEST(OtlpMetrics, GaugesAndSumsWithAttributes) {
    const std::string payload = metrics_data(
        {gauge("org.apache.kafka.producer.node.request.latency.avg",
               {double_point(12.5, {{"node.id", "1"}})}),
         sum("org.apache.kafka.producer.connection.creation.total", {int_point(3)}, 1)},
        {{"client_rack", "r1"}});
    auto d = decode_metrics(bytes(payload));
    ASSERT_TRUE(d) << d.error();
    ASSERT_EQ(d->resources.size(), 1u);
    EXPECT_EQ(d->resources[0], (std::vector<Attribute>{{"client_rack", "r1"}}));
    ASSERT_EQ(d->points.size(), 2u);
    EXPECT_EQ(d->points[0].name, "org.apache.kafka.producer.node.request.latency.avg");
    EXPECT_EQ(d->points[0].kind, PointKind::gauge);
    EXPECT_EQ(d->points[0].value, 12.5);
    EXPECT_EQ(d->points[0].attributes, (std::vector<Attribute>{{"node.id", "1"}}));
    EXPECT_EQ(d->points[1].kind, PointKind::counter);
    EXPECT_TRUE(d->points[1].delta);
    EXPECT_EQ(d->points[1].value, 3);
    EXPECT_EQ(d->skipped_points, 0u);
}

TEST(OtlpMetrics, NonMonotonicSumIsAGaugeAndCumulativeIsNotDelta) {
    auto d = decode_metrics(bytes(metrics_data(
        {sum("a.updown", {int_point(-2)}, 2, false), sum("a.count", {int_point(7)}, 2)})));
    ASSERT_TRUE(d) << d.error();
    ASSERT_EQ(d->points.size(), 2u);
    EXPECT_EQ(d->points[0].kind, PointKind::gauge);
    EXPECT_EQ(d->points[0].value, -2);
    EXPECT_EQ(d->points[1].kind, PointKind::counter);
    EXPECT_FALSE(d->points[1].delta);
}

TEST(OtlpMetrics, NameAfterDataAndUnknownFieldsSkipped) {
    // Metric: gauge first, then description (2) and unit (3), an unknown varint (99), the name.
    std::string metric = len(5, len(1, double_point(1))) + len(2, "about") + len(3, "ms") +
                         varint(99, 5) + len(1, "late.name");
    auto d = decode_metrics(bytes(metrics_data({metric})));
    ASSERT_TRUE(d) << d.error();
    ASSERT_EQ(d->points.size(), 1u);
    EXPECT_EQ(d->points[0].name, "late.name");
}

TEST(OtlpMetrics, AttributeValuesOfEveryScalarType) {
    std::string point = len(7, len(1, "b") + len(2, varint(2, 1))) +
                        len(7, len(1, "i") + len(2, varint(3, static_cast<uint64_t>(-4)))) +
                        len(7, len(1, "d") + len(2, fixed64(4, std::bit_cast<uint64_t>(0.5)))) +
                        len(7, len(1, "list") + len(2, len(5, ""))) +  // an array: dropped
                        fixed64(4, std::bit_cast<uint64_t>(1.0));
    auto d = decode_metrics(bytes(metrics_data({gauge("g", {point})})));
    ASSERT_TRUE(d) << d.error();
    ASSERT_EQ(d->points.size(), 1u);
    EXPECT_EQ(d->points[0].attributes,
              (std::vector<Attribute>{{"b", "true"}, {"i", "-4"}, {"d", "0.5"}}));
}

TEST(OtlpMetrics, HistogramsAndSummariesAreSkippedAndCounted) {
    std::string histogram = len(1, "h") + len(9, len(1, "") + len(1, "") + varint(2, 1));
    std::string summary = len(1, "s") + len(11, len(1, ""));
    auto d = decode_metrics(bytes(metrics_data({histogram, summary, gauge("g", {int_point(1)})})));
    ASSERT_TRUE(d) << d.error();
    EXPECT_EQ(d->points.size(), 1u);
    EXPECT_EQ(d->skipped_points, 3u);
}

TEST(OtlpMetrics, PointsWithoutValueOrNameAreSkipped) {
    auto d = decode_metrics(bytes(
        metrics_data({gauge("g", {len(7, attribute("a", "b"))}), gauge("", {int_point(1)})})));
    ASSERT_TRUE(d) << d.error();
    EXPECT_TRUE(d->points.empty());
    EXPECT_EQ(d->skipped_points, 2u);
}

TEST(OtlpMetrics, EmptyPayloadHasNoPoints) {
    auto d = decode_metrics({});
    ASSERT_TRUE(d);
    EXPECT_TRUE(d->points.empty());
}

TEST(OtlpMetrics, TruncatedPayloadsAreRefusedAtEveryLength) {
    const std::string payload = metrics_data(
        {gauge("org.apache.kafka.x", {double_point(1, {{"node.id", "1"}})})}, {{"k", "v"}});
    // Every proper prefix ends inside some field (the payload is one ResourceMetrics).
    for (size_t n = 1; n < payload.size(); ++n) {
        auto d = decode_metrics(bytes(payload.substr(0, n)));
        EXPECT_FALSE(d) << "prefix of " << n << " bytes accepted";
    }
}

TEST(OtlpMetrics, MalformedPayloadsAreRefused) {
    // A length beyond the input.
    std::string beyond = "\x0a\x7f" + std::string(3, 'x');
    EXPECT_FALSE(decode_metrics(bytes(beyond)));
    // A zero tag.
    EXPECT_FALSE(decode_metrics(bytes(std::string("\x00\x00", 2))));
    // resource_metrics (1) as a varint: a known field of the wrong wire type.
    EXPECT_FALSE(decode_metrics(bytes(varint(1, 3))));
    // A nested length beyond its parent's.
    std::string inner = len(2, "abc");
    std::string lying = inner;
    lying[1] = 10;  // says 10 bytes, has 3
    EXPECT_FALSE(decode_metrics(bytes(len(1, lying))));
    // A varint that never ends.
    EXPECT_FALSE(decode_metrics(bytes(std::string("\x08") + std::string(11, '\xff'))));
    // A group wire type with no end.
    EXPECT_FALSE(decode_metrics(bytes(std::string("\x0b"))));
    // Random garbage.
    EXPECT_FALSE(decode_metrics(bytes("this is not a protobuf")));
}

TEST(OtlpMetrics, DeeplyNestedGroupsInUnknownFieldsAreRefusedNotRecursedForever) {
    // Unknown field 15 as a start-group, 100,000 times nested: libprotobuf's recursion limit.
    std::string nested(100000, '\x7b');  // tag (15 << 3) | 3
    EXPECT_FALSE(decode_metrics(bytes(nested)));
}

TEST(OtlpMetrics, PointLimitHolds) {
    std::vector<std::string> points;
    for (int i = 0; i < 50; ++i)
        points.push_back(int_point(i, {{"n", std::to_string(i)}}));
    DecodeLimits limits;
    limits.max_points = 10;
    auto d = decode_metrics(bytes(metrics_data({gauge("a", points), gauge("b", points)})), limits);
    ASSERT_TRUE(d) << d.error();
    EXPECT_EQ(d->points.size(), 10u);
    EXPECT_EQ(d->skipped_points, 90u);
}

TEST(OtlpMetrics, AttributeAndStringLimitsHold) {
    DecodeLimits limits;
    limits.max_attributes = 2;
    limits.max_string = 8;
    auto d = decode_metrics(bytes(metrics_data({gauge("g", {int_point(1, {{"a", "1"},
                                                                          {"long-key-x", "2"},
                                                                          {"b", "long-value"},
                                                                          {"c", "3"},
                                                                          {"d", "4"}})}),
                                                gauge("a.very.long.name", {int_point(2)})})),
                            limits);
    ASSERT_TRUE(d) << d.error();
    ASSERT_EQ(d->points.size(), 1u);
    EXPECT_EQ(d->points[0].attributes, (std::vector<Attribute>{{"a", "1"}, {"c", "3"}}));
    EXPECT_EQ(d->skipped_points, 1u);  // the over-long name
}

TEST(OtlpMetrics, ResourceLimitHolds) {
    const std::string one = metrics_data({gauge("g", {int_point(1)})}, {{"k", "v"}});
    std::string payload;
    for (int i = 0; i < 5; ++i)
        payload += one;  // repeated field 1: five ResourceMetrics
    DecodeLimits limits;
    limits.max_resources = 2;
    auto d = decode_metrics(bytes(payload), limits);
    ASSERT_TRUE(d) << d.error();
    EXPECT_EQ(d->resources.size(), 2u);
    EXPECT_EQ(d->points.size(), 2u);
    EXPECT_EQ(d->skipped_points, 3u);
}

}  // namespace
}  // namespace skiff::broker::telemetry::test
