// Writes the Prometheus text exposition format, version 0.0.4: one `# HELP` and one `# TYPE`
// line per family, then its samples; label values and help text escaped as the format says;
// numbers as Go's strconv would print them (shortest round-trip form, +Inf, NaN).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "broker/metrics/histogram.h"

namespace skiff::broker::metrics {

using Label = std::pair<std::string_view, std::string_view>;

class Exposition {
  public:
    // Starts a family: type is counter, gauge or histogram. A counter's name ends in _total.
    void family(std::string_view name, std::string_view type, std::string_view help);
    void sample(std::string_view name, std::initializer_list<Label> labels, double value);
    // The same with labels known only at run time (client telemetry's pushed attributes).
    void sample(std::string_view name, std::span<const Label> labels, double value);
    // A histogram's _bucket (cumulative, le="..."), _sum and _count series.
    void histogram(std::string_view name, std::initializer_list<Label> labels,
                   const Histogram::Snapshot& h);

    const std::string& text() const { return out_; }
    std::string take() { return std::move(out_); }

  private:
    void series(std::string_view name, std::string_view suffix, std::span<const Label> labels,
                std::string_view le);
    void number(double value);

    std::string out_;
};

// The format's number spelling, for tests.
std::string format_number(double value);

}  // namespace skiff::broker::metrics
