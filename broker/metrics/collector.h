// Builds the text of GET /metrics from the broker's state at scrape time: the request and
// connection counters the request path keeps (request_metrics.h, connection_metrics.h), the
// per-topic traffic counters kept with each partition log, and gauges read now (partition
// offsets and sizes, consumer group members and lag, disk space, queued request bytes, process_*).
// Everything here is read with the locks the broker's own readers take, on the metrics thread;
// nothing on the request path waits for a scrape.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace skiff::broker {

class Broker;
class ConnectionTracker;
class RequestBudget;

namespace metrics {

struct ScrapeSources {
    Broker* broker = nullptr;  // null while the logs are being recovered
    const ConnectionTracker* connections = nullptr;
    const RequestBudget* budget = nullptr;
    double recovery_seconds = -1;  // how long opening (and recovering) the logs took
    const std::atomic<uint64_t>* retention_deleted_segments = nullptr;
};

std::string collect(const ScrapeSources& sources);

}  // namespace metrics
}  // namespace skiff::broker
