#include "broker/metrics/collector.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "broker/broker.h"
#include "broker/metrics/exposition.h"
#include "broker/metrics/process_metrics.h"
#include "broker/metrics/share_metrics.h"
#include "broker/metrics/sync_metrics.h"
#include "broker/net/connection_tracker.h"
#include "broker/net/request_budget.h"

#ifndef SKIFF_VERSION
#define SKIFF_VERSION "unknown"
#endif

namespace skiff::broker::metrics {
namespace {

struct TopicTraffic {
    uint64_t records_produced = 0, bytes_produced = 0, records_fetched = 0, bytes_fetched = 0;
};

void write_partitions(Exposition& out, Broker& broker) {
    const auto logs = broker.logs().logs();  // sorted by topic, then partition
    std::map<std::string, TopicTraffic> topics;
    for (const auto& [tp, log] : logs) {
        const auto& t = log->traffic();
        auto& sum = topics[tp.topic];
        sum.records_produced += t.records_produced.load(std::memory_order_relaxed);
        sum.bytes_produced += t.bytes_produced.load(std::memory_order_relaxed);
        sum.records_fetched += t.records_fetched.load(std::memory_order_relaxed);
        sum.bytes_fetched += t.bytes_fetched.load(std::memory_order_relaxed);
    }
    out.family("skiff_topic_produced_records_total", "counter",
               "Records appended by producers, by topic (retried duplicates not counted).");
    for (const auto& [topic, t] : topics)
        out.sample("skiff_topic_produced_records_total", {{"topic", topic}},
                   static_cast<double>(t.records_produced));
    out.family("skiff_topic_produced_bytes_total", "counter",
               "Record batch bytes appended by producers, by topic.");
    for (const auto& [topic, t] : topics)
        out.sample("skiff_topic_produced_bytes_total", {{"topic", topic}},
                   static_cast<double>(t.bytes_produced));
    out.family("skiff_topic_fetched_records_total", "counter",
               "Records returned by Fetch, by topic: the offsets the returned batches span, "
               "whole batches (records before the fetch offset and transaction markers "
               "included).");
    for (const auto& [topic, t] : topics)
        out.sample("skiff_topic_fetched_records_total", {{"topic", topic}},
                   static_cast<double>(t.records_fetched));
    out.family("skiff_topic_fetched_bytes_total", "counter",
               "Record bytes returned by Fetch, by topic.");
    for (const auto& [topic, t] : topics)
        out.sample("skiff_topic_fetched_bytes_total", {{"topic", topic}},
                   static_cast<double>(t.bytes_fetched));

    struct Gauge {
        const char* name;
        const char* help;
        double (*read)(const storage::PartitionLog&);
    };
    static constexpr Gauge kGauges[] = {
        {"skiff_partition_log_end_offset", "Offset the next record appended will get.",
         [](const storage::PartitionLog& l) { return static_cast<double>(l.log_end_offset()); }},
        {"skiff_partition_high_watermark", "Offset up to which consumers can read.",
         [](const storage::PartitionLog& l) { return static_cast<double>(l.high_watermark()); }},
        {"skiff_partition_log_start_offset", "First offset still in the log.",
         [](const storage::PartitionLog& l) { return static_cast<double>(l.log_start_offset()); }},
        {"skiff_partition_size_bytes", "Bytes of the partition's segment files.",
         [](const storage::PartitionLog& l) { return static_cast<double>(l.size_bytes()); }},
        {"skiff_partition_segments", "Segments of the partition's log.",
         [](const storage::PartitionLog& l) { return static_cast<double>(l.segment_count()); }},
    };
    for (const auto& g : kGauges) {
        out.family(g.name, "gauge", g.help);
        for (const auto& [tp, log] : logs) {
            const std::string partition = std::to_string(tp.partition);
            out.sample(g.name, {{"topic", tp.topic}, {"partition", partition}}, g.read(*log));
        }
    }
}

void write_groups(Exposition& out, Broker& broker) {
    auto& groups = broker.groups();
    auto& offsets = groups.offsets();
    // Groups with members (the coordinator) and groups with only committed offsets (the store).
    std::map<std::string, std::string> states;
    for (const auto& g : groups.list())
        states[g.group_id] = g.group_state;
    for (const auto& g : offsets.groups())
        states.try_emplace(g, "Empty");

    out.family("skiff_group_members", "gauge",
               "Members of each group (classic, consumer or share).");
    for (const auto& [group, state] : states)
        out.sample("skiff_group_members", {{"group", group}},
                   static_cast<double>(groups.member_count(group)));
    out.family("skiff_group_state", "gauge",
               "1 for each consumer group's current state (Empty, PreparingRebalance, "
               "CompletingRebalance, Stable, Dead).");
    for (const auto& [group, state] : states)
        out.sample("skiff_group_state", {{"group", group}, {"state", state}}, 1);

    out.family("skiff_group_committed_offset", "gauge",
               "Offset each consumer group committed, by partition.");
    struct Row {
        std::string group;
        storage::TopicPartition tp;
        int64_t committed;
        double lag;
    };
    std::vector<Row> rows;
    for (const auto& [group, state] : states) {
        for (const auto& [tp, committed] : offsets.group_offsets(group)) {
            if (committed.offset < 0)
                continue;
            double lag = -1;
            if (auto* log = broker.logs().get(tp))
                lag = static_cast<double>(
                    std::max<int64_t>(log->high_watermark() - committed.offset, 0));
            rows.push_back({group, tp, committed.offset, lag});
        }
    }
    for (const auto& r : rows)
        out.sample("skiff_group_committed_offset",
                   {{"group", r.group},
                    {"topic", r.tp.topic},
                    {"partition", std::to_string(r.tp.partition)}},
                   static_cast<double>(r.committed));
    out.family("skiff_group_lag", "gauge",
               "Records between a group's committed offset and the partition's high watermark.");
    for (const auto& r : rows)
        if (r.lag >= 0)
            out.sample("skiff_group_lag",
                       {{"group", r.group},
                        {"topic", r.tp.topic},
                        {"partition", std::to_string(r.tp.partition)}},
                       r.lag);
}

void write_storage(Exposition& out, Broker& broker, const ScrapeSources& sources) {
    struct statvfs fs {};
    if (::statvfs(broker.logs().log_dir().c_str(), &fs) == 0) {
        out.family("skiff_log_dir_free_bytes", "gauge",
                   "Bytes available to skiff on the file system of log.dirs.");
        out.sample("skiff_log_dir_free_bytes", {},
                   static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize));
        out.family("skiff_log_dir_size_bytes", "gauge", "Size of the file system of log.dirs.");
        out.sample("skiff_log_dir_size_bytes", {},
                   static_cast<double>(fs.f_blocks) * static_cast<double>(fs.f_frsize));
    }
    const auto& stats = broker.logs().recovery_stats();
    out.family("skiff_log_recovery_seconds", "gauge",
               "Time opening the logs took at start, recovery included.");
    out.sample("skiff_log_recovery_seconds", {}, sources.recovery_seconds);
    out.family("skiff_log_recovery_validated_segments", "gauge",
               "Segments whose batches were all read and checked at start (no clean shutdown).");
    out.sample("skiff_log_recovery_validated_segments", {},
               static_cast<double>(stats.segments_validated));
    write_sync_metrics(out);
    if (sources.retention_deleted_segments) {
        out.family("skiff_log_retention_deleted_segments_total", "counter",
                   "Segments deleted by retention (retention.ms, retention.bytes).");
        out.sample("skiff_log_retention_deleted_segments_total", {},
                   static_cast<double>(sources.retention_deleted_segments->load()));
    }
}

// Client quotas (docs/quotas.md): responses that told a client to wait.
void write_quotas(Exposition& out, const quotas::ClientQuotaManager& quotas) {
    out.family("skiff_quota_throttled_responses_total", "counter",
               "Produce and Fetch (and ShareFetch) responses whose client was over its "
               "byte-rate quota, by kind.");
    out.sample("skiff_quota_throttled_responses_total", {{"kind", "produce"}},
               static_cast<double>(quotas.throttled_requests(quotas::QuotaKind::produce)));
    out.sample("skiff_quota_throttled_responses_total", {{"kind", "fetch"}},
               static_cast<double>(quotas.throttled_requests(quotas::QuotaKind::fetch)));

    // Kafka's per-client quota metrics (byte-rate, throttle-time), one series per rate being
    // measured: per resolved quota entity, so a quota on a user alone is one series for all of
    // that user's client ids (client_id ""), as Kafka tags its sensors.
    const int64_t now_ms = quotas::sensor_clock_ms();
    const std::pair<quotas::QuotaKind, const char*> kinds[] = {
        {quotas::QuotaKind::produce, "produce"}, {quotas::QuotaKind::fetch, "fetch"}};
    std::vector<quotas::SensorSample> sensors[2];
    for (size_t i = 0; i < 2; ++i)
        sensors[i] = quotas.sensors(kinds[i].first, now_ms);
    const auto each = [&](const char* name, const char* type, const char* help, auto value) {
        out.family(name, type, help);
        for (size_t i = 0; i < 2; ++i)
            for (const auto& s : sensors[i])
                out.sample(
                    name, {{"kind", kinds[i].second}, {"user", s.user}, {"client_id", s.client_id}},
                    value(s));
    };
    each("skiff_quota_byte_rate", "gauge",
         "Bytes per second a client (or the clients sharing its quota) sends or fetches, as its "
         "quota measures them (quota.window.num x quota.window.size.seconds).",
         [](const quotas::SensorSample& s) { return s.byte_rate; });
    each("skiff_quota_byte_rate_limit", "gauge",
         "The producer_byte_rate or consumer_byte_rate the client is held to.",
         [](const quotas::SensorSample& s) { return s.quota; });
    each("skiff_quota_throttle_time_seconds_total", "counter",
         "Throttle time handed out to the client in its responses.",
         [](const quotas::SensorSample& s) {
             return static_cast<double>(s.throttle_time_ms) / 1000;
         });
}

// The test-control API's counters (docs/control-api.md), only when it is on.
void write_control(Exposition& out, control::ControlPlane& control) {
    using control::FaultAction;
    out.family("skiff_control_faults_fired_total", "counter",
               "Requests a fault rule of the control API acted on, by action.");
    for (auto action : {FaultAction::error, FaultAction::latency, FaultAction::close,
                        FaultAction::drop, FaultAction::fail_response})
        out.sample("skiff_control_faults_fired_total", {{"action", control::action_name(action)}},
                   static_cast<double>(control.fired(action)));
    out.family("skiff_control_fault_rules", "gauge",
               "Fault rules in force, used up ones included.");
    out.sample("skiff_control_fault_rules", {},
               static_cast<double>(control.faults().list().size()));
    out.family("skiff_control_outages_total", "counter",
               "Outages started through the control API.");
    out.sample("skiff_control_outages_total", {}, static_cast<double>(control.outages_started()));
    out.family("skiff_control_connections_refused_total", "counter",
               "Connections closed on accept during a control API outage.");
    out.sample("skiff_control_connections_refused_total", {},
               static_cast<double>(control.connections_refused()));
    out.family("skiff_control_requests_captured_total", "counter",
               "Requests the control API recorded (control.api.capture.requests keeps the last).");
    out.sample("skiff_control_requests_captured_total", {},
               static_cast<double>(control.capture().total()));
}

}  // namespace

