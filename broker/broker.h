// The state every request handler shares: configuration, the partition logs, the topic
// registry, long-poll waiters, the group and transaction coordinators and the cluster identity.
// Owned by the Server; handlers get a reference through their RequestContext. Every member is safe
// to use from any I/O thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "broker/control/control_plane.h"
#include "broker/control/version_emulation.h"
#include "broker/group/group_configs.h"
#include "broker/group/group_coordinator.h"
#include "broker/group/offset_store.h"
#include "broker/group/share/coordinator_share_membership.h"
#include "broker/metrics/connection_metrics.h"
#include "broker/metrics/request_metrics.h"
#include "broker/quotas/client_quota_store.h"
#include "broker/schema_registry/registry.h"
#include "broker/schema_registry/service/schemas_topic.h"
#include "broker/security/authorizer.h"
#include "broker/security/credential_store.h"
#include "broker/share/share_membership.h"
#include "broker/share/share_offsets_admin.h"
#include "broker/share/share_partition_manager.h"
#include "broker/share/share_partitions.h"
#include "broker/share/share_session_cache.h"
#include "broker/telemetry/client_telemetry.h"
#include "broker/topics/dynamic_broker_config.h"
#include "broker/topics/partition_waiters.h"
#include "broker/topics/topic_registry.h"
#include "broker/txn/finalized_features.h"
#include "broker/txn/producer_ids.h"
#include "broker/txn/transaction_coordinator.h"
#include "config/broker_config.h"
#include "storage/log_config.h"
#include "storage/log_manager.h"

namespace skiff::broker {

// The broker's settings as storage/ wants them (storage never sees the global config).
storage::LogConfig log_config_from(const config::BrokerConfig& config);

class Broker {
  public:
    Broker(config::BrokerConfig config, std::unique_ptr<storage::LogManager> logs,
           std::string cluster_id);

    const config::BrokerConfig& config() const { return config_; }
    storage::LogManager& logs() { return *logs_; }
    TopicRegistry& topics() { return topics_; }
    PartitionWaiters& waiters() { return waiters_; }
    ProducerIdAllocator& producer_ids() { return producer_ids_; }
    group::GroupCoordinator& groups() { return *groups_; }
    // The topics as group types see them (sizes, names, ids both ways), over topics().
    group::TopicView group_topic_view();
    txn::TransactionCoordinator& transactions() { return *transactions_; }
    // Finalized feature levels (transaction.version), as ApiVersions and UpdateFeatures see them.
    txn::FinalizedFeatures& features() { return features_; }
    const std::string& cluster_id() const { return cluster_id_; }
    metrics::RequestMetrics& request_metrics() { return request_metrics_; }
    metrics::ConnectionMetrics& connection_metrics() { return connection_metrics_; }
    // The ACL authorizer, or null when `authorizer.class.name` is empty (docs/acls.md).
    security::Authorizer* authorizer() { return authorizer_.get(); }
    // The SCRAM users (<log.dirs>/scram-credentials), which SASL checks passwords against.
    security::CredentialStore& credentials() { return *credentials_; }
    // The client quotas set with AlterClientQuotas (<log.dirs>/client-quotas), and their
    // enforcement on Produce and Fetch (docs/quotas.md).
    quotas::ClientQuotaStore& client_quotas() { return *client_quotas_; }
    quotas::ClientQuotaManager& quota_manager() { return *quota_manager_; }
    int32_t node_id() const { return config_.node_id; }
    // The schema registry's state (its HTTP side is the Server's), or null when
    // schema.registry.listeners is empty (docs/schema-registry.md).
    schema_registry::Registry* schema_registry() { return schema_registry_.get(); }
    // The test-control API's state (docs/control-api.md), or null when control.api.enable is
    // off: then the request path does nothing of it.
    control::ControlPlane* control() { return control_.get(); }
    // Client telemetry (KIP-714, docs/client-telemetry.md), or null when client.telemetry.enable
    // is off.
    telemetry::ClientTelemetry* client_telemetry() { return client_telemetry_.get(); }
    // emulate.kafka.version: the Apache Kafka release whose ApiVersions skiff answers with.
    control::VersionEmulation& emulation() { return emulation_; }
    // Broker configs set through AlterConfigs; already applied to config() when skiff started.
    DynamicBrokerConfigs& dynamic_configs() { return *dynamic_configs_; }
    // Share groups (KIP-932, docs/share-groups.md): their membership (the group coordinator's
    // share groups), their share-partitions, and those as the admin APIs 90-92 see them; each
    // null until opened at start-up. The setters are for the broker's own start-up (which owns
    // the objects) and for handler unit tests (fakes).
    share::ShareMembership* share_membership() { return share_membership_; }
    // Groups' own configs (GROUP resources of DescribeConfigs / IncrementalAlterConfigs).
    group::GroupConfigs& group_configs() { return *group_configs_; }
    void set_share_membership(share::ShareMembership* m) { share_membership_ = m; }
    share::SharePartitionManager* share_partitions() { return share_partitions_; }
    void set_share_partitions(share::SharePartitionManager* m) { share_partitions_ = m; }
    share::ShareOffsetsAdmin* share_offsets_admin() { return share_offsets_admin_; }
    void set_share_offsets_admin(share::ShareOffsetsAdmin* admin) { share_offsets_admin_ = admin; }
    // The share consumers' sessions (ShareFetch / ShareAcknowledge), at most
    // group.share.max.share.sessions. The ShareMembership listener composed at start-up must call
    // its member_left / group_deleted.
    share::ShareSessionCache& share_sessions() { return share_sessions_; }
    // A connection that opened share sessions closed: they go, and what their members hold is
    // released (ShareSessionCache::connection_closed). Never throws: called as it is destroyed.
    void share_connection_closed(uint64_t connection_id) noexcept;

