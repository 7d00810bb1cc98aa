#include "broker/telemetry/otlp_metrics.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <bit>
#include <charconv>
#include <optional>

namespace skiff::broker::telemetry {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

constexpr auto kVarint = WireFormatLite::WIRETYPE_VARINT;
constexpr auto kFixed64 = WireFormatLite::WIRETYPE_FIXED64;
constexpr auto kLength = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;

// Field numbers (opentelemetry-proto metrics/v1, common/v1, resource/v1).
namespace field {
constexpr int kResourceMetrics = 1;  // MetricsData
constexpr int kResource = 1;         // ResourceMetrics
constexpr int kScopeMetrics = 2;     // ResourceMetrics
constexpr int kResourceAttributes = 1;
constexpr int kMetrics = 2;  // ScopeMetrics
constexpr int kName = 1;     // Metric
constexpr int kGauge = 5;
constexpr int kSum = 7;
constexpr int kHistogram = 9;
constexpr int kExponentialHistogram = 10;
constexpr int kSummary = 11;
constexpr int kDataPoints = 1;   // Gauge, Sum (and the histogram-like ones)
constexpr int kTemporality = 2;  // Sum
constexpr int kMonotonic = 3;    // Sum
constexpr int kAsDouble = 4;     // NumberDataPoint
constexpr int kAsInt = 6;
constexpr int kPointAttributes = 7;
constexpr int kKey = 1;  // KeyValue
constexpr int kValue = 2;
constexpr int kStringValue = 1;  // AnyValue
constexpr int kBoolValue = 2;
constexpr int kIntValue = 3;
constexpr int kDoubleValue = 4;
constexpr int kTemporalityDelta = 1;
}  // namespace field

std::string number_text(double v) {
    char buffer[32];
    auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, r.ptr);
}

constexpr uint32_t kNoResource = UINT32_MAX;

