// Typed broker settings and how they are loaded.
//
// Sources, lowest to highest precedence:
//   1. the defaults below (Kafka's names and defaults; see settings.h for the table),
//   2. the properties file given with `--config FILE`,
//   3. environment variables `SKIFF_<KEY>`: upper case, '.' as '_' (SKIFF_LOG_DIRS is log.dirs),
//   4. `--override key=value`, in command-line order.
// A setting with several spellings (node.id / broker.id, log.retention.ms / .minutes / .hours) is
// decided by the highest source that sets any spelling; within one source the canonical or finer
// spelling wins (ms > minutes > hours), as in Kafka, and the shadowed one is reported as a warning.
// So `--override log.retention.hours=1` beats log.retention.ms in the file.
//
// Unknown keys are warnings. An invalid value stops start-up with a ConfigError naming the key,
// the value, where it came from and what is allowed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/listener.h"
#include "protocol/expected.h"

namespace skiff::config {

// Defaults here must equal the `default` column of the settings table (a test checks it).
struct BrokerConfig {
    std::vector<Listener> listeners{Listener{"PLAINTEXT", "127.0.0.1", 9092}};
    // When not set: `listeners` with wildcard hosts replaced by loopback (0.0.0.0 -> 127.0.0.1,
    // :: -> ::1). A port of 0 stays 0; the broker advertises the port it actually bound. Each
    // connection is given the entry named as the listener it came through (a listener missing
    // here advertises its own address: config::effective_advertised).
    std::vector<Listener> advertised_listeners{Listener{"PLAINTEXT", "127.0.0.1", 9092}};
    // NAME:PROTOCOL pairs giving each listener its security protocol (Kafka's name and default);
    // checked against `listeners` when loaded, see config/listener.h.
    std::string listener_security_protocol_map{kDefaultSecurityProtocolMap};
    // The operations HTTP endpoint (/metrics, /health/live, /health/ready): HTTP://host:port,
    // empty for none. Apart from the Kafka listeners; loopback only by default, as they are.
    std::string metrics_listener = "HTTP://127.0.0.1:9649";
    // The schema registry (docs/schema-registry.md): its HTTP(S) listeners, empty for none; how
    // callers authenticate (NONE or BASIC against the SCRAM users); the largest request body;
    // the compatibility level of subjects without their own.
    std::string schema_registry_listeners = "http://127.0.0.1:8081";
    std::string schema_registry_authentication = "NONE";
    int32_t schema_registry_max_request_bytes = 4194304;
    std::string schema_registry_compatibility_level = "BACKWARD";
    // The web console and its HTTP API (docs/console.md): its HTTP(S) listeners, empty for
    // none; whether it only reads (the default) or may also change topics, offsets and produce.
    std::string console_listeners = "http://127.0.0.1:8080";
    bool console_read_only = true;
    // The test-control API (docs/control-api.md) on the metrics listener: off by default; its
    // bearer token ("" for none); how many requests it keeps for inspection. An Apache Kafka
    // release whose ApiVersions skiff answers with ("" for skiff's own).
    bool control_api_enable = false;
    std::string control_api_token;
    int32_t control_api_capture_requests = 1000;
    std::string emulate_kafka_version;
    // Client telemetry (KIP-714, docs/client-telemetry.md): off by default (the APIs are then not
    // advertised, as in Kafka without a ClientTelemetry plugin); the metric name prefixes and
    // push interval handed to clients; the largest push; how many clients' metrics are kept.
    bool client_telemetry_enable = false;
    std::string client_telemetry_metrics = "org.apache.kafka.";
    int32_t client_telemetry_push_interval_ms = 30000;
    int32_t telemetry_max_bytes = 1048576;
    int32_t client_telemetry_max_clients = 1000;
    // Client quotas (docs/quotas.md): the rate is measured over this many windows of this many
    // seconds, as Kafka's quota.window.num and quota.window.size.seconds.
    int32_t quota_window_num = 11;
    int32_t quota_window_size_seconds = 1;
    int32_t node_id = 1;
    std::string log_dir = "./data";
    int32_t num_partitions = 1;
    bool auto_create_topics_enable = true;
    int64_t log_segment_bytes = 1073741824;
    int32_t log_index_interval_bytes = 4096;
    int32_t log_index_size_max_bytes = 10485760;
    int64_t log_roll_ms = 604800000;
    int64_t log_retention_ms = 604800000;  // -1: unlimited
    int64_t log_retention_bytes = -1;      // -1: unlimited
    int64_t log_retention_check_interval_ms = 300000;
    int64_t log_flush_interval_messages = INT64_MAX;
    int64_t log_flush_interval_ms = INT64_MAX;  // INT64_MAX: never flush on a timer
    int64_t log_flush_offset_checkpoint_interval_ms = 60000;
    int64_t log_flush_start_offset_checkpoint_interval_ms = 60000;
    int32_t num_recovery_threads_per_data_dir = 4;
    int32_t message_max_bytes = 1048588;
    // Default of the topic config compression.type: producer (store batches as sent),
    // uncompressed, gzip, snappy, lz4 or zstd.
    std::string compression_type = "producer";
    // Accepted for compatibility and ignored: batches are always record batch v2.
    std::string log_message_format_version = "3.0-IV1";
    // Defaults of the topic configs message.timestamp.*: which time a stored batch carries
    // (CreateTime: the producer's; LogAppendTime: the broker's on append) and how far a
    // CreateTime record may lie before or after the broker's clock (Kafka 4.x's defaults: any
    // time in the past, at most an hour ahead). difference.max.ms is Kafka 3.x's deprecated
    // bound on both sides, used where before/after keep their defaults.
    std::string log_message_timestamp_type = "CreateTime";
    int64_t log_message_timestamp_before_max_ms = INT64_MAX;
    int64_t log_message_timestamp_after_max_ms = 3600000;
    int64_t log_message_timestamp_difference_max_ms = INT64_MAX;
    // Accepted for compatibility: Kafka waits this long before removing a deleted segment's
    // files; skiff removes them at once (a reader still holding one keeps reading it).
    int64_t log_segment_delete_delay_ms = 60000;
    int32_t socket_request_max_bytes = 104857600;
    // Kafka's default is -1 (unlimited). 256 MiB keeps a laptop or a small container safe from a
    // burst of large produce requests (each buffered in full before it is handled) while still
    // letting 256 maximum-size (message.max.bytes) batches, or two requests of the maximum
    // socket.request.max.bytes, be in flight at once.
    int64_t queued_max_request_bytes = 268435456;  // -1: unlimited
    int32_t socket_send_buffer_bytes = -1;         // -1: the OS default (autotuned)
    int32_t socket_receive_buffer_bytes = -1;      // -1: the OS default (autotuned)
    int32_t num_network_threads = 3;               // the broker's I/O threads
    int32_t max_connections = INT32_MAX;
    int64_t connections_max_idle_ms = 600000;
    int64_t group_initial_rebalance_delay_ms = 3000;
    // The KIP-848 consumer group protocol (docs/consumer-groups.md).
    std::string group_coordinator_rebalance_protocols = "classic,consumer";
    int32_t group_consumer_heartbeat_interval_ms = 5000;
    int32_t group_consumer_session_timeout_ms = 45000;
    int32_t group_consumer_max_size = INT32_MAX;
    std::string group_consumer_assignors = "uniform,range";
    std::string group_consumer_migration_policy = "bidirectional";
    int32_t group_consumer_min_heartbeat_interval_ms = 5000;
    int32_t group_consumer_max_heartbeat_interval_ms = 15000;
    int32_t group_consumer_min_session_timeout_ms = 45000;
    int32_t group_consumer_max_session_timeout_ms = 60000;
    // KIP-932 share groups (docs/share-groups.md), Kafka 4.2's names and defaults.
    int32_t group_share_heartbeat_interval_ms = 5000;
    int32_t group_share_min_heartbeat_interval_ms = 5000;
    int32_t group_share_max_heartbeat_interval_ms = 15000;
    int32_t group_share_session_timeout_ms = 45000;
    int32_t group_share_min_session_timeout_ms = 45000;
    int32_t group_share_max_session_timeout_ms = 60000;
    int32_t group_share_max_size = 200;
    int32_t group_share_record_lock_duration_ms = 30000;
    int32_t group_share_min_record_lock_duration_ms = 15000;
    int32_t group_share_max_record_lock_duration_ms = 60000;
    int32_t group_share_delivery_count_limit = 5;
    int32_t group_share_partition_max_record_locks = 2000;
    // share.version: the finalized level of Kafka's share.version feature (1: share groups on).
    int32_t share_version = 1;
    // Share groups (KIP-932, docs/share-groups.md): the share sessions this broker holds at most
    // (ShareFetch's SHARE_SESSION_LIMIT_REACHED beyond).
    int32_t group_share_max_share_sessions = 2000;
    int64_t offsets_retention_minutes = 10080;
    int32_t offset_metadata_max_bytes = 4096;
    int64_t transaction_max_timeout_ms = 900000;
    int64_t transactional_id_expiration_ms = 604800000;
    int64_t transaction_abort_timed_out_transaction_cleanup_interval_ms = 10000;
    int64_t transaction_remove_expired_transaction_cleanup_interval_ms = 3600000;
    int32_t transaction_state_log_segment_bytes = 104857600;
    // Share groups' state (broker/share/share_state_store.h).
    int32_t share_coordinator_state_topic_num_partitions = 50;
    int32_t share_coordinator_snapshot_update_records_per_snapshot = 500;
    // transaction.version: the finalized level at first start (broker/txn/finalized_features.h).
    int32_t transaction_version = 2;
    // Authorization (docs/acls.md). Empty: no authorizer (the ACL APIs answer SECURITY_DISABLED);
    // Kafka's AclAuthorizer or StandardAuthorizer class name: skiff's built-in ACL authorizer.
    std::string authorizer_class_name;
    std::string super_users;  // "User:admin;User:ops"
    bool allow_everyone_if_no_acl_found = false;
    // SASL (docs/security.md): the mechanisms SASL listeners offer, comma-separated, and the
    // per-listener overrides from `listener.name.<listener>.sasl.enabled.mechanisms` (keys are
    // upper-cased listener names).
    std::string sasl_enabled_mechanisms = "SCRAM-SHA-256,SCRAM-SHA-512";
    std::map<std::string, std::string> listener_sasl_enabled_mechanisms;
    // KIP-368: how long a SASL authentication holds before the client must re-authenticate on
    // the same connection; 0: for as long as the connection lasts.
    int64_t connections_max_reauth_ms = 0;
    // TLS for SSL and SASL_SSL listeners (docs/security.md), Kafka's PEM settings. The keystore
    // is the broker's key and certificate chain: a file (ssl.keystore.location, key and chain in
    // PEM) or the PEM text itself (ssl.keystore.key + ssl.keystore.certificate.chain); the key
    // may be encrypted with ssl.key.password. The truststore is the CAs client certificates are
    // checked against: a file or the PEM text.
    std::string ssl_keystore_type = "PEM";
    std::string ssl_keystore_location;
    std::string ssl_keystore_certificate_chain;
    std::string ssl_keystore_key;
    std::string ssl_key_password;
    std::string ssl_truststore_type = "PEM";
    std::string ssl_truststore_location;
    std::string ssl_truststore_certificates;
    std::string ssl_client_auth = "none";  // none, requested, required
    std::string ssl_enabled_protocols = "TLSv1.2,TLSv1.3";
    std::string ssl_cipher_suites;  // empty: OpenSSL's defaults
    // Log compaction (Kafka's names and defaults). The topic-level defaults: log.cleanup.policy
    // (cleanup.policy), delete.retention.ms, min.cleanable.dirty.ratio, min/max.compaction.lag.ms.
    std::string log_cleanup_policy = "delete";
    int64_t log_cleaner_delete_retention_ms = 86400000;
    double log_cleaner_min_cleanable_ratio = 0.5;
    int64_t log_cleaner_min_compaction_lag_ms = 0;
    int64_t log_cleaner_max_compaction_lag_ms = INT64_MAX;
    // The cleaner itself (global, not per topic).
    bool log_cleaner_enable = true;
    int32_t log_cleaner_threads = 1;                     // 0: no cleaning
    int64_t log_cleaner_dedupe_buffer_size = 134217728;  // shared by all cleaner threads
    int32_t log_cleaner_io_buffer_size = 524288;         // shared by all cleaner threads
    double log_cleaner_io_buffer_load_factor = 0.9;      // fill of the dedupe map
    double log_cleaner_io_max_bytes_per_second = std::numeric_limits<double>::max();
    int64_t log_cleaner_backoff_ms = 15000;  // sleep when no log needs cleaning

