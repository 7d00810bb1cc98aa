// The standard process_* metrics every Prometheus client library exports (CPU seconds, resident
// and virtual memory, open and maximum file descriptors, start time), read from /proc at scrape
// time, so that dashboards built for any exporter work with skiff.
#pragma once

#include "broker/metrics/exposition.h"

namespace skiff::broker::metrics {

void write_process_metrics(Exposition& out);

}  // namespace skiff::broker::metrics