    // Where a client that connected through listener `listener` (its name) should connect: that
    // listener's advertised address (config::effective_advertised), with the bound port filled
    // in when the listener asked for an ephemeral port (0). An unknown or empty name (handler
    // unit tests, which have no connection) gives the first listener's.
    const config::Listener& advertised(std::string_view listener) const;
    // The security protocol `listener.security.protocol.map` gives the listener named `listener`
    // (PLAINTEXT for an unknown name: unit tests without a connection).
    config::SecurityProtocol security_protocol(std::string_view listener) const;
    // Called once per listener after it bound, before any connection is accepted.
    void set_bound_port(std::string_view listener, uint16_t port);

    // broker/control's reset and restore, after they replaced the logs: the internal topics are
    // created if missing and the coordinators (groups and committed offsets, transactions, the
    // schema registry) forget their state and load it from those logs, in the constructor's
    // order, in place (the Server and its timers hold references to them). Throws
    // std::runtime_error as the constructor does.
    void reopen_internal_state();

  private:
    // The internal topic's one partition, created if missing (throws when it cannot be).
    storage::PartitionLog& internal_log(const std::string& topic);
    storage::PartitionLog& schemas_log();  // _schemas, made compacted
    void open_groups();
    void open_transactions();
    void open_schema_registry();
    void replay_schemas();  // _schemas into the registry
    // __share_group_state's partitions if it exists, and how to create it when first needed.
    share::ShareStateLogs share_state_logs();
    void open_share_partitions();

    config::BrokerConfig config_;
    std::unique_ptr<storage::LogManager> logs_;
    TopicRegistry topics_;
    PartitionWaiters waiters_;
    ProducerIdAllocator producer_ids_;
    txn::FinalizedFeatures features_;
    std::unique_ptr<group::OffsetStore> offset_store_;    // in the internal __consumer_offsets log
    std::unique_ptr<group::GroupConfigs> group_configs_;  // <log dir>/group-configs
    std::unique_ptr<group::share::CoordinatorShareMembership> coordinator_share_membership_;
    std::unique_ptr<group::GroupCoordinator> groups_;
    // In the internal __transaction_state log; opened after the groups, since completing a
    // transaction found prepared at start writes markers to __consumer_offsets too.
    std::unique_ptr<txn::TransactionCoordinator> transactions_;
    std::string cluster_id_;
    metrics::RequestMetrics request_metrics_;
    metrics::ConnectionMetrics connection_metrics_;
    std::vector<config::Listener> advertised_;  // one per config_.listeners entry, same order
    std::unique_ptr<security::Authorizer> authorizer_;
    config::SecurityProtocolMap security_protocols_;  // parsed listener.security.protocol.map
    std::unique_ptr<DynamicBrokerConfigs> dynamic_configs_;
    std::unique_ptr<security::CredentialStore> credentials_;
    std::unique_ptr<quotas::ClientQuotaManager> quota_manager_;  // before the store that feeds it
    std::unique_ptr<quotas::ClientQuotaStore> client_quotas_;
    // In the compacted _schemas topic; the registry writes through it, so it outlives it.
    std::unique_ptr<schema_registry_service::SchemasTopic> schemas_topic_;
    std::unique_ptr<schema_registry::Registry> schema_registry_;
    std::unique_ptr<control::ControlPlane> control_;
    std::unique_ptr<telemetry::ClientTelemetry> client_telemetry_;
    control::VersionEmulation emulation_;
    share::ShareMembership* share_membership_ = nullptr;
    share::SharePartitionManager* share_partitions_ = nullptr;
    share::ShareOffsetsAdmin* share_offsets_admin_ = nullptr;
    // The share-partitions' state, in __share_group_state (set as share_partitions_ and
    // share_offsets_admin_ at start-up).
    std::unique_ptr<share::SharePartitions> share_state_;
    share::ShareSessionCache share_sessions_{config_.group_share_max_share_sessions};
};

}  // namespace skiff::broker
