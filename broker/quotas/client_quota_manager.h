// Enforces the byte-rate quotas (KIP-13, KIP-55, KIP-219) as Kafka's ClientQuotaManager does:
// each Produce request's size counts against producer_byte_rate and each Fetch response's size
// against consumer_byte_rate; a client over its quota gets the time it must wait in the
// response's throttle_time_ms, and its connection is not read again until that time has passed
// (the broker mutes it, so a client that ignores the field is slowed down all the same).
//
// Which quota applies to a request from user U with client id C: the first of these that has a
// value for the key (Kafka's order): user U and client C, U and the default client, U alone, the
// default user and C, the default user and the default client, the default user alone, client C
// alone, the default client alone. Unauthenticated clients are the user ANONYMOUS. Clients under
// the same quota entity share one rate: a quota on U alone covers all of U's client ids together,
// while a default client-id quota gives each client id its own.
//
// With no quota of a kind configured, recording costs one atomic load per request.
// Thread-safe: requests of every I/O thread record here.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/quotas/quota_entity.h"
#include "broker/quotas/quota_rate.h"

namespace skiff::broker::quotas {

// The clock the sensors are read with (steady, in ms): the request path that records and
// /metrics that reports must read the same one, or a rate would span the wrong windows.
int64_t sensor_clock_ms();

enum class QuotaKind { produce, fetch };

struct QuotaWindow {
    int samples = 11;          // quota.window.num
    int64_t window_ms = 1000;  // quota.window.size.seconds
};

// One rate as /metrics shows it (Kafka's per-client quota metrics): the entity's names as the
// rate is keyed (empty when the quota that applies does not name that part, as Kafka's tags).
struct SensorSample {
    std::string user;
    std::string client_id;
    double byte_rate = 0;           // Kafka's byte-rate
    double quota = 0;               // the quota it was last held to, bytes/s
    uint64_t throttle_time_ms = 0;  // the throttle times handed out, summed
};

class ClientQuotaManager {
  public:
    explicit ClientQuotaManager(QuotaWindow window) : window_(window) {}

    // Replaces every quota (after the store loaded or changed them).
    void set_quotas(const QuotaMap& quotas);

    bool enabled(QuotaKind kind) const {
        return enabled_[index(kind)].load(std::memory_order_relaxed);
    }
    // The quota in bytes/s that applies to the client, if any.
    std::optional<double> quota_for(QuotaKind kind, std::string_view user,
                                    std::string_view client_id) const;
    // Counts `bytes` for the client at `now_ms`; answers the throttle time in ms (0: within its
    // quota, or no quota applies).
    int32_t record(QuotaKind kind, std::string_view user, std::string_view client_id, double bytes,
                   int64_t now_ms);
    // Takes back a value recorded (a throttled fetch answers no records, as Kafka's does).
    void unrecord(QuotaKind kind, std::string_view user, std::string_view client_id, double bytes,
                  int64_t now_ms);
    // The most a single response may hold without being throttled whatever came before it:
    // quota x (samples - 1) x window (Kafka's getMaxValueInQuotaWindow), nullopt with no quota.
    std::optional<int64_t> max_value_in_window(QuotaKind kind, std::string_view user,
                                               std::string_view client_id) const;

    // Throttle times handed out, for /metrics.
    uint64_t throttled_requests(QuotaKind kind) const {
        return throttled_[index(kind)].load(std::memory_order_relaxed);
    }
    // Every rate being measured (a client that recorded under a quota in the last hour).
    std::vector<SensorSample> sensors(QuotaKind kind, int64_t now_ms) const;
    // Forgets every rate (the test-control API's reset: a quota set again afterwards must not
    // count what the last test's clients sent).
    void forget_rates();

  private:
    static size_t index(QuotaKind kind) { return kind == QuotaKind::produce ? 0 : 1; }
    // The quota and the rate's key ("user\0client") for a client, as resolved above.
    struct Resolved {
        double quota = 0;
        std::string sensor;
    };
    std::optional<Resolved> resolve(QuotaKind kind, std::string_view user,
                                    std::string_view client_id) const;
    void drop_idle(int64_t now_ms);

    const QuotaWindow window_;
    mutable std::mutex mutex_;
    std::map<QuotaEntity, double> quotas_[2];  // by kind
    // One per resolved entity, keyed "user\0client" as it was resolved.
    struct Sensor {
        QuotaRate rate;
        double quota = 0;
        uint64_t throttle_time_ms = 0;
    };
    mutable std::map<std::string, Sensor, std::less<>> rates_[2];  // sensors() reads the rates
    int64_t last_sweep_ms_ = 0;
    std::atomic<bool> enabled_[2] = {false, false};
    std::atomic<uint64_t> throttled_[2] = {0, 0};
};

}  // namespace skiff::broker::quotas
