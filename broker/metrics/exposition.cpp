#include "broker/metrics/exposition.h"

#include <charconv>
#include <cmath>

namespace skiff::broker::metrics {
namespace {

// HELP text escapes backslash and newline; label values also the double quote.
void append_escaped(std::string& out, std::string_view text, bool quote) {
    for (char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (quote && c == '"')
            out += "\\\"";
        else
            out += c;
    }
}

}  // namespace

std::string format_number(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    char buffer[32];
    // Integral values up to 2^53 print without an exponent or a fraction (counters read best so).
    if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
        auto r = std::to_chars(buffer, buffer + sizeof buffer, static_cast<int64_t>(value));
        return std::string(buffer, r.ptr);
    }
    // As Go's strconv.FormatFloat(v, 'g', -1, 64), which Prometheus's own clients use: plain
    // decimals from 1e-4 up to 1e21, the exponent form outside; shortest round-trip digits.
    const double magnitude = std::fabs(value);
    const auto format = magnitude >= 1e-4 && magnitude < 1e21 ? std::chars_format::fixed
                                                              : std::chars_format::scientific;
    auto r = std::to_chars(buffer, buffer + sizeof buffer, value, format);
    return std::string(buffer, r.ptr);
}

void Exposition::family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    append_escaped(out_, help, false);
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
}

void Exposition::series(std::string_view name, std::string_view suffix,
                        std::span<const Label> labels, std::string_view le) {
    out_ += name;
    out_ += suffix;
    if (labels.size() > 0 || !le.empty()) {
        out_ += '{';
        bool first = true;
        for (const auto& [key, value] : labels) {
            if (!first)
                out_ += ',';
            first = false;
            out_ += key;
            out_ += "=\"";
            append_escaped(out_, value, true);
            out_ += '"';
        }
        if (!le.empty()) {
            if (!first)
                out_ += ',';
            out_ += "le=\"";
            out_ += le;
            out_ += '"';
        }
        out_ += '}';
    }
    out_ += ' ';
}

void Exposition::number(double value) {
    out_ += format_number(value);
    out_ += '\n';
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels, double value) {
    sample(name, std::span<const Label>(labels.begin(), labels.size()), value);
}

void Exposition::sample(std::string_view name, std::span<const Label> labels, double value) {
    series(name, "", labels, "");
    number(value);
}

void Exposition::histogram(std::string_view name, std::initializer_list<Label> list,
                           const Histogram::Snapshot& h) {
    const std::span<const Label> labels(list.begin(), list.size());
    for (size_t i = 0; i < Histogram::kBuckets; ++i) {
        series(name, "_bucket", labels, format_number(kDurationBuckets[i]));
        number(static_cast<double>(h.cumulative[i]));
    }
    series(name, "_bucket", labels, "+Inf");
    number(static_cast<double>(h.count()));
    series(name, "_sum", labels, "");
    number(h.sum_seconds);
    series(name, "_count", labels, "");
    number(static_cast<double>(h.count()));
}

}  // namespace skiff::broker::metrics
