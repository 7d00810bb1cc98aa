// The rows of the settings table (settings.h), one per broker setting, in the order they are
// documented and reported, with the checks of the string and double settings whose values are
// more than their type.
#include <algorithm>
#include <cctype>

#include "config/listener.h"
#include "config/settings.h"
#include "config/value_syntax.h"

namespace skiff::config {

std::optional<std::string> consumer_assignor_name(std::string_view entry) {
    constexpr std::string_view kPackage = "org.apache.kafka.coordinator.group.assignor.";
    if (entry == "uniform" || entry == std::string(kPackage) + "UniformAssignor")
        return "uniform";
    if (entry == "range" || entry == std::string(kPackage) + "RangeAssignor")
        return "range";
    return std::nullopt;
}

bool rebalance_protocol_enabled(const BrokerConfig& config, std::string_view protocol) {
    for (const auto& name : split_list(config.group_coordinator_rebalance_protocols, ','))
        if (name == protocol)
            return true;
    return false;
}

namespace {

constexpr int64_t kMsPerMinute = int64_t{60} * 1000;
constexpr int64_t kMsPerHour = 60 * kMsPerMinute;

std::optional<std::string> check_single_log_dir(std::string_view value) {
    if (value.empty()) {
        return "expected a directory path";
    }
    if (value.find(',') != std::string_view::npos) {
        return "expected a single directory (skiff supports one log directory, not a list)";
    }
    return std::nullopt;
}

std::optional<std::string> check_cleanup_policy(std::string_view value) {
    if (parse_cleanup_policy(value))
        return std::nullopt;
    return std::string(kCleanupPolicyExpected);
}

// Double settings: Java syntax, finite, and the row's range.
std::optional<std::string> check_ratio(std::string_view value) {
    auto v = parse_double(value);
    if (v && *v >= 0.0 && *v <= 1.0)
        return std::nullopt;
    return "expected a number between 0 and 1";
}

std::optional<std::string> check_load_factor(std::string_view value) {
    auto v = parse_double(value);
    if (v && *v > 0.0 && *v <= 1.0)
        return std::nullopt;
    return "expected a number > 0 and <= 1";
}

std::optional<std::string> check_positive_double(std::string_view value) {
    auto v = parse_double(value);
    if (v && *v > 0.0)
        return std::nullopt;
    return "expected a number > 0";
}

std::optional<std::string> check_compression_type(std::string_view value) {
    for (std::string_view v : {"producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"})
        if (value == v)
            return std::nullopt;
    return "expected producer, uncompressed, gzip, snappy, lz4 or zstd";
}

std::optional<std::string> check_message_format_version(std::string_view value) {
    if (is_kafka_version(value))
        return std::nullopt;
    return "expected a Kafka version such as 0.10.0, 2.8 or 3.0-IV1";
}

std::optional<std::string> check_timestamp_type(std::string_view value) {
    if (value == "CreateTime" || value == "LogAppendTime")
        return std::nullopt;
    return "expected CreateTime or LogAppendTime";
}

std::optional<std::string> check_metrics_listener(std::string_view value) {
    auto parsed = parse_http_listener(value);
    if (!parsed)
        return parsed.error();
    return std::nullopt;
}

// The release itself is checked against skiff's tables when the broker starts (config/ does
// not see protocol/): here only its form, MAJOR.MINOR or MAJOR.MINOR.PATCH.
std::optional<std::string> check_emulated_version(std::string_view value) {
    if (value.empty())
        return std::nullopt;
    size_t parts = 1, digits = 0;
    bool ok = true;
    for (char c : value) {
        if (c == '.') {
            ok = ok && digits > 0;
            ++parts;
            digits = 0;
        } else {
            ok = ok && std::isdigit(static_cast<unsigned char>(c)) && ++digits <= 3;
        }
    }
    if (ok && digits > 0 && (parts == 2 || parts == 3))
        return std::nullopt;
    return "expected an Apache Kafka release such as 2.8, 3.9 or 4.0";
}

std::optional<std::string> check_web_listeners(std::string_view value) {
    auto parsed = parse_web_listeners(value);
    if (!parsed)
        return parsed.error();
    return std::nullopt;
}

std::optional<std::string> check_registry_authentication(std::string_view value) {
    if (value == "NONE" || value == "BASIC")
        return std::nullopt;
    return "expected NONE or BASIC";
}

std::optional<std::string> check_compatibility_level(std::string_view value) {
    for (std::string_view level : {"NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD",
                                   "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"})
        if (value == level)
            return std::nullopt;
    return "expected NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or "
           "FULL_TRANSITIVE";
}

std::optional<std::string> check_security_protocol_map(std::string_view value) {
    auto parsed = parse_security_protocol_map(value);
    if (!parsed)
        return parsed.error();
    return std::nullopt;
}

// Kafka's two ACL authorizers both name skiff's built-in one.
std::optional<std::string> check_authorizer_class_name(std::string_view value) {
    if (value.empty() || value == "kafka.security.authorizer.AclAuthorizer" ||
        value == "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        return std::nullopt;
    return "expected empty (no authorizer), org.apache.kafka.metadata.authorizer."
           "StandardAuthorizer or kafka.security.authorizer.AclAuthorizer (both select skiff's "
           "built-in ACL authorizer; other authorizer classes cannot be loaded)";
}

std::optional<std::string> check_pem_store_type(std::string_view value) {
    if (value == "PEM")
        return std::nullopt;
    return "expected PEM (skiff reads PEM files and PEM text only; convert a JKS or PKCS12 store "
           "with keytool / openssl pkcs12)";
}

std::optional<std::string> check_ssl_client_auth(std::string_view value) {
    if (value == "none" || value == "requested" || value == "required")
        return std::nullopt;
    return "expected none, requested or required";
}

// A comma-separated list of TLSv1.2 and TLSv1.3, at least one: older versions are insecure and
// OpenSSL 3 refuses them at its default security level anyway.
std::optional<std::string> check_ssl_protocols(std::string_view value) {
    const auto protocols = split_comma_list(value);
    const bool valid = !protocols.empty() &&
                       std::all_of(protocols.begin(), protocols.end(), [](const std::string& p) {
                           return p == "TLSv1.2" || p == "TLSv1.3";
                       });
    if (valid)
        return std::nullopt;
    return "expected TLSv1.2 and/or TLSv1.3, comma-separated";
}

// SASL mechanisms skiff serves, in Kafka's names; at least one.
// group.consumer.assignors: skiff's server-side assignors, by name or by Kafka's class name.
std::optional<std::string> check_consumer_assignors(std::string_view value) {
    const auto names = split_list(value, ',');
    if (names.empty())
        return "expected one or more of uniform, range";
    for (const auto& name : names)
        if (!consumer_assignor_name(name))
            return "expected uniform, range or Kafka's UniformAssignor / RangeAssignor class names";
    return std::nullopt;
}

// group.consumer.migration.policy: Kafka's four values, in any case.
std::optional<std::string> check_migration_policy(std::string_view value) {
    std::string v(value);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    if (v == "bidirectional" || v == "upgrade" || v == "downgrade" || v == "disabled")
        return std::nullopt;
    return "expected bidirectional, upgrade, downgrade or disabled";
}

// group.coordinator.rebalance.protocols: classic always, consumer optionally (Kafka's rule).
std::optional<std::string> check_rebalance_protocols(std::string_view value) {
    bool classic = false;
    for (const auto& name : split_list(value, ',')) {
        if (name == "classic")
            classic = true;
        else if (name != "consumer")
            return "expected classic, or classic,consumer";
    }
    if (!classic)
        return "expected a list with classic (classic,consumer enables KIP-848)";
    return std::nullopt;
}

std::optional<std::string> check_sasl_mechanisms(std::string_view value) {
    auto refused = sasl_mechanisms_problem(value);
    if (!refused)
        return std::nullopt;
    return *refused;
}

// Principals separated by semicolons, each TYPE:name (Kafka's KafkaPrincipal syntax).
std::optional<std::string> check_super_users(std::string_view value) {
    for (const auto& entry : split_list(value, ';')) {
        const auto colon = entry.find(':');
        if (colon == std::string::npos || colon == 0)
            return "expected principals such as User:admin separated by semicolons";
    }
    return std::nullopt;
}

using BC = BrokerConfig;

std::vector<SettingDescriptor> make_table() {
    // clang-format off
    return {
        {.key = "listeners",
         .default_value = "PLAINTEXT://127.0.0.1:9092",
         .doc = "Comma-separated NAME://host:port addresses to listen on, each name once "
                "(INTERNAL://10.0.0.5:9092,EXTERNAL://:9094); each name's security protocol comes "
                "from listener.security.protocol.map. An empty host binds all IPv4 interfaces, "
                "IPv6 hosts go in brackets ([::1]:9092), port 0 picks a free port. Unlike Kafka, "
                "the default binds loopback only.",
         .member = &BC::listeners},
        {.key = "advertised.listeners",
         .default_description = "listeners, with 0.0.0.0 given as 127.0.0.1",
         .doc = "Addresses given to clients in Metadata, FindCoordinator and DescribeCluster, at "
                "most one per listener name: a client gets the address named as the listener it "
                "connected through, as in Kafka. Names must be listener names; a listener not "
                "named here gives its own address (Kafka would give none). Set this when clients "
                "connect from other hosts.",
         .member = &BC::advertised_listeners},
        {.key = "listener.security.protocol.map",
         .default_value = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
         .doc = "Comma-separated NAME:PROTOCOL pairs giving each listener name its security protocol "
                "(PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL). As in Kafka every listener must be "
                "mapped, so a custom name needs an entry (INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT). "
                "skiff serves all four (docs/security.md); an SSL or SASL_SSL listener needs "
                "ssl.keystore.location (or the PEM text settings).",
         .member = &BC::listener_security_protocol_map, .check = check_security_protocol_map},
        {.key = "metrics.listener",
         .default_value = "HTTP://127.0.0.1:9649",
         .doc = "The operations endpoint, HTTP://host:port: Prometheus metrics at /metrics, "
                "/health/live and /health/ready for orchestrators (docs/metrics.md). Apart from the "
                "Kafka listeners and, like them, on loopback by default; empty turns it off.",
         .member = &BC::metrics_listener, .check = check_metrics_listener},
        {.key = "schema.registry.listeners",
         .default_value = "http://127.0.0.1:8081",
         .doc = "The schema registry's addresses (Confluent's REST API, docs/schema-registry.md): "
                "http://host:port and https://host:port entries, comma-separated (https uses the "
                "ssl.keystore.* settings); empty turns the registry off. A default address that "
                "is taken gives a warning and no registry; an address set here must bind.",
         .member = &BC::schema_registry_listeners, .check = check_web_listeners},
        {.key = "schema.registry.authentication",
         .default_value = "NONE",
         .doc = "NONE, or BASIC: every registry request needs HTTP basic authentication checked "
                "against skiff's SCRAM users (skiff user, AlterUserScramCredentials).",
         .member = &BC::schema_registry_authentication, .check = check_registry_authentication},
        {.key = "schema.registry.max.request.bytes",
         .default_value = "4194304",
         .doc = "Largest request body the schema registry reads; a bigger one is answered 413 "
                "and nothing is stored.",
         .member = &BC::schema_registry_max_request_bytes, .min = 1024},
        {.key = "schema.registry.compatibility.level",
         .default_value = "BACKWARD",
         .doc = "Compatibility level of subjects with none of their own until PUT /config sets "
                "the registry's (Confluent's schema.compatibility.level).",
         .member = &BC::schema_registry_compatibility_level, .check = check_compatibility_level},
        {.key = "console.listeners",
         .default_value = "http://127.0.0.1:8080",
         .doc = "The web console and its HTTP API (docs/console.md): http://host:port and "
                "https://host:port entries, comma-separated (https uses the ssl.keystore.* "
                "settings); empty turns it off. A default address that is taken gives a warning "
                "and no console; an address set here must bind.",
         .member = &BC::console_listeners, .check = check_web_listeners},
        {.key = "console.read.only",
         .default_value = "true",
         .doc = "Whether the console and its API only read. false lets them create and delete "
                "topics, add partitions, alter configs, reset group offsets, produce "
                "(including REST Proxy v3's produce) and add or remove ACLs and SCRAM users, "
                "each authorized as its Kafka request.",
         .member = &BC::console_read_only},
        {.key = "control.api.enable",
         .default_value = "false",
         .doc = "The test-control API (docs/control-api.md) under /control/ on the metrics "
                "listener: fault injection, outages, a slow disk, version emulation, reset, "
                "snapshots and request capture, for test suites. Never turn it on in production: "
                "anyone who reaches the metrics listener can then break or wipe the broker.",
         .member = &BC::control_api_enable},
        {.key = "control.api.token",
         .default_value = "",
         .default_description = "(empty: none)",
         .doc = "When set, every control API request needs the header \"Authorization: Bearer "
                "<token>\" (401 otherwise).",
         .member = &BC::control_api_token, .sensitive = true},
        {.key = "control.api.capture.requests",
         .default_value = "1000",
         .doc = "How many of the latest Kafka requests the control API keeps for GET "
                "/control/requests (0 keeps none). Only with control.api.enable.",
         .member = &BC::control_api_capture_requests, .min = 0},
        {.key = "emulate.kafka.version",
         .default_value = "",
         .default_description = "(empty: skiff's own versions)",
         .doc = "Answer ApiVersions as this Apache Kafka release's broker does (2.0 to 4.1) and "
                "refuse requests outside its versions as it would (docs/control-api.md); empty "
                "for skiff's own. The control API can change it at run time.",
         .member = &BC::emulate_kafka_version, .check = check_emulated_version},
        {.key = "client.telemetry.enable",
         .default_value = "false",
         .doc = "Client telemetry (KIP-714, docs/client-telemetry.md): advertise "
                "GetTelemetrySubscriptions and PushTelemetry, hand clients a subscription and "
                "expose the metrics they push on /metrics as skiff_client_* series. Off: the APIs "
                "are not advertised and clients push nothing, as with Kafka without a "
                "ClientTelemetry plugin.",
         .member = &BC::client_telemetry_enable},
        {.key = "client.telemetry.metrics",
         .default_value = "org.apache.kafka.",
         .doc = "Comma-separated metric name prefixes clients are asked to push (Kafka's client "
                "metrics `metrics`); * for all of them. Only with client.telemetry.enable.",
         .member = &BC::client_telemetry_metrics},
        {.key = "client.telemetry.push.interval.ms",
         .default_value = "30000",
         .doc = "How often clients push their metrics (Kafka's client metrics `interval.ms`); a "
                "client whose pushes stop is forgotten after 3 intervals (at least 60 s).",
         .member = &BC::client_telemetry_push_interval_ms, .min = 100, .max = 3600000},
        {.key = "telemetry.max.bytes",
         .default_value = "1048576",
         .doc = "Largest PushTelemetry payload accepted, compressed or not; a bigger one gets "
                "TELEMETRY_TOO_LARGE and changes nothing.",
         .member = &BC::telemetry_max_bytes, .min = 1},
        {.key = "client.telemetry.max.clients",
         .default_value = "1000",
         .doc = "How many client instances' metrics are kept; the one heard from longest ago is "
                "dropped for a new one (counted in skiff_client_telemetry_clients_dropped_total).",
         .member = &BC::client_telemetry_max_clients, .min = 1},
        {.key = "quota.window.num",
         .default_value = "11",
         .doc = "Client quotas (docs/quotas.md): how many windows a client's byte rate is measured "
                "over; with quota.window.size.seconds, how long a burst counts against it.",
         .member = &BC::quota_window_num, .min = 2, .max = 3600},
        {.key = "quota.window.size.seconds",
         .default_value = "1",
         .doc = "Client quotas: the length of each of those windows, in seconds.",
         .member = &BC::quota_window_size_seconds, .min = 1, .max = 3600},
        {.key = "node.id", .other_spellings = {{"broker.id"}},
         .default_value = "1",
         .doc = "Id of this broker in metadata responses (broker.id is accepted as an alias).",
         .member = &BC::node_id, .min = 0},
        {.key = "log.dirs", .other_spellings = {{"log.dir"}},
         .default_value = "./data",
         .doc = "Directory holding the partition logs (log.dir is an alias). Only one directory "
                "is supported.",
         .member = &BC::log_dir, .check = check_single_log_dir},
        {.key = "num.partitions",
         .default_value = "1",
         .doc = "Partitions of an auto-created topic, and of a created topic that asks for the "
                "default.",
         .member = &BC::num_partitions, .min = 1},
        {.key = "auto.create.topics.enable",
         .default_value = "true",
         .doc = "Create a topic when a client produces to or asks metadata for one that does not "
                "exist.",
         .member = &BC::auto_create_topics_enable},
        {.key = "log.segment.bytes",
         .default_value = "1073741824",
         .doc = "Size at which a segment file is closed and a new one started.",
         .member = &BC::log_segment_bytes, .min = 14, .max = kInt32Max},
        {.key = "log.index.interval.bytes",
         .default_value = "4096",
         .doc = "Bytes of records between two entries of the offset index.",
         .member = &BC::log_index_interval_bytes, .min = 0},
        {.key = "log.index.size.max.bytes",
         .default_value = "10485760",
         .doc = "Maximum size of an offset or time index file; a full index rolls the segment.",
         .member = &BC::log_index_size_max_bytes, .min = 4},
        {.key = "log.roll.ms", .other_spellings = {{"log.roll.hours", kMsPerHour}},
         .default_value = "604800000",
         .default_description = "604800000 (168 hours)",
         .doc = "Age after which a segment is rolled even if not full (log.roll.hours also "
                "accepted; ms wins).",
         .member = &BC::log_roll_ms, .min = 1},
        {.key = "log.retention.ms",
         .other_spellings = {{"log.retention.minutes", kMsPerMinute},
                             {"log.retention.hours", kMsPerHour}},
         .default_value = "604800000",
         .default_description = "604800000 (168 hours)",
         .doc = "Age after which closed segments are deleted; -1 keeps them forever "
                "(log.retention.minutes and log.retention.hours also accepted; ms > minutes > "
                "hours).",
         .member = &BC::log_retention_ms, .min = 0, .minus_one_is_unlimited = true},
        {.key = "log.retention.bytes",
         .default_value = "-1",
         .doc = "Size a partition's log may reach before its oldest segments are deleted; -1 "
                "means no limit.",
         .member = &BC::log_retention_bytes, .min = 0, .minus_one_is_unlimited = true},
        {.key = "log.retention.check.interval.ms",
         .default_value = "300000",
         .doc = "How often the retention rules are applied.",
         .member = &BC::log_retention_check_interval_ms, .min = 1},
        {.key = "log.flush.interval.messages",
         .default_value = "9223372036854775807",
         .doc = "Messages appended to a partition before its log is fsynced (default: never, "
                "leave it to the OS, as Kafka does).",
         .member = &BC::log_flush_interval_messages, .min = 1},
        {.key = "log.flush.interval.ms",
         .default_value = "9223372036854775807",
         .default_description = "unset (never)",
         .doc = "Time a message may stay unflushed before the log is fsynced.",
         .member = &BC::log_flush_interval_ms, .min = 0},
        {.key = "log.flush.offset.checkpoint.interval.ms",
         .default_value = "60000",
         .doc = "How often recovery-point-offset-checkpoint is rewritten. It is also rewritten "
                "right after the background flush of a rolled segment moved a recovery point (at "
                "most once a second) and at shutdown, so a crash re-validates only the segments "
                "written since the last roll.",
         .member = &BC::log_flush_offset_checkpoint_interval_ms, .min = 1},
        {.key = "log.flush.start.offset.checkpoint.interval.ms",
         .default_value = "60000",
         .doc = "How often log-start-offset-checkpoint is rewritten (also after retention "
                "deleted segments, and at shutdown).",
         .member = &BC::log_flush_start_offset_checkpoint_interval_ms, .min = 1},
        {.key = "num.recovery.threads.per.data.dir",
         .default_value = "4",
         .doc = "Threads loading the partition logs at start-up and validating them after a "
                "crash, one partition at a time each. Kafka's default is 1; on the 2-core machine "
                "of tests/bench/RESULTS.md (\"Restart after a crash\") 4 started fastest: with a "
                "cold page cache loading mostly waits for reads and each thread keeps one in "
                "flight (a clean start of 1,000 partitions: 3.2-4.9 s with 1 thread, 1.2-1.3 s "
                "with 2, 0.9-1.1 s with 4), and with a warm cache 4 threads are no slower than 2.",
         .member = &BC::num_recovery_threads_per_data_dir, .min = 1},
        {.key = "message.max.bytes",
         .default_value = "1048588",
         .doc = "Largest record batch the broker accepts (MESSAGE_TOO_LARGE above it).",
         .member = &BC::message_max_bytes, .min = 0},
        {.key = "compression.type",
         .default_value = "producer",
         .doc = "Codec of the stored batches when a topic does not set compression.type: producer "
                "keeps each batch as the producer compressed it; uncompressed, gzip, snappy, lz4 "
                "or zstd recompresses batches sent in another codec (docs/compression.md).",
         .member = &BC::compression_type, .check = check_compression_type},
        {.key = "log.message.format.version",
         .default_value = "3.0-IV1",
         .doc = "Deprecated; accepted (any Kafka version, 0.8.0 to 3.x, optional -IVn) and "
                "ignored, as by Kafka 3.x: batches are always stored as record batch v2.",
         .member = &BC::log_message_format_version, .check = check_message_format_version},
        {.key = "log.message.timestamp.type",
         .default_value = "CreateTime",
         .doc = "The default of the topic config message.timestamp.type: CreateTime keeps the "
                "producer's timestamps; LogAppendTime stamps every batch with the broker's clock "
                "when it is appended (docs/timestamps.md).",
         .member = &BC::log_message_timestamp_type, .check = check_timestamp_type},
        {.key = "log.message.timestamp.before.max.ms",
         .default_value = "9223372036854775807",
         .default_description = "9223372036854775807 (no limit)",
         .doc = "The default of the topic config message.timestamp.before.max.ms: how far in the "
                "past a CreateTime record's timestamp may be; an older one fails its batch with "
                "INVALID_TIMESTAMP (KIP-937).",
         .member = &BC::log_message_timestamp_before_max_ms, .min = 0},
        {.key = "log.message.timestamp.after.max.ms",
         .default_value = "3600000",
         .default_description = "3600000 (1 hour, Kafka 4.x's default)",
         .doc = "The default of the topic config message.timestamp.after.max.ms: how far in the "
                "future a CreateTime record's timestamp may be; a later one fails its batch with "
                "INVALID_TIMESTAMP (KIP-937).",
         .member = &BC::log_message_timestamp_after_max_ms, .min = 0},
        {.key = "log.message.timestamp.difference.max.ms",
         .default_value = "9223372036854775807",
         .default_description = "9223372036854775807 (no limit)",
         .doc = "[DEPRECATED] Kafka 3.x's bound on both sides, the default of the topic config "
                "message.timestamp.difference.max.ms: used for the past where "
                "message.timestamp.before.max.ms keeps its default, and for the future where "
                "message.timestamp.after.max.ms does.",
         .member = &BC::log_message_timestamp_difference_max_ms, .min = 0},
        {.key = "log.segment.delete.delay.ms",
         .default_value = "60000",
         .doc = "Accepted for compatibility (the default of the topic config "
                "file.delete.delay.ms): Kafka waits this long before removing the files of a "
                "deleted segment; skiff removes them at once (a fetch still reading one keeps its "
                "open file).",
         .member = &BC::log_segment_delete_delay_ms, .min = 0},
        {.key = "socket.request.max.bytes",
         .default_value = "104857600",
         .doc = "Largest request the broker reads from a socket; a bigger frame closes the "
                "connection.",
         .member = &BC::socket_request_max_bytes, .min = 1},
        {.key = "queued.max.request.bytes",
         .default_value = "268435456",
         .default_description = "268435456 (256 MiB)",
         .doc = "Bytes of requests read but not yet answered, over all connections. Past it the "
                "broker stops reading from sockets until responses drain (clients wait; no request "
                "fails for it), and one larger than the bound is served alone. -1 means no limit "
                "(Kafka's default). Why 256 MiB: each request is buffered in full before it is "
                "handled, so without a bound a burst of large produce requests takes as much "
                "memory as clients send at once; 256 MiB keeps a laptop or small container safe "
                "while 256 batches of the default message.max.bytes, or two requests of the "
                "maximum socket.request.max.bytes, still fit at once.",
         .member = &BC::queued_max_request_bytes, .min = 1, .minus_one_is_unlimited = true},
        {.key = "socket.send.buffer.bytes",
         .default_value = "-1",
         .doc = "SO_SNDBUF of client connections; -1 leaves it to the OS (autotuned).",
         .member = &BC::socket_send_buffer_bytes, .min = -1},
        {.key = "socket.receive.buffer.bytes",
         .default_value = "-1",
         .doc = "SO_RCVBUF of client connections; -1 leaves it to the OS (autotuned).",
         .member = &BC::socket_receive_buffer_bytes, .min = -1},
        {.key = "num.network.threads",
         .default_value = "3",
         .doc = "Threads running the broker's network I/O and request handling; each connection "
                "stays on one of them.",
         .member = &BC::num_network_threads, .min = 1},
        {.key = "max.connections",
         .default_value = "2147483647",
         .doc = "Connections the broker accepts at once; more are closed on accept.",
         .member = &BC::max_connections, .min = 0},
        {.key = "connections.max.idle.ms",
         .default_value = "600000",
         .doc = "Idle time after which a connection is closed.",
         .member = &BC::connections_max_idle_ms, .min = 1},
        {.key = "group.initial.rebalance.delay.ms",
         .default_value = "3000",
         .doc = "Time the coordinator waits for more members before the first rebalance of an "
                "empty group.",
         .member = &BC::group_initial_rebalance_delay_ms, .min = 0},
        {.key = "group.coordinator.rebalance.protocols",
         .default_value = "classic,consumer",
         .doc = "Group protocols the coordinator serves: classic always; consumer (KIP-848's "
                "ConsumerGroupHeartbeat, advertised in ApiVersions) unless left out.",
         .member = &BC::group_coordinator_rebalance_protocols, .check = check_rebalance_protocols},
        {.key = "group.consumer.heartbeat.interval.ms",
         .default_value = "5000",
         .doc = "How often members of a consumer-protocol group (KIP-848) heartbeat; changes of "
                "their assignment reach them at their next heartbeat.",
         .member = &BC::group_consumer_heartbeat_interval_ms, .min = 1},
        {.key = "group.consumer.session.timeout.ms",
         .default_value = "45000",
         .doc = "A consumer-protocol group member that sends no heartbeat for this long is "
                "removed and its partitions reassigned.",
         .member = &BC::group_consumer_session_timeout_ms, .min = 1},
        {.key = "group.consumer.min.heartbeat.interval.ms",
         .default_value = "5000",
         .doc = "Lower bound of group.consumer.heartbeat.interval.ms (checked at start-up).",
         .member = &BC::group_consumer_min_heartbeat_interval_ms, .min = 1},
        {.key = "group.consumer.max.heartbeat.interval.ms",
         .default_value = "15000",
         .doc = "Upper bound of group.consumer.heartbeat.interval.ms (checked at start-up).",
         .member = &BC::group_consumer_max_heartbeat_interval_ms, .min = 1},
        {.key = "group.consumer.min.session.timeout.ms",
         .default_value = "45000",
         .doc = "Lower bound of group.consumer.session.timeout.ms (checked at start-up).",
         .member = &BC::group_consumer_min_session_timeout_ms, .min = 1},
        {.key = "group.consumer.max.session.timeout.ms",
         .default_value = "60000",
         .doc = "Upper bound of group.consumer.session.timeout.ms (checked at start-up).",
         .member = &BC::group_consumer_max_session_timeout_ms, .min = 1},
        {.key = "group.consumer.max.size",
         .default_value = "2147483647",
         .doc = "Members a consumer-protocol group may have (GROUP_MAX_SIZE_REACHED beyond).",
         .member = &BC::group_consumer_max_size, .min = 1},
        {.key = "group.share.max.share.sessions",
         .default_value = "2000",
         .doc = "Share sessions (KIP-932: one per share consumer, opened by its first ShareFetch) "
                "the broker holds at most; a new one beyond is refused with "
                "SHARE_SESSION_LIMIT_REACHED.",
         .member = &BC::group_share_max_share_sessions, .min = 1},
        {.key = "group.consumer.assignors",
         .default_value = "uniform,range",
         .doc = "Server-side assignors of consumer-protocol groups, comma-separated; the first "
                "is the default, a member may ask for another (server_assignor).",
         .member = &BC::group_consumer_assignors, .check = check_consumer_assignors},
        {.key = "group.consumer.migration.policy",
         .default_value = "bidirectional",
         .doc = "Online migration between the group protocols: upgrade (a consumer-protocol "
                "member joining a classic group with members converts it), downgrade (the last "
                "consumer-protocol member leaving converts it back), bidirectional (both) or "
                "disabled (neither). Classic members of a consumer group are always served.",
         .member = &BC::group_consumer_migration_policy, .check = check_migration_policy},
        {.key = "group.share.heartbeat.interval.ms",
         .default_value = "5000",
         .doc = "How often members of a share group (KIP-932) heartbeat; a group's "
                "share.heartbeat.interval.ms overrides it.",
         .member = &BC::group_share_heartbeat_interval_ms, .min = 1},
        {.key = "group.share.min.heartbeat.interval.ms",
         .default_value = "5000",
         .doc = "Lower bound of group.share.heartbeat.interval.ms and of a group's "
                "share.heartbeat.interval.ms.",
         .member = &BC::group_share_min_heartbeat_interval_ms, .min = 1},
        {.key = "group.share.max.heartbeat.interval.ms",
         .default_value = "15000",
         .doc = "Upper bound of group.share.heartbeat.interval.ms and of a group's "
                "share.heartbeat.interval.ms.",
         .member = &BC::group_share_max_heartbeat_interval_ms, .min = 1},
        {.key = "group.share.session.timeout.ms",
         .default_value = "45000",
         .doc = "A share group member that sends no heartbeat for this long is removed (its "
                "acquired records are released); a group's share.session.timeout.ms overrides it.",
         .member = &BC::group_share_session_timeout_ms, .min = 1},
        {.key = "group.share.min.session.timeout.ms",
         .default_value = "45000",
         .doc = "Lower bound of group.share.session.timeout.ms and of a group's "
                "share.session.timeout.ms.",
         .member = &BC::group_share_min_session_timeout_ms, .min = 1},
        {.key = "group.share.max.session.timeout.ms",
         .default_value = "60000",
         .doc = "Upper bound of group.share.session.timeout.ms and of a group's "
                "share.session.timeout.ms.",
         .member = &BC::group_share_max_session_timeout_ms, .min = 1},
        {.key = "group.share.max.size",
         .default_value = "200",
         .doc = "Members a share group may have (GROUP_MAX_SIZE_REACHED beyond).",
         .member = &BC::group_share_max_size, .min = 1, .max = 1000},
        {.key = "group.share.record.lock.duration.ms",
         .default_value = "30000",
         .doc = "How long a share consumer holds the records it acquired before they are "
                "available to others again; a group's share.record.lock.duration.ms overrides "
                "it.",
         .member = &BC::group_share_record_lock_duration_ms, .min = 1000, .max = 3600000},
        {.key = "group.share.min.record.lock.duration.ms",
         .default_value = "15000",
         .doc = "Lower bound of group.share.record.lock.duration.ms and of a group's "
                "share.record.lock.duration.ms.",
         .member = &BC::group_share_min_record_lock_duration_ms, .min = 1000, .max = 30000},
        {.key = "group.share.max.record.lock.duration.ms",
         .default_value = "60000",
         .doc = "Upper bound of group.share.record.lock.duration.ms and of a group's "
                "share.record.lock.duration.ms.",
         .member = &BC::group_share_max_record_lock_duration_ms, .min = 30000, .max = 3600000},
        {.key = "group.share.delivery.count.limit",
         .default_value = "5",
         .doc = "Deliveries of a record to share consumers after which it is archived, never "
                "delivered again; a group's share.delivery.count.limit overrides it.",
         .member = &BC::group_share_delivery_count_limit, .min = 2, .max = 10},
        {.key = "group.share.partition.max.record.locks",
         .default_value = "2000",
         .doc = "Records of one share-partition that may be acquired (in flight) at once.",
         .member = &BC::group_share_partition_max_record_locks, .min = 100, .max = 10000},
        {.key = "share.version",
         .default_value = "1",
         .doc = "The finalized level of Kafka's share.version feature when the broker starts "
                "(Kafka sets it with kafka-storage format --feature): 1 (Kafka 4.2's default) "
                "serves share groups (ShareGroupHeartbeat, ShareGroupDescribe, ShareFetch, "
                "ShareAcknowledge and the share group offsets APIs, advertised in ApiVersions), "
                "0 turns them off (docs/share-groups.md).",
         .member = &BC::share_version, .min = 0, .max = 1},
        {.key = "offsets.retention.minutes",
         .default_value = "10080",
         .doc = "Time committed offsets of an empty group are kept.",
         .member = &BC::offsets_retention_minutes, .min = 1},
        {.key = "offset.metadata.max.bytes",
         .default_value = "4096",
         .doc = "Longest metadata string an offset commit may carry "
                "(OFFSET_METADATA_TOO_LARGE above it).",
         .member = &BC::offset_metadata_max_bytes, .min = 0},
        {.key = "transaction.max.timeout.ms",
         .default_value = "900000",
         .doc = "Longest transaction.timeout.ms a producer may ask for "
                "(INVALID_TRANSACTION_TIMEOUT above it).",
         .member = &BC::transaction_max_timeout_ms, .min = 1, .max = kInt32Max},
        {.key = "transactional.id.expiration.ms",
         .default_value = "604800000",
         .doc = "Time after which a transactional id with no transaction running and no "
                "request since is forgotten.",
         .member = &BC::transactional_id_expiration_ms, .min = 1, .max = kInt32Max},
        {.key = "transaction.abort.timed.out.transaction.cleanup.interval.ms",
         .default_value = "10000",
         .doc = "How often transactions open for longer than their timeout are aborted by the "
                "broker (their producer is fenced).",
         .member = &BC::transaction_abort_timed_out_transaction_cleanup_interval_ms, .min = 1,
         .max = kInt32Max},
        {.key = "transaction.remove.expired.transaction.cleanup.interval.ms",
         .default_value = "3600000",
         .doc = "How often expired transactional ids are removed.",
         .member = &BC::transaction_remove_expired_transaction_cleanup_interval_ms, .min = 1,
         .max = kInt32Max},
        {.key = "transaction.version",
         .default_value = "2",
         .doc = "The finalized level of Kafka's transaction.version feature (KIP-890) when the "
                "broker first starts or this setting changes (Kafka sets it with kafka-storage "
                "format --feature): 0 and 1 give transactions V1 (1 with flexible "
                "__transaction_state values), 2 transactions V2. UpdateFeatures changes it at "
                "run time; that level is kept across restarts until this setting changes "
                "(docs/transactions.md).",
         .member = &BC::transaction_version, .min = 0, .max = 2},
        {.key = "transaction.state.log.segment.bytes",
         .default_value = "104857600",
         .doc = "Segment size of the internal __transaction_state log (it keeps about two "
                "segments).",
         .member = &BC::transaction_state_log_segment_bytes, .min = 1},
        {.key = "share.coordinator.state.topic.num.partitions",
         .default_value = "50",
         .doc = "Partitions of the internal __share_group_state topic, where share groups keep "
                "the state of their share-partitions (KIP-932; docs/share-groups.md). Used when "
                "the topic is created; an existing topic keeps its partitions.",
         .member = &BC::share_coordinator_state_topic_num_partitions, .min = 1},
        {.key = "share.coordinator.snapshot.update.records.per.snapshot",
         .default_value = "500",
         .doc = "How many ShareUpdate records a share-partition writes to __share_group_state "
                "between two ShareSnapshot records of its whole state (0: a snapshot every "
                "time). Replay after a restart reads at most this many updates per "
                "share-partition after its last snapshot.",
         .member = &BC::share_coordinator_snapshot_update_records_per_snapshot, .min = 0,
         .max = 500},
        {.key = "authorizer.class.name",
         .default_value = "",
         .default_description = "(empty: no authorizer)",
         .doc = "The authorizer. Empty: none, every client may do everything and the ACL APIs "
                "answer SECURITY_DISABLED. org.apache.kafka.metadata.authorizer.StandardAuthorizer "
                "or kafka.security.authorizer.AclAuthorizer: skiff's built-in ACL authorizer, "
                "ACLs kept in the data directory and checked on every request (docs/acls.md). "
                "Other class names are refused.",
         .member = &BC::authorizer_class_name, .check = check_authorizer_class_name},
        {.key = "super.users",
         .default_value = "",
         .default_description = "(empty: none)",
         .doc = "Principals allowed everything whatever the ACLs say, separated by semicolons "
                "(User:admin;User:ops).",
         .member = &BC::super_users, .check = check_super_users},
        {.key = "allow.everyone.if.no.acl.found",
         .default_value = "false",
         .doc = "With an authorizer: allow every principal on a resource that has no ACL at all "
                "(false: only super users may use it).",
         .member = &BC::allow_everyone_if_no_acl_found},
        {.key = "sasl.enabled.mechanisms",
         .default_value = "SCRAM-SHA-256,SCRAM-SHA-512",
         .doc = "SASL mechanisms offered on SASL_PLAINTEXT and SASL_SSL listeners, comma-separated: "
                "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (all checked against the SCRAM users of "
                "`skiff user`). listener.name.<listener>.sasl.enabled.mechanisms overrides it for "
                "one listener. Kafka's default is GSSAPI, which skiff does not serve; PLAIN sends "
                "the password itself, so it is not on by default (docs/security.md).",
         .member = &BC::sasl_enabled_mechanisms, .check = check_sasl_mechanisms},
        {.key = "connections.max.reauth.ms",
         .default_value = "0",
         .doc = "KIP-368: a SASL authentication expires after this long and the client must "
                "re-authenticate on its connection (librdkafka, the Java client); a connection "
                "whose authentication expired is closed at its next other request. 0: never.",
         .member = &BC::connections_max_reauth_ms, .min = 0},
        {.key = "ssl.keystore.type",
         .default_value = "PEM",
         .doc = "Format of the broker's keystore: PEM only (Kafka's default, JKS, is a Java "
                "format; docs/security.md).",
         .member = &BC::ssl_keystore_type, .check = check_pem_store_type},
        {.key = "ssl.keystore.location",
         .default_value = "",
         .default_description = "(empty: none)",
         .doc = "PEM file with the broker's private key and its certificate chain (server "
                "certificate first), for SSL and SASL_SSL listeners. Re-read on SIGHUP.",
         .member = &BC::ssl_keystore_location},
        {.key = "ssl.keystore.certificate.chain",
         .default_value = "",
         .default_description = "(empty: none)",
         .doc = "The certificate chain itself, in PEM, instead of ssl.keystore.location (with "
                "ssl.keystore.key).",
         .member = &BC::ssl_keystore_certificate_chain},
        {.key = "ssl.keystore.key",
         .default_value = "",
         .default_description = "(empty: none)",
         .doc = "The private key itself, in PEM (PKCS#8, encrypted with ssl.key.password or "
                "not), instead of ssl.keystore.location.",
         .member = &BC::ssl_keystore_key, .sensitive = true},
        {.key = "ssl.key.password",
         .default_value = "",
         .default_description = "(empty: none)",
         .doc = "Password of an encrypted private key.",
         .member = &BC::ssl_key_password, .sensitive = true},
        {.key = "ssl.truststore.type",
         .default_value = "PEM",
         .doc = "Format of the truststore: PEM only.",
         .member = &BC::ssl_truststore_type, .check = check_pem_store_type},
        {.key = "ssl.truststore.location",
         .default_value = "",
         .default_description = "(empty: none)",
         .doc = "PEM file of the CA certificates client certificates are checked against "
                "(ssl.client.auth). Re-read on SIGHUP.",
         .member = &BC::ssl_truststore_location},
        {.key = "ssl.truststore.certificates",
         .default_value = "",
         .default_description = "(empty: none)",
         .doc = "The CA certificates themselves, in PEM, instead of ssl.truststore.location.",
         .member = &BC::ssl_truststore_certificates},
        {.key = "ssl.client.auth",
         .default_value = "none",
         .doc = "Client certificates on SSL listeners: none, requested (checked when sent) or "
                "required (mutual TLS). A client certificate's subject becomes the principal "
                "(User:CN=...,O=...), unless SASL authenticates the client (SASL_SSL).",
         .member = &BC::ssl_client_auth, .check = check_ssl_client_auth},
        {.key = "ssl.enabled.protocols",
         .default_value = "TLSv1.2,TLSv1.3",
         .doc = "TLS versions served: TLSv1.2 and/or TLSv1.3.",
         .member = &BC::ssl_enabled_protocols, .check = check_ssl_protocols},
        {.key = "ssl.cipher.suites",
         .default_value = "",
         .default_description = "(empty: OpenSSL's defaults)",
         .doc = "Cipher suites, comma-separated, by their IANA names as Kafka takes them "
                "(TLS_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384) or OpenSSL's. "
                "Empty: OpenSSL's defaults.",
         .member = &BC::ssl_cipher_suites},
        {.key = "log.cleanup.policy",
         .default_value = "delete",
         .doc = "Default of the topic config cleanup.policy: delete (retention removes old "
                "segments), compact (the log cleaner keeps the last record of each key; retention "
                "by age and size does not apply) or compact,delete (both; docs/compaction.md).",
         .member = &BC::log_cleanup_policy, .check = check_cleanup_policy},
        {.key = "log.cleaner.enable",
         .default_value = "true",
         .doc = "Run the log cleaner, which compacts topics whose cleanup.policy includes "
                "compact.",
         .member = &BC::log_cleaner_enable},
        {.key = "log.cleaner.threads",
         .default_value = "1",
         .doc = "Threads cleaning logs (0: none).",
         .member = &BC::log_cleaner_threads, .min = 0},
        {.key = "log.cleaner.dedupe.buffer.size",
         .default_value = "134217728",
         .default_description = "134217728 (128 MiB)",
         .doc = "Memory for the key maps of all cleaner threads together: bounds the keys one "
                "cleaning pass can deduplicate (a log with more keys is cleaned in several "
                "passes). At least 1 MiB per cleaner thread.",
         .member = &BC::log_cleaner_dedupe_buffer_size, .min = 0},
        {.key = "log.cleaner.io.buffer.size",
         .default_value = "524288",
         .doc = "Read and write buffer memory of all cleaner threads together.",
         .member = &BC::log_cleaner_io_buffer_size, .min = 0},
        {.key = "log.cleaner.io.buffer.load.factor",
         .default_value = "0.9",
         .doc = "How full the cleaner's key map may get before a pass stops adding keys.",
         .member = &BC::log_cleaner_io_buffer_load_factor, .check = check_load_factor},
        {.key = "log.cleaner.io.max.bytes.per.second",
         .default_value = "1.7976931348623157E308",
         .default_description = "1.7976931348623157E308 (no limit)",
         .doc = "Read plus write rate limit of all cleaner threads together, in bytes per second.",
         .member = &BC::log_cleaner_io_max_bytes_per_second, .check = check_positive_double},
        {.key = "log.cleaner.backoff.ms",
         .default_value = "15000",
         .doc = "Time a cleaner thread sleeps when no log needs cleaning.",
         .member = &BC::log_cleaner_backoff_ms, .min = 0},
        {.key = "log.cleaner.delete.retention.ms",
         .default_value = "86400000",
         .default_description = "86400000 (1 day)",
         .doc = "How long a tombstone (a record with a null value) stays in a compacted log after "
                "the segment holding it was cleaned; the default of the topic config "
                "delete.retention.ms.",
         .member = &BC::log_cleaner_delete_retention_ms, .min = 0},
        {.key = "log.cleaner.min.cleanable.ratio",
         .default_value = "0.5",
         .doc = "Share of a compacted log not yet cleaned (dirty) above which it is cleaned; the "
                "default of the topic config min.cleanable.dirty.ratio.",
         .member = &BC::log_cleaner_min_cleanable_ratio, .check = check_ratio},
        {.key = "log.cleaner.min.compaction.lag.ms",
         .default_value = "0",
         .doc = "Minimum age of a record before the cleaner may remove it; the default of the "
                "topic config min.compaction.lag.ms.",
         .member = &BC::log_cleaner_min_compaction_lag_ms, .min = 0},
        {.key = "log.cleaner.max.compaction.lag.ms",
         .default_value = "9223372036854775807",
         .default_description = "9223372036854775807 (no limit)",
         .doc = "Maximum time a record stays uncleaned in a compacted log (a log with older dirty "
                "records is cleaned whatever its dirty ratio), at least "
                "log.cleaner.min.compaction.lag.ms; the default of the topic config "
                "max.compaction.lag.ms.",
         .member = &BC::log_cleaner_max_compaction_lag_ms, .min = 1},
    };
    // clang-format on
}

}  // namespace

const std::vector<SettingDescriptor>& settings() {
    static const std::vector<SettingDescriptor> table = make_table();
    return table;
}

}  // namespace skiff::config
