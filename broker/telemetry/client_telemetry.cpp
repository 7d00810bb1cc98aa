#include "broker/telemetry/client_telemetry.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "broker/metrics/exposition.h"
#include "config/broker_config.h"
#include "config/listener.h"
#include "protocol/compression/compression.h"
#include "protocol/crc32c.h"
#include "storage/partition_metadata.h"

namespace skiff::broker::telemetry {
namespace {

using protocol::ErrorCode;

// What Kafka's ClientMetricsManager accepts, in its order: zstd, lz4, gzip, snappy (record batch
// codec ids). None (0) is always accepted.
const std::vector<int8_t> kAcceptedCompression = {4, 3, 1, 2};

// Kafka's expiry of an instance not heard from: the larger of 60 s and 3 push intervals.
constexpr int64_t kMinExpiryMs = 60000;

// Labels every client series carries, before the pushed attributes.
constexpr std::array<std::string_view, 4> kIdentityLabels = {
    "client_id", "client_instance_id", "client_software_name", "client_software_version"};

constexpr std::string_view kFamilyPrefix = "skiff_client_";
// Families of skiff's own about telemetry; a pushed metric that would take such a name is left
// out rather than mixed into them.
constexpr std::string_view kOwnPrefix = "skiff_client_telemetry_";

bool is_zero(const protocol::Uuid& id) {
    return id.bytes == std::array<uint8_t, 16>{};
}

// Kafka's reserved ids: zero and the metadata topic's (0...01).
bool is_reserved(const protocol::Uuid& id) {
    std::array<uint8_t, 16> one{};
    one[15] = 1;
    return is_zero(id) || id.bytes == one;
}

// Java's Uuid.hashCode: the two longs XORed, then the two halves of that.
int32_t java_hash(const protocol::Uuid& id) {
    uint64_t most = 0;
    uint64_t least = 0;
    for (int i = 0; i < 8; ++i) {
        most = (most << 8) | id.bytes[i];
        least = (least << 8) | id.bytes[8 + i];
    }
    const uint64_t h = most ^ least;
    return static_cast<int32_t>(h >> 32) ^ static_cast<int32_t>(h);
}

std::string series_key(const std::string& family, const std::vector<Attribute>& labels) {
    std::string key = family;
    for (const auto& [name, value] : labels) {
        key += '\0';
        key += name;
        key += '\0';
        key += value;
    }
    return key;
}

// The resource's and then the point's attributes as label names, dropping those whose name
// collides with the identity labels, an earlier one, or Prometheus's reserved names.
std::vector<Attribute> labels_of(const std::vector<Attribute>& resource,
                                 const std::vector<Attribute>& point) {
    std::vector<Attribute> labels;
    auto add = [&](const Attribute& a) {
        std::string name = prometheus_name(a.first, true);
        if (name.starts_with("__") || name == "le")
            return;
        if (std::find(kIdentityLabels.begin(), kIdentityLabels.end(), name) !=
            kIdentityLabels.end())
            return;
        for (const auto& l : labels)
            if (l.first == name)
                return;
        labels.emplace_back(std::move(name), a.second);
    };
    for (const auto& a : resource)
        add(a);
    for (const auto& a : point)
        add(a);
    return labels;
}

// Prometheus names are snake_case (promtool refuses camelCase): an upper-case letter after a
// lower-case one or a digit starts a new word; all lower case.
std::string snake_case(const std::string& name) {
    std::string out;
    out.reserve(name.size() + 8);
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c >= 'A' && c <= 'Z') {
            if (i > 0 && ((name[i - 1] >= 'a' && name[i - 1] <= 'z') ||
                          (name[i - 1] >= '0' && name[i - 1] <= '9')))
                out += '_';
            out += static_cast<char>(c - 'A' + 'a');
        } else {
            out += c;
        }
    }
    return out;
}

// promtool refuses a name holding a metric type as a word (`queue_gauge`): such words are left
// out of the name.
std::string without_type_words(const std::string& name) {
    static constexpr std::array<std::string_view, 4> kTypes = {"gauge", "counter", "histogram",
                                                               "summary"};
    std::string out;
    size_t start = 0;
    while (start <= name.size()) {
        size_t end = name.find('_', start);
        if (end == std::string::npos)
            end = name.size();
        const std::string_view word(name.data() + start, end - start);
        if (std::find(kTypes.begin(), kTypes.end(), word) == kTypes.end()) {
            if (!out.empty())
                out += '_';
            out += word;
        }
        start = end + 1;
    }
    return out;
}

}  // namespace

