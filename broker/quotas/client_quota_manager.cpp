#include "broker/quotas/client_quota_manager.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>

namespace skiff::broker::quotas {

int64_t sensor_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
namespace {

const char* key_of(QuotaKind kind) {
    return kind == QuotaKind::produce ? kProducerByteRate : kConsumerByteRate;
}

// A rate nobody recorded into for this long is dropped (Kafka expires its quota sensors after an
// hour of inactivity).
constexpr int64_t kIdleRateMs = int64_t{3600} * 1000;

}  // namespace

void ClientQuotaManager::set_quotas(const QuotaMap& quotas) {
    std::lock_guard lock(mutex_);
    for (QuotaKind kind : {QuotaKind::produce, QuotaKind::fetch}) {
        auto& mine = quotas_[index(kind)];
        mine.clear();
        for (const auto& [entity, values] : quotas)
            if (auto it = values.find(key_of(kind)); it != values.end())
                mine.emplace(entity, it->second);
        // A change of quotas keeps what each client has sent: its rate is measured the same, only
        // the bound it is held to changes (as Kafka updates a sensor's quota in place). Rates
        // whose entity no longer exists are dropped by the idle sweep.
        enabled_[index(kind)].store(!mine.empty(), std::memory_order_relaxed);
    }
}

std::optional<ClientQuotaManager::Resolved> ClientQuotaManager::resolve(
    QuotaKind kind, std::string_view user, std::string_view client_id) const {
    const auto& q = quotas_[index(kind)];
    if (q.empty())
        return std::nullopt;
    const auto u = EntityName::named(std::string(user));
    const auto c = EntityName::named(std::string(client_id));
    const auto any_user = EntityName::default_name();
    const auto any_client = EntityName::default_name();
    // Kafka's order (DefaultQuotaCallback), with which names the shared rate is keyed by.
    struct Level {
        QuotaEntity entity;
        bool by_user;
        bool by_client;
    };
    const std::array<Level, 8> levels{{
        {{u, c}, true, true},
        {{u, any_client}, true, true},
        {{u, std::nullopt}, true, false},
        {{any_user, c}, true, true},
        {{any_user, any_client}, true, true},
        {{any_user, std::nullopt}, true, false},
        {{std::nullopt, c}, false, true},
        {{std::nullopt, any_client}, false, true},
    }};
    for (const auto& level : levels) {
        auto it = q.find(level.entity);
        if (it == q.end())
            continue;
        Resolved r;
        r.quota = it->second;
        r.sensor.append(level.by_user ? user : std::string_view{});
        r.sensor.push_back('\0');
        r.sensor.append(level.by_client ? client_id : std::string_view{});
        return r;
    }
    return std::nullopt;
}

std::optional<double> ClientQuotaManager::quota_for(QuotaKind kind, std::string_view user,
                                                    std::string_view client_id) const {
    std::lock_guard lock(mutex_);
    auto r = resolve(kind, user, client_id);
    return r ? std::optional<double>(r->quota) : std::nullopt;
}

void ClientQuotaManager::drop_idle(int64_t now_ms) {
    if (now_ms - last_sweep_ms_ < int64_t{60} * 1000)
        return;
    last_sweep_ms_ = now_ms;
    for (auto& rates : rates_)
        std::erase_if(rates, [&](const auto& r) {
            return now_ms - r.second.rate.last_record_ms() > kIdleRateMs;
        });
}

int32_t ClientQuotaManager::record(QuotaKind kind, std::string_view user,
                                   std::string_view client_id, double bytes, int64_t now_ms) {
    if (!enabled(kind))
        return 0;
    std::lock_guard lock(mutex_);
    auto r = resolve(kind, user, client_id);
    if (!r)
        return 0;
    drop_idle(now_ms);
    auto& rates = rates_[index(kind)];
    auto it = rates.find(r->sensor);
    if (it == rates.end())
        it = rates.emplace(r->sensor, Sensor{QuotaRate(window_.samples, window_.window_ms)}).first;
    Sensor& sensor = it->second;
    sensor.quota = r->quota;
    sensor.rate.record(bytes, now_ms);
    const double observed = sensor.rate.rate(now_ms);
    if (observed <= r->quota)
        return 0;
    const int64_t t =
        std::min<int64_t>(throttle_time_ms(observed, r->quota, sensor.rate.window_size_ms(now_ms)),
                          std::numeric_limits<int32_t>::max());
    throttled_[index(kind)].fetch_add(1, std::memory_order_relaxed);
    sensor.throttle_time_ms += static_cast<uint64_t>(std::max<int64_t>(t, 0));
    return static_cast<int32_t>(t);
}

void ClientQuotaManager::unrecord(QuotaKind kind, std::string_view user, std::string_view client_id,
                                  double bytes, int64_t now_ms) {
    if (!enabled(kind))
        return;
    std::lock_guard lock(mutex_);
    auto r = resolve(kind, user, client_id);
    if (!r)
        return;
    auto& rates = rates_[index(kind)];
    if (auto it = rates.find(r->sensor); it != rates.end())
        it->second.rate.record(-bytes, now_ms);
}

void ClientQuotaManager::forget_rates() {
    std::lock_guard lock(mutex_);
    for (auto& rates : rates_)
        rates.clear();
}

std::vector<SensorSample> ClientQuotaManager::sensors(QuotaKind kind, int64_t now_ms) const {
    std::lock_guard lock(mutex_);
    std::vector<SensorSample> out;
    for (auto& [key, sensor] : rates_[index(kind)]) {
        const auto split = key.find('\0');
        out.push_back({.user = key.substr(0, split),
                       .client_id = key.substr(split + 1),
                       .byte_rate = sensor.rate.rate(now_ms),
                       .quota = sensor.quota,
                       .throttle_time_ms = sensor.throttle_time_ms});
    }
    return out;
}

std::optional<int64_t> ClientQuotaManager::max_value_in_window(QuotaKind kind,
                                                               std::string_view user,
                                                               std::string_view client_id) const {
    if (!enabled(kind))
        return std::nullopt;
    std::lock_guard lock(mutex_);
    auto r = resolve(kind, user, client_id);
    if (!r)
        return std::nullopt;
    const double bytes =
        r->quota * (window_.samples - 1) * (static_cast<double>(window_.window_ms) / 1000.0);
    return static_cast<int64_t>(std::min(bytes, 2147483647.0));
}

}  // namespace skiff::broker::quotas