    bool operator==(const BrokerConfig&) const = default;
};

// Why start-up stops. `message` is the complete sentence to print, e.g.
//   invalid value "abc" for log.segment.bytes (from --override): expected an integer between 14
//   and 2147483647
// For problems not tied to a key (unreadable file, malformed --override) `key` is empty.
struct ConfigError {
    std::string key;
    std::string value;
    std::string
        source;  // "path/server.properties:12", "environment variable SKIFF_X", "--override"
    std::string message;
};

// One setting whose effective value differs from its default.
struct SettingOrigin {
    std::string key;     // canonical name, e.g. log.retention.ms
    std::string value;   // effective value in the canonical unit, e.g. 3600000
    std::string source;  // as in ConfigError
    std::string set_as;  // the spelling used when it was an alias, e.g. log.retention.hours=1
};

struct LoadedConfig {
    BrokerConfig config;
    std::vector<std::string> warnings;        // unknown keys, shadowed spellings
    std::vector<SettingOrigin> non_defaults;  // in settings-table order
};

struct ConfigSources {
    std::optional<std::filesystem::path> file;
    std::vector<std::string> overrides;                            // "key=value"
    std::vector<std::pair<std::string, std::string>> environment;  // all env vars; SKIFF_* used
};

Expected<LoadedConfig, ConfigError> load_config(const ConfigSources& sources);

// Turns a NULL-terminated `envp` (main's third argument or `environ`) into name/value pairs.
std::vector<std::pair<std::string, std::string>> environment_from(char** envp);

}  // namespace skiff::config
