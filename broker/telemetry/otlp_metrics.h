// Reads the metrics a client pushes (KIP-714's PushTelemetry payload): an OpenTelemetry
// MetricsData protobuf, ResourceMetrics -> ScopeMetrics -> Metric -> data points. Only what the
// Prometheus exposition needs is kept: resource attributes, and per data point of a Gauge or a
// Sum its metric name, attributes and value. Histograms, exponential histograms and summaries
// are skipped (counted), as are exemplars, descriptions, units, scopes and timestamps.
//
// The wire format is read with libprotobuf's CodedInputStream, without generated classes: the
// field numbers below are opentelemetry-proto's metrics/v1, common/v1 and resource/v1. Unknown
// fields are skipped as protobuf does. The nesting is fixed by this reader (no recursion into
// AnyValue arrays or key-value lists, which are dropped), so a payload cannot nest it deeper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "protocol/expected.h"

namespace skiff::broker::telemetry {

// Key and value (strings as they are; bools, ints and doubles in their text form).
using Attribute = std::pair<std::string, std::string>;

enum class PointKind {
    gauge,    // a Gauge, or a Sum that is not monotonic (it can go down)
    counter,  // a monotonic Sum
};

struct MetricPoint {
    std::string name;  // as pushed, e.g. org.apache.kafka.producer.node.request.latency.avg
    PointKind kind = PointKind::gauge;
    bool delta = false;  // a counter with delta temporality: add it to what was pushed before
    std::vector<Attribute> attributes;
    double value = 0;
    uint32_t resource = 0;  // index into MetricsPayload::resources
};

struct MetricsPayload {
    std::vector<std::vector<Attribute>> resources;  // one per ResourceMetrics
    std::vector<MetricPoint> points;
    // Data points left out: of histogram-like metrics, beyond max_points, with an over-long or
    // empty name, or without a value.
    size_t skipped_points = 0;
};

struct DecodeLimits {
    size_t max_points = 2000;    // data points kept per payload
    size_t max_resources = 16;   // ResourceMetrics kept; the points of further ones skipped
    size_t max_attributes = 16;  // per data point and per resource; the rest are dropped
    size_t max_string = 256;     // longer names, keys and values are dropped (their point or
                                 // attribute), never truncated into a different series
};

// Fails (with a message) on bytes that are not a well-formed protobuf of that shape: a truncated
// field, a length beyond its message, a known field of the wrong wire type, a zero tag.
Expected<MetricsPayload, std::string> decode_metrics(std::span<const std::byte> bytes,
                                                     const DecodeLimits& limits = {});

}  // namespace skiff::broker::telemetry
