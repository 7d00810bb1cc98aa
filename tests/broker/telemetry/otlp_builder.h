// Builds OpenTelemetry MetricsData payloads for the tests, field by field with libprotobuf's
// CodedOutputStream (the field numbers of opentelemetry-proto's metrics/v1), so a test can also
// write what no real client would: truncated fields, wrong wire types, huge lengths.
#pragma once

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace skiff::broker::telemetry::test {

using google::protobuf::internal::WireFormatLite;

template <class F>
std::string write(F f) {
    std::string out;
    {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        f(coded);
    }
    return out;
}

inline std::string len(int number, const std::string& body) {
    return write([&](auto& c) {
        c.WriteTag(WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
        c.WriteVarint32(static_cast<uint32_t>(body.size()));
        c.WriteString(body);
    });
}
inline std::string varint(int number, uint64_t v) {
    return write([&](auto& c) {
        c.WriteTag(WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_VARINT));
        c.WriteVarint64(v);
    });
}
inline std::string fixed64(int number, uint64_t v) {
    return write([&](auto& c) {
        c.WriteTag(WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_FIXED64));
        c.WriteLittleEndian64(v);
    });
}

// KeyValue with a string value.
inline std::string attribute(const std::string& key, const std::string& value) {
    return len(1, key) + len(2, len(1, value));
}
// NumberDataPoint: attributes (field 7), as_double (4) or as_int (6).
inline std::string double_point(
    double v, const std::vector<std::pair<std::string, std::string>>& attributes = {}) {
    std::string p;
    for (const auto& [k, val] : attributes)
        p += len(7, attribute(k, val));
    return p + fixed64(4, std::bit_cast<uint64_t>(v));
}
inline std::string int_point(
    int64_t v, const std::vector<std::pair<std::string, std::string>>& attributes = {}) {
    std::string p;
    for (const auto& [k, val] : attributes)
        p += len(7, attribute(k, val));
    return p + fixed64(6, static_cast<uint64_t>(v));
}
// Metric with a Gauge (5) of these points.
inline std::string gauge(const std::string& name, const std::vector<std::string>& points) {
    std::string g;
    for (const auto& p : points)
        g += len(1, p);
    return len(1, name) + len(5, g);
}
// Metric with a Sum (7): temporality 1 delta, 2 cumulative.
inline std::string sum(const std::string& name, const std::vector<std::string>& points,
                       int temporality, bool monotonic = true) {
    std::string s;
    for (const auto& p : points)
        s += len(1, p);
    s += varint(2, static_cast<uint64_t>(temporality)) + varint(3, monotonic ? 1 : 0);
    return len(1, name) + len(7, s);
}
// MetricsData with one ResourceMetrics (resource attributes) of one ScopeMetrics.
inline std::string metrics_data(
    const std::vector<std::string>& metrics,
    const std::vector<std::pair<std::string, std::string>>& resource = {}) {
    std::string r;
    for (const auto& [k, v] : resource)
        r += len(1, attribute(k, v));
    std::string scope = len(1, len(1, "librdkafka"));  // InstrumentationScope name
    for (const auto& m : metrics)
        scope += len(2, m);
    return len(1, len(1, r) + len(2, scope));
}

inline std::span<const std::byte> bytes(const std::string& s) {
    return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

}  // namespace skiff::broker::telemetry::test