std::string prometheus_name(std::string_view text, bool label) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                        (c >= '0' && c <= '9') || (!label && c == ':');
        out += ok ? c : '_';
    }
    if (out.empty() || (out[0] >= '0' && out[0] <= '9'))
        out.insert(out.begin(), '_');
    return out;
}

TelemetrySettings telemetry_settings(const config::BrokerConfig& config) {
    TelemetrySettings s;
    for (const auto& prefix : config::split_list(config.client_telemetry_metrics, ',')) {
        // Kafka's "*" (all metrics) is the empty prefix on the wire.
        if (prefix == "*") {
            s.metrics = {""};
            break;
        }
        if (!prefix.empty())
            s.metrics.emplace_back(prefix);
    }
    s.push_interval_ms = config.client_telemetry_push_interval_ms;
    s.max_bytes = config.telemetry_max_bytes;
    s.max_clients = static_cast<size_t>(std::max(1, config.client_telemetry_max_clients));
    return s;
}

ClientTelemetry::ClientTelemetry(TelemetrySettings settings, Clock now)
    : settings_(std::move(settings)), clock_(std::move(now)) {
    // Kafka's subscription id: CRC32C of the metrics (Java's Set.toString) and the interval,
    // XORed with the instance's hash. A change of either setting changes every client's id,
    // and their next push gets UNKNOWN_SUBSCRIPTION_ID, so they fetch the new subscription.
    std::string text = "[";
    for (size_t i = 0; i < settings_.metrics.size(); ++i) {
        if (i > 0)
            text += ", ";
        text += settings_.metrics[i].empty() ? "*" : settings_.metrics[i];
    }
    text += "]" + std::to_string(settings_.push_interval_ms);
    subscription_crc_ = static_cast<int32_t>(
        protocol::crc32c(std::as_bytes(std::span<const char>(text.data(), text.size()))));
}