class Reader {
  public:
    Reader(std::span<const std::byte> bytes, const DecodeLimits& limits, MetricsPayload& out)
        : in_(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size())),
          size_(static_cast<int>(bytes.size())),
          limits_(limits),
          out_(out) {}

    bool payload() {
        // The whole input as the outermost message's limit, so the end is found as for nested
        // ones.
        const auto outer = in_.PushLimit(size_);
        const bool ok = fields([&](int number, int type) {
            if (number == field::kResourceMetrics && type == kLength)
                return nested([&] { return resource_metrics(); });
            return skip_or_reject(number, type, {field::kResourceMetrics});
        });
        in_.PopLimit(outer);
        return ok;
    }

    const std::string& error() const { return error_; }

  private:
    // Calls on_field(number, wire type) for each field of the current message until its end.
    template <class F>
    bool fields(F on_field) {
        for (;;) {
            const uint32_t tag = in_.ReadTag();
            if (tag == 0)
                // The end of the message is its limit; a zero tag or a truncated one before it
                // is malformed.
                return in_.BytesUntilLimit() == 0 || fail("malformed field tag");
            const int number = static_cast<int>(WireFormatLite::GetTagFieldNumber(tag));
            const int type = WireFormatLite::GetTagWireType(tag);
            last_tag_ = tag;
            if (!on_field(number, type))
                return false;
        }
    }

    // A known field number with another wire type is malformed; unknown fields are skipped.
    bool skip_or_reject(int number, int /*type*/, std::initializer_list<int> known) {
        for (int k : known)
            if (k == number)
                return fail("field " + std::to_string(number) + " has the wrong wire type");
        return WireFormatLite::SkipField(&in_, last_tag_) || fail("truncated unknown field");
    }

    // Reads a length prefix and parses the message it delimits with `body`.
    template <class F>
    bool nested(F body) {
        uint32_t length = 0;
        if (!in_.ReadVarint32(&length) || static_cast<int64_t>(length) > in_.BytesUntilLimit())
            return fail("length beyond its message");
        const auto limit = in_.PushLimit(static_cast<int>(length));
        const bool ok = body();
        in_.PopLimit(limit);
        return ok;
    }

    // A string field; `dropped` set (and nothing read into `s`) when it is longer than allowed.
    bool string(std::string& s, bool& dropped) {
        uint32_t length = 0;
        if (!in_.ReadVarint32(&length) || static_cast<int64_t>(length) > in_.BytesUntilLimit())
            return fail("string beyond its message");
        if (length > limits_.max_string) {
            dropped = true;
            return in_.Skip(static_cast<int>(length)) || fail("truncated string");
        }
        return in_.ReadString(&s, static_cast<int>(length)) || fail("truncated string");
    }

    bool fixed64(uint64_t& v) { return in_.ReadLittleEndian64(&v) || fail("truncated number"); }
    bool varint(uint64_t& v) { return in_.ReadVarint64(&v) || fail("truncated varint"); }

    // Beyond max_resources, a ResourceMetrics is read (to check it) but its points are skipped.
    bool resource_metrics() {
        uint32_t index = kNoResource;
        if (out_.resources.size() < limits_.max_resources) {
            index = static_cast<uint32_t>(out_.resources.size());
            out_.resources.emplace_back();
        }
        return fields([&](int number, int type) {
            if (number == field::kResource && type == kLength)
                return nested([&] { return resource(index); });
            if (number == field::kScopeMetrics && type == kLength)
                return nested([&] { return scope_metrics(index); });
            return skip_or_reject(number, type, {field::kResource, field::kScopeMetrics});
        });
    }

    bool resource(uint32_t index) {
        return fields([&](int number, int type) {
            if (number == field::kResourceAttributes && type == kLength)
                return nested([&] {
                    return key_value(index == kNoResource ? scratch_ : out_.resources[index]);
                });
            return skip_or_reject(number, type, {field::kResourceAttributes});
        });
    }

    bool scope_metrics(uint32_t resource) {
        return fields([&](int number, int type) {
            if (number == field::kMetrics && type == kLength)
                return nested([&] { return metric(resource); });
            return skip_or_reject(number, type, {field::kMetrics});
        });
    }

    // The name may come after the data on the wire: points are gathered, then named.
    bool metric(uint32_t resource) {
        std::string name;
        bool name_dropped = false;
        std::vector<MetricPoint> points;
        size_t skipped = 0;
        const bool ok = fields([&](int number, int type) {
            if (number == field::kName && type == kLength)
                return string(name, name_dropped);
            if ((number == field::kGauge || number == field::kSum) && type == kLength)
                return nested([&] { return data(number == field::kSum, points, skipped); });
            if ((number == field::kHistogram || number == field::kExponentialHistogram ||
                 number == field::kSummary) &&
                type == kLength)
                return nested([&] { return count_points(skipped); });
            return skip_or_reject(number, type,
                                  {field::kName, field::kGauge, field::kSum, field::kHistogram,
                                   field::kExponentialHistogram, field::kSummary});
        });
        if (!ok)
            return false;
        if (name.empty() || name_dropped || resource == kNoResource) {
            out_.skipped_points += points.size() + skipped;
            return true;
        }
        out_.skipped_points += skipped;
        for (auto& p : points) {
            if (out_.points.size() >= limits_.max_points) {
                ++out_.skipped_points;
                continue;
            }
            p.name = name;
            p.resource = resource;
            out_.points.push_back(std::move(p));
        }
        return true;
    }

    // A Gauge or a Sum: its data points, then (for a Sum) its temporality and monotonicity,
    // which may come in any order.
    bool data(bool sum, std::vector<MetricPoint>& points, size_t& skipped) {
        uint64_t temporality = 0;
        uint64_t monotonic = 0;
        const size_t first = points.size();
        const bool ok = fields([&](int number, int type) {
            if (number == field::kDataPoints && type == kLength)
                return nested([&] { return number_point(points, skipped); });
            if (sum && number == field::kTemporality && type == kVarint)
                return varint(temporality);
            if (sum && number == field::kMonotonic && type == kVarint)
                return varint(monotonic);
            if (sum)
                return skip_or_reject(number, type,
                                      {field::kDataPoints, field::kTemporality, field::kMonotonic});
            return skip_or_reject(number, type, {field::kDataPoints});
        });
        if (!ok)
            return false;
        if (sum && monotonic != 0)
            for (size_t i = first; i < points.size(); ++i) {
                points[i].kind = PointKind::counter;
                points[i].delta = temporality == field::kTemporalityDelta;
            }
        return true;
    }

    bool number_point(std::vector<MetricPoint>& points, size_t& skipped) {
        MetricPoint p;
        bool has_value = false;
        const bool ok = fields([&](int number, int type) {
            if (number == field::kPointAttributes && type == kLength)
                return nested([&] { return key_value(p.attributes); });
            if ((number == field::kAsDouble || number == field::kAsInt) && type == kFixed64) {
                uint64_t bits = 0;
                if (!fixed64(bits))
                    return false;
                p.value = number == field::kAsDouble
                              ? std::bit_cast<double>(bits)
                              : static_cast<double>(static_cast<int64_t>(bits));
                has_value = true;
                return true;
            }
            return skip_or_reject(number, type,
                                  {field::kPointAttributes, field::kAsDouble, field::kAsInt});
        });
        if (!ok)
            return false;
        // Bounded before the metric's name is known, so a payload of one huge metric cannot
        // gather more than max_points either.
        if (!has_value || points.size() >= limits_.max_points)
            ++skipped;
        else
            points.push_back(std::move(p));
        return true;
    }

    // Histogram-like data: only their data points are counted (as skipped).
    bool count_points(size_t& skipped) {
        return fields([&](int number, int type) {
            if (number == field::kDataPoints && type == kLength)
                ++skipped;
            return WireFormatLite::SkipField(&in_, last_tag_) || fail("truncated field");
        });
    }

    // A KeyValue into `attributes`, unless it is over a limit or its value is not a scalar.
    bool key_value(std::vector<Attribute>& attributes) {
        std::string key;
        std::optional<std::string> value;
        bool dropped = false;
        const bool ok = fields([&](int number, int type) {
            if (number == field::kKey && type == kLength)
                return string(key, dropped);
            if (number == field::kValue && type == kLength)
                return nested([&] { return any_value(value, dropped); });
            return skip_or_reject(number, type, {field::kKey, field::kValue});
        });
        if (!ok)
            return false;
        if (!dropped && !key.empty() && value && attributes.size() < limits_.max_attributes)
            attributes.emplace_back(std::move(key), std::move(*value));
        return true;
    }

    bool any_value(std::optional<std::string>& value, bool& dropped) {
        return fields([&](int number, int type) {
            if (number == field::kStringValue && type == kLength) {
                std::string s;
                if (!string(s, dropped))
                    return false;
                value = std::move(s);
                return true;
            }
            if ((number == field::kBoolValue || number == field::kIntValue) && type == kVarint) {
                uint64_t v = 0;
                if (!varint(v))
                    return false;
                value = number == field::kBoolValue ? std::string(v ? "true" : "false")
                                                    : std::to_string(static_cast<int64_t>(v));
                return true;
            }
            if (number == field::kDoubleValue && type == kFixed64) {
                uint64_t bits = 0;
                if (!fixed64(bits))
                    return false;
                value = number_text(std::bit_cast<double>(bits));
                return true;
            }
            // Arrays, key-value lists and bytes are not label values.
            return skip_or_reject(
                number, type,
                {field::kStringValue, field::kBoolValue, field::kIntValue, field::kDoubleValue});
        });
    }

    bool fail(std::string message) {
        if (error_.empty())
            error_ = std::move(message);
        return false;
    }

    CodedInputStream in_;
    int size_;
    const DecodeLimits& limits_;
    MetricsPayload& out_;
    uint32_t last_tag_ = 0;
    std::vector<Attribute> scratch_;  // attributes of resources beyond max_resources
    std::string error_;
};

}  // namespace

Expected<MetricsPayload, std::string> decode_metrics(std::span<const std::byte> bytes,
                                                     const DecodeLimits& limits) {
    MetricsPayload out;
    Reader reader(bytes, limits, out);
    if (!reader.payload())
        return unexpected(reader.error().empty() ? std::string("malformed metrics")
                                                 : reader.error());
    return out;
}

}  // namespace skiff::broker::telemetry
