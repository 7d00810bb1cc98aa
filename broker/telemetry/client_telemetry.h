// KIP-714 on skiff: the subscription handed to clients (GetTelemetrySubscriptions), the checks of
// their pushes (PushTelemetry) with Kafka's ClientMetricsManager's errors, and the metrics they
// pushed, kept per client instance for the Prometheus scrape (docs/client-telemetry.md).
//
// Kafka hands pushes to a ClientTelemetry plugin; skiff keeps the last value of each pushed
// series (delta sums added up) and writes them at scrape time as
//   skiff_client_<metric name, dots as underscores>{client_id, client_instance_id,
//     client_software_name, client_software_version, <resource and point attributes>}
// Bounded: client.telemetry.max.clients instances (the one heard from longest ago is dropped for
// a new one), kMaxSeriesPerClient series each, telemetry.max.bytes per push; an instance not
// heard from for 3 push intervals (at least 60 s, Kafka's cache expiry) is forgotten.
//
// Thread-safe: handlers on every I/O thread and the scrape on the metrics thread share it (one
// mutex; pushes come every push interval per client, not per record).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "broker/telemetry/otlp_metrics.h"
#include "protocol/error_code.h"
#include "protocol/get_telemetry_subscriptions.h"
#include "protocol/push_telemetry.h"

namespace skiff::config {
struct BrokerConfig;
}

namespace skiff::broker::metrics {
class Exposition;
}

namespace skiff::broker::telemetry {

struct TelemetrySettings {
    std::vector<std::string> metrics;  // prefixes; "" alone: all (the wire's spelling of *)
    int32_t push_interval_ms = 30000;
    int32_t max_bytes = 1048576;
    size_t max_clients = 1000;
};

// From client.telemetry.metrics, client.telemetry.push.interval.ms, telemetry.max.bytes and
// client.telemetry.max.clients.
TelemetrySettings telemetry_settings(const config::BrokerConfig& config);

// Who the client says it is: the request header's client id, ApiVersions v3's software.
struct ClientIdentity {
    std::string client_id;
    std::string software_name;
    std::string software_version;
};

inline constexpr size_t kMaxSeriesPerClient = 2000;
// A decompressed push may be this many times telemetry.max.bytes, no more (TELEMETRY_TOO_LARGE).
inline constexpr size_t kMaxInflation = 16;

class ClientTelemetry {
  public:
    using Clock = std::function<int64_t()>;  // milliseconds, monotonic
    explicit ClientTelemetry(TelemetrySettings settings, Clock now = {});

    protocol::GetTelemetrySubscriptionsResponse get_subscriptions(
        const protocol::GetTelemetrySubscriptionsRequest& request, const ClientIdentity& who);
    protocol::ErrorCode push(const protocol::PushTelemetryRequest& request,
                             const ClientIdentity& who);

    // The skiff_client_telemetry_* families and every kept client series. Forgets expired
    // instances first.
    void write(metrics::Exposition& out);

    // For tests: how many instances are kept, and the kept value of one series (its family name
    // and the labels after the four identity labels, in order), or nullopt.
    size_t clients();
    std::optional<double> value(const protocol::Uuid& instance, const std::string& family,
                                const std::vector<Attribute>& labels);

  private:
    using Key = std::array<uint8_t, 16>;
    struct Series {
        std::string family;  // Prometheus name (counters end in _total)
        std::string source;  // the metric name as pushed
        bool counter = false;
        std::vector<Attribute> labels;  // sanitized names, after the identity labels
        double value = 0;
    };
    struct Instance {
        std::string id_text;  // base64url, as Kafka prints a Uuid
        ClientIdentity who;
        int32_t subscription_id = 0;
        int64_t last_get_ms = -1;
        int64_t last_push_ms = -1;
        int64_t last_seen_ms = 0;
        bool terminating = false;
        protocol::ErrorCode last_error = protocol::ErrorCode::none;
        std::map<std::string, Series> series;  // by family and labels
    };

    int64_t now() const;
    int64_t expiry_ms() const;
    void expire(int64_t now);
    Instance& admit(const Key& key, int64_t now);  // a new instance, dropping the oldest if full
    void apply(Instance& instance, const MetricsPayload& payload);

    TelemetrySettings settings_;
    Clock clock_;
    int32_t subscription_crc_ = 0;  // of the metrics and the interval, as Kafka computes it
    std::mutex mutex_;
    std::map<Key, Instance> instances_;
    uint64_t dropped_full_ = 0;
    uint64_t dropped_expired_ = 0;
    uint64_t series_dropped_ = 0;
    uint64_t points_skipped_ = 0;
    std::map<protocol::ErrorCode, uint64_t> pushes_;  // by the error answered
};

// Prometheus's metric name rules: [a-zA-Z_:][a-zA-Z0-9_:]*, others as '_' (label names the same
// without ':').
std::string prometheus_name(std::string_view text, bool label);

}  // namespace skiff::broker::telemetry