int64_t ClientTelemetry::now() const {
    if (clock_)
        return clock_();
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int64_t ClientTelemetry::expiry_ms() const {
    return std::max<int64_t>(kMinExpiryMs, int64_t{3} * settings_.push_interval_ms);
}

void ClientTelemetry::expire(int64_t now) {
    const int64_t expiry = expiry_ms();
    std::erase_if(instances_, [&](const auto& entry) {
        if (now - entry.second.last_seen_ms <= expiry)
            return false;
        ++dropped_expired_;
        return true;
    });
}

ClientTelemetry::Instance& ClientTelemetry::admit(const Key& key, int64_t now) {
    expire(now);
    if (instances_.size() >= settings_.max_clients) {
        auto oldest = std::min_element(instances_.begin(), instances_.end(),
                                       [](const auto& a, const auto& b) {
                                           return a.second.last_seen_ms < b.second.last_seen_ms;
                                       });
        instances_.erase(oldest);
        ++dropped_full_;
    }
    Instance& instance = instances_[key];
    storage::TopicId id;
    id.bytes = key;
    instance.id_text = storage::to_string(id);
    protocol::Uuid uuid;
    uuid.bytes = key;
    instance.subscription_id = subscription_crc_ ^ java_hash(uuid);
    instance.last_seen_ms = now;
    return instance;
}

protocol::GetTelemetrySubscriptionsResponse ClientTelemetry::get_subscriptions(
    const protocol::GetTelemetrySubscriptionsRequest& request, const ClientIdentity& who) {
    protocol::GetTelemetrySubscriptionsResponse resp;
    const int64_t t = now();
    std::lock_guard lock(mutex_);
    protocol::Uuid id = request.client_instance_id;
    // The zero id asks for one (KIP-714); a new random one, never a reserved or a known one.
    if (is_zero(id)) {
        do {
            id.bytes = storage::random_topic_id().bytes;
        } while (instances_.contains(id.bytes));
    }
    auto it = instances_.find(id.bytes);
    Instance& instance = it != instances_.end() ? it->second : admit(id.bytes, t);
    // Asking again within the push interval is throttled (Kafka's validateGetRequest), except
    // right after a push refused for its subscription id or compression, which asks the client
    // to fetch the subscription again.
    const int64_t last = std::max(instance.last_get_ms, instance.last_push_ms);
    if (last >= 0 && t - last < settings_.push_interval_ms &&
        instance.last_error != ErrorCode::unknown_subscription_id &&
        instance.last_error != ErrorCode::unsupported_compression_type) {
        resp.error_code = ErrorCode::throttling_quota_exceeded;
        return resp;
    }
    instance.last_get_ms = t;
    instance.last_seen_ms = t;
    instance.last_error = ErrorCode::none;
    instance.who = who;
    resp.client_instance_id = id;
    resp.subscription_id = instance.subscription_id;
    resp.accepted_compression_types = kAcceptedCompression;
    resp.push_interval_ms = settings_.push_interval_ms;
    resp.telemetry_max_bytes = settings_.max_bytes;
    resp.delta_temporality = true;
    resp.requested_metrics = settings_.metrics;
    return resp;
}

protocol::ErrorCode ClientTelemetry::push(const protocol::PushTelemetryRequest& request,
                                          const ClientIdentity& who) {
    const std::span<const std::byte> payload =
        request.metrics.value_or(std::span<const std::byte>{});
    // Decompressed and decoded before the lock (its checks come first in the answer, below).
    // Not at all when the push is too large or its codec unknown: those are refused anyway.
    std::optional<ErrorCode> payload_error;
    MetricsPayload decoded;
    const bool known_codec = request.compression_type >= 0 && request.compression_type <= 4;
    if (known_codec && payload.size() <= static_cast<size_t>(settings_.max_bytes) &&
        !payload.empty()) {
        thread_local std::vector<std::byte> inflated;
        std::span<const std::byte> bytes = payload;
        if (request.compression_type != 0) {
            auto r = protocol::compression::decompress(
                static_cast<protocol::Compression>(request.compression_type), payload, inflated,
                static_cast<size_t>(settings_.max_bytes) * kMaxInflation);
            if (!r)
                payload_error = r.error().code == protocol::compression::CodecErrc::too_large
                                    ? ErrorCode::telemetry_too_large
                                    : ErrorCode::invalid_record;
            bytes = inflated;
        }
        if (!payload_error) {
            auto d = decode_metrics(bytes);
            if (d)
                decoded = std::move(*d);
            else
                payload_error = ErrorCode::invalid_record;
        }
    }

    const int64_t t = now();
    std::lock_guard lock(mutex_);
    auto answer = [&](ErrorCode e) {
        ++pushes_[e];
        return e;
    };
    if (is_reserved(request.client_instance_id))
        return answer(ErrorCode::invalid_request);
    // An instance skiff does not know (never subscribed, forgotten, dropped for a newer one)
    // gets UNKNOWN_SUBSCRIPTION_ID, which has the client fetch a subscription; Kafka would
    // make an instance for it here, skiff keeps nothing for a push it cannot place.
    auto it = instances_.find(request.client_instance_id.bytes);
    if (it == instances_.end())
        return answer(ErrorCode::unknown_subscription_id);
    Instance& instance = it->second;
    // Kafka's validatePushRequest, in its order; `terminating` is kept whatever the answer.
    auto refuse = [&](ErrorCode e) {
        instance.terminating = instance.terminating || request.terminating;
        instance.last_error = e;
        return answer(e);
    };
    if (instance.terminating)
        return refuse(ErrorCode::invalid_request);
    // A push right after fetching the subscription may come early (clients add jitter to the
    // first interval); after that, one per interval, except the terminating one.
    const bool on_time = instance.last_get_ms > instance.last_push_ms ||
                         t - instance.last_push_ms >= settings_.push_interval_ms;
    if (!on_time && !request.terminating)
        return refuse(ErrorCode::throttling_quota_exceeded);
    if (on_time)
        instance.last_push_ms = t;
    if (request.subscription_id != instance.subscription_id)
        return refuse(ErrorCode::unknown_subscription_id);
    if (!known_codec)
        return refuse(ErrorCode::unsupported_compression_type);
    if (payload.size() > static_cast<size_t>(settings_.max_bytes))
        return refuse(ErrorCode::telemetry_too_large);
    if (payload_error)
        return refuse(*payload_error);
    instance.terminating = request.terminating;
    instance.last_seen_ms = t;
    instance.last_error = ErrorCode::none;
    if (!who.client_id.empty() || !who.software_name.empty())
        instance.who = who;
    apply(instance, decoded);
    return answer(ErrorCode::none);
}

void ClientTelemetry::apply(Instance& instance, const MetricsPayload& payload) {
    points_skipped_ += payload.skipped_points;
    static const std::vector<Attribute> kNoAttributes;
    for (const auto& point : payload.points) {
        std::string family = std::string(kFamilyPrefix) +
                             without_type_words(snake_case(prometheus_name(point.name, false)));
        const bool counter = point.kind == PointKind::counter;
        if (counter && !family.ends_with("_total"))
            family += "_total";
        // The suffixes Prometheus keeps for counters and histograms, on a gauge: promtool (and
        // readers) would take it for one of those.
        if (!counter && (family.ends_with("_total") || family.ends_with("_count") ||
                         family.ends_with("_sum") || family.ends_with("_bucket")))
            family += "_value";
        if (family.starts_with(kOwnPrefix)) {
            ++points_skipped_;
            continue;
        }
        const auto& resource = point.resource < payload.resources.size()
                                   ? payload.resources[point.resource]
                                   : kNoAttributes;
        auto labels = labels_of(resource, point.attributes);
        const std::string key = series_key(family, labels);
        auto it = instance.series.find(key);
        if (it == instance.series.end()) {
            if (instance.series.size() >= kMaxSeriesPerClient) {
                ++series_dropped_;
                continue;
            }
            Series s;
            s.family = std::move(family);
            s.source = point.name;
            s.counter = counter;
            s.labels = std::move(labels);
            it = instance.series.emplace(key, std::move(s)).first;
        }
        if (counter && point.delta)
            it->second.value += point.value;
        else
            it->second.value = point.value;
    }
}

void ClientTelemetry::write(metrics::Exposition& out) {
    std::lock_guard lock(mutex_);
    expire(now());
    out.family("skiff_client_telemetry_clients", "gauge",
               "Client instances whose pushed metrics (KIP-714) skiff keeps now.");
    out.sample("skiff_client_telemetry_clients", {}, static_cast<double>(instances_.size()));
    out.family("skiff_client_telemetry_clients_dropped_total", "counter",
               "Client instances forgotten: for a newer one beyond client.telemetry.max.clients "
               "(limit), or not heard from for 3 push intervals (expired).");
    out.sample("skiff_client_telemetry_clients_dropped_total", {{"reason", "limit"}},
               static_cast<double>(dropped_full_));
    out.sample("skiff_client_telemetry_clients_dropped_total", {{"reason", "expired"}},
               static_cast<double>(dropped_expired_));
    out.family("skiff_client_telemetry_pushes_total", "counter",
               "PushTelemetry requests, by the error answered (NONE: accepted).");
    for (const auto& [error, count] : pushes_)
        out.sample("skiff_client_telemetry_pushes_total", {{"error", protocol::error_name(error)}},
                   static_cast<double>(count));
    out.family("skiff_client_telemetry_points_skipped_total", "counter",
               "Pushed data points not exposed: histograms and summaries, points beyond the "
               "limits of a push, points without a name or a value.");
    out.sample("skiff_client_telemetry_points_skipped_total", {},
               static_cast<double>(points_skipped_));
    out.family("skiff_client_telemetry_series_dropped_total", "counter",
               "Pushed series not kept: beyond the per-client series limit, or a name taken by a "
               "series of another type.");
    out.sample("skiff_client_telemetry_series_dropped_total", {},
               static_cast<double>(series_dropped_));

    // Each family once, with every client's samples of it; its type is the first one seen
    // (a gauge and a counter could share a name only through a gauge named *.total).
    struct Sample {
        const Instance* instance;
        const Series* series;
    };
    std::map<std::string_view, std::vector<Sample>> families;
    for (const auto& [key, instance] : instances_)
        for (const auto& [k, series] : instance.series)
            families[series.family].push_back({&instance, &series});
    std::vector<metrics::Label> labels;
    for (const auto& [family, samples] : families) {
        const bool counter = samples.front().series->counter;
        out.family(family, counter ? "counter" : "gauge",
                   "Pushed by clients (KIP-714): " + samples.front().series->source + ".");
        for (const auto& s : samples) {
            if (s.series->counter != counter)
                continue;
            const auto& who = s.instance->who;
            labels.assign({{kIdentityLabels[0], who.client_id},
                           {kIdentityLabels[1], s.instance->id_text},
                           {kIdentityLabels[2], who.software_name},
                           {kIdentityLabels[3], who.software_version}});
            for (const auto& [name, value] : s.series->labels)
                labels.emplace_back(name, value);
            out.sample(family, std::span<const metrics::Label>(labels), s.series->value);
        }
    }
}

size_t ClientTelemetry::clients() {
    std::lock_guard lock(mutex_);
    return instances_.size();
}

std::optional<double> ClientTelemetry::value(const protocol::Uuid& instance,
                                             const std::string& family,
                                             const std::vector<Attribute>& labels) {
    std::lock_guard lock(mutex_);
    auto it = instances_.find(instance.bytes);
    if (it == instances_.end())
        return std::nullopt;
    auto s = it->second.series.find(series_key(family, labels));
    if (s == it->second.series.end())
        return std::nullopt;
    return s->second.value;
}

}  // namespace skiff::broker::telemetry
