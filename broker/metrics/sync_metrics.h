// Flush and fsync durations of the partition logs (storage/sync_timing.h) as histograms:
// skiff_log_flush_duration_seconds (one flush of a partition log) and
// skiff_log_fsync_duration_seconds (one fdatasync of a segment file). Process-wide, like the
// storage hook they listen to.
#pragma once

#include "broker/metrics/exposition.h"

namespace skiff::broker::metrics {

// Makes storage report its flushes and fsyncs here (idempotent).
void observe_storage_syncs();
void write_sync_metrics(Exposition& out);

}  // namespace skiff::broker::metrics
