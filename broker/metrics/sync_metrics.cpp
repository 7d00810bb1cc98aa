#include "broker/metrics/sync_metrics.h"

#include "broker/metrics/histogram.h"
#include "storage/sync_timing.h"

namespace skiff::broker::metrics {
namespace {

Histogram& flushes() {
    static Histogram h;
    return h;
}

Histogram& fsyncs() {
    static Histogram h;
    return h;
}

void on_sync(storage::SyncKind kind, int64_t ns) {
    (kind == storage::SyncKind::log_flush ? flushes() : fsyncs()).observe_ns(ns);
}

}  // namespace

void observe_storage_syncs() {
    storage::set_sync_observer(&on_sync);
}

void write_sync_metrics(Exposition& out) {
    out.family("skiff_log_flush_duration_seconds", "histogram",
               "Time of one flush of a partition log: its unflushed segments' data and indexes, "
               "then its directory.");
    out.histogram("skiff_log_flush_duration_seconds", {}, flushes().snapshot());
    out.family("skiff_log_fsync_duration_seconds", "histogram",
               "Time of one fdatasync of a segment's log or index file.");
    out.histogram("skiff_log_fsync_duration_seconds", {}, fsyncs().snapshot());
}

}  // namespace skiff::broker::metrics