std::string collect(const ScrapeSources& sources) {
    Exposition out;
    out.family("skiff_build_info", "gauge", "1, labelled with the version of skiff running.");
    out.sample("skiff_build_info", {{"version", SKIFF_VERSION}}, 1);
    write_process_metrics(out);
    if (sources.connections) {
        out.family("skiff_connections_open", "gauge", "Client connections open now.");
        out.sample("skiff_connections_open", {}, static_cast<double>(sources.connections->count()));
    }
    if (sources.budget) {
        out.family("skiff_queued_request_bytes", "gauge",
                   "Bytes of requests read and not yet answered (queued.max.request.bytes bounds "
                   "them).");
        out.sample("skiff_queued_request_bytes", {}, static_cast<double>(sources.budget->used()));
    }
    if (Broker* broker = sources.broker) {
        broker->request_metrics().write(out);
        broker->connection_metrics().write(out);
        write_partitions(out, *broker);
        write_groups(out, *broker);
        if (auto* shares = broker->share_partitions())
            write_share_partitions(out, *shares);
        write_storage(out, *broker, sources);
        write_quotas(out, broker->quota_manager());
        if (auto* control = broker->control())
            write_control(out, *control);
        if (auto* telemetry = broker->client_telemetry())
            telemetry->write(out);
    }
    return out.take();
}

}  // namespace skiff::broker::metrics
