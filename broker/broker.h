// The state every request handler shares: configuration, the partition logs, the topic
// registry, long-poll waiters, the group and transaction coordinators and the cluster identity.
// Owned by the Server; handlers get a reference through their RequestContext. Every member is safe
// to use from any I/O thread.
#pragma once

#include <memory>
#include <string>

#include "broker/group/group_coordinator.h"
#include "broker/group/offset_store.h"
#include "broker/metrics/connection_metrics.h"
#include "broker/metrics/request_metrics.h"
#include "broker/partition_waiters.h"
#include "broker/producer_ids.h"
#include "broker/security/authorizer.h"
#include "broker/topic_registry.h"
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
    txn::TransactionCoordinator& transactions() { return *transactions_; }
    const std::string& cluster_id() const { return cluster_id_; }
    metrics::RequestMetrics& request_metrics() { return request_metrics_; }
    metrics::ConnectionMetrics& connection_metrics() { return connection_metrics_; }
    // The ACL authorizer, or null when `authorizer.class.name` is empty (docs/acls.md).
    security::Authorizer* authorizer() { return authorizer_.get(); }
    int32_t node_id() const { return config_.node_id; }

    // Where clients should connect: the first advertised listener, with the bound port filled
    // in when the listener asked for an ephemeral port (0).
    const std::string& advertised_host() const { return advertised_host_; }
    int32_t advertised_port() const { return advertised_port_; }
    void set_bound_port(uint16_t port);

  private:
    void open_groups();
    void open_transactions();

    config::BrokerConfig config_;
    std::unique_ptr<storage::LogManager> logs_;
    TopicRegistry topics_;
    PartitionWaiters waiters_;
    ProducerIdAllocator producer_ids_;
    std::unique_ptr<group::OffsetStore> offset_store_;  // in the internal __consumer_offsets log
    std::unique_ptr<group::GroupCoordinator> groups_;
    // In the internal __transaction_state log; opened after the groups, since completing a
    // transaction found prepared at start writes markers to __consumer_offsets too.
    std::unique_ptr<txn::TransactionCoordinator> transactions_;
    std::string cluster_id_;
    metrics::RequestMetrics request_metrics_;
    metrics::ConnectionMetrics connection_metrics_;
    std::unique_ptr<security::Authorizer> authorizer_;
    std::string advertised_host_;
    int32_t advertised_port_ = 9092;
};

}  // namespace skiff::broker
