#include "broker/broker.h"

#include "broker/schema_registry/service/registry_acls.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "broker/topics/topic_ids.h"
#include "config/listener.h"
#include "config/settings.h"
#include "config/value_syntax.h"

namespace skiff::broker {

storage::LogConfig log_config_from(const config::BrokerConfig& c) {
    storage::LogConfig l;
    l.segment_bytes = static_cast<uint64_t>(c.log_segment_bytes);
    l.index_interval_bytes = static_cast<uint32_t>(c.log_index_interval_bytes);
    l.index_size_max_bytes = static_cast<uint32_t>(c.log_index_size_max_bytes);
    l.roll_ms = c.log_roll_ms;
    l.retention_ms = c.log_retention_ms;
    l.retention_bytes = c.log_retention_bytes;
    l.flush_interval_messages = c.log_flush_interval_messages;
    l.flush_interval_ms = c.log_flush_interval_ms;
    // The load validated log.cleanup.policy; a broken value cannot get here.
    if (auto policy = config::parse_cleanup_policy(c.log_cleanup_policy)) {
        l.cleanup_delete = policy->delete_;
        l.cleanup_compact = policy->compact;
    }
    l.delete_retention_ms = c.log_cleaner_delete_retention_ms;
    l.min_cleanable_dirty_ratio = c.log_cleaner_min_cleanable_ratio;
    l.min_compaction_lag_ms = c.log_cleaner_min_compaction_lag_ms;
    l.max_compaction_lag_ms = c.log_cleaner_max_compaction_lag_ms;
    l.log_append_time = c.log_message_timestamp_type == "LogAppendTime";
    return l;
}

Broker::Broker(config::BrokerConfig config, std::unique_ptr<storage::LogManager> logs,
               std::string cluster_id)
    : config_(std::move(config)),
      logs_(std::move(logs)),
      topics_(*logs_),
      producer_ids_(logs_->log_dir()),
      features_(logs_->log_dir(), static_cast<int16_t>(config_.transaction_version)),
      cluster_id_(std::move(cluster_id)),
      advertised_(config::effective_advertised(config_.listeners, config_.advertised_listeners)) {
    if (advertised_.empty())  // the loader refuses an empty listeners; a test could build one
        advertised_ = config::effective_advertised(config::BrokerConfig{}.listeners, {});
    // The loader has checked the map; a test's hand-built config may leave it unparsable, which
    // then serves every listener as PLAINTEXT (the default).
    if (auto map = config::parse_security_protocol_map(config_.listener_security_protocol_map))
        security_protocols_ = std::move(*map);
    auto dynamic = DynamicBrokerConfigs::load(logs_->log_dir(), config_.node_id);
    if (!dynamic)
        throw std::runtime_error(dynamic.error());
    dynamic_configs_ = std::make_unique<DynamicBrokerConfigs>(std::move(*dynamic));
    auto credentials = security::CredentialStore::open(logs_->log_dir());
    if (!credentials)
        throw std::runtime_error(credentials.error().message);
    credentials_ = std::move(*credentials);
    quota_manager_ = std::make_unique<quotas::ClientQuotaManager>(quotas::QuotaWindow{
        .samples = config_.quota_window_num,
        .window_ms = static_cast<int64_t>(config_.quota_window_size_seconds) * 1000});
    auto client_quotas = quotas::ClientQuotaStore::open(logs_->log_dir(), *quota_manager_);
    if (!client_quotas)
        throw std::runtime_error(client_quotas.error());
    client_quotas_ = std::move(*client_quotas);
    if (!config_.authorizer_class_name.empty()) {
        security::AuthorizerSettings settings;
        settings.super_users = security::parse_super_users(config_.super_users);
        settings.allow_everyone_if_no_acl_found = config_.allow_everyone_if_no_acl_found;
        authorizer_ = std::make_unique<security::Authorizer>(logs_->log_dir(), std::move(settings));
    }
    open_groups();
    open_transactions();
    open_share_partitions();
    open_schema_registry();
    if (auto error = emulation_.set(config_.emulate_kafka_version))
        throw std::runtime_error("emulate.kafka.version: " + *error);
    if (config_.control_api_enable)
        control_ = std::make_unique<control::ControlPlane>(
            static_cast<size_t>(config_.control_api_capture_requests));
    if (config_.client_telemetry_enable)
        client_telemetry_ =
            std::make_unique<telemetry::ClientTelemetry>(telemetry::telemetry_settings(config_));
}

storage::PartitionLog& Broker::internal_log(const std::string& topic) {
    auto created = topics_.get_or_create(topic, 1);
    auto* log = created.error == protocol::ErrorCode::none ? logs_->get({topic, 0}) : nullptr;
    if (!log)
        throw std::runtime_error("cannot open the internal topic " + topic + ": " +
                                 created.message);
    return *log;
}

storage::PartitionLog& Broker::schemas_log() {
    // One partition, compacted (as Confluent creates it): the latest record of each key is the
    // state, and the topic stays as small as the registry.
    const std::string topic(schema_registry_service::kSchemasTopic);
    auto& log = internal_log(topic);
    auto overrides = topics_.overrides(topic).value_or(TopicOverrides{});
    if (overrides.find("cleanup.policy") == overrides.end()) {
        overrides["cleanup.policy"] = "compact";
        auto set = topics_.set_overrides(topic, overrides, false);
        if (set.error != protocol::ErrorCode::none)
            throw std::runtime_error("cannot make " + topic + " compacted: " + set.message);
    }
    return log;
}

void Broker::reopen_internal_state() {
    // The groups first, as at start: completing a transaction found prepared writes markers to
    // __consumer_offsets too. The groups are cleared before the store switches logs, so no tick
    // stages an old group's records for the new log.
    groups_->clear_groups();
    if (auto reopened = offset_store_->reopen(internal_log(group::kOffsetsTopic)); !reopened)
        throw std::runtime_error("cannot load committed offsets: " + reopened.error());
    groups_->restore(group_topic_view(), group_configs_.get());
    if (auto reopened = transactions_->reopen(internal_log(txn::kTransactionStateTopic)); !reopened)
        throw std::runtime_error("cannot load the transaction state: " + reopened.error());
    if (auto reopened = share_state_->reopen(share_state_logs()); !reopened)
        throw std::runtime_error("cannot load the share group state: " + reopened.error());
    if (schema_registry_) {
        schemas_topic_->rebind(schemas_log());
        schema_registry_->clear();
        replay_schemas();
    }
}

void Broker::open_groups() {
    // Committed offsets live in the internal topic, one partition (see group/offset_store.h).
    auto* log = &internal_log(group::kOffsetsTopic);
    auto base = log_config_from(config_);
    // Bounded by snapshots and its own retention, never compacted, whatever log.cleanup.policy.
    base.cleanup_delete = true;
    base.cleanup_compact = false;
    constexpr uint64_t kOffsetsSegmentBytes = 8 << 20;
    base.segment_bytes = std::min(base.segment_bytes, kOffsetsSegmentBytes);
    auto store = group::OffsetStore::open(*log, base);
    if (!store)
        throw std::runtime_error("cannot load committed offsets: " + store.error());
    offset_store_ = std::move(*store);
    offset_store_->set_group_committer(&logs_->group_commit());
    group::CoordinatorConfig gc;
    gc.initial_rebalance_delay_ms = config_.group_initial_rebalance_delay_ms;
    gc.offsets_retention_ms = config_.offsets_retention_minutes * 60 * 1000;
    gc.consumer.heartbeat_interval_ms = config_.group_consumer_heartbeat_interval_ms;
    gc.consumer.session_timeout_ms = config_.group_consumer_session_timeout_ms;
    gc.consumer.max_size = config_.group_consumer_max_size;
    gc.consumer.assignors.clear();
    for (const auto& entry : config::split_comma_list(config_.group_consumer_assignors))
        if (auto name = config::consumer_assignor_name(entry))
            gc.consumer.assignors.push_back(*name);
    if (gc.consumer.assignors.empty())
        gc.consumer.assignors = {"uniform", "range"};
    gc.migration = group::parse_migration_policy(config_.group_consumer_migration_policy);
    gc.share.heartbeat_interval_ms = config_.group_share_heartbeat_interval_ms;
    gc.share.session_timeout_ms = config_.group_share_session_timeout_ms;
    gc.share.max_size = config_.group_share_max_size;
    groups_ = std::make_unique<group::GroupCoordinator>(gc, *offset_store_);
    // The groups' own configs (consumer.* and share.*: their session timeouts among them).
    group_configs_ =
        std::make_unique<group::GroupConfigs>(logs_->log_dir() / group::kGroupConfigsFile, config_);
    // Members that keep heartbeating after a restart carry on where they were.
    groups_->restore(group_topic_view(), group_configs_.get());
    // Share groups' membership as ShareFetch and ShareAcknowledge see it, with the groups' own
    // configs (broker/share/share_membership.h).
    coordinator_share_membership_ =
        std::make_unique<group::share::CoordinatorShareMembership>(*groups_, *group_configs_);
    set_share_membership(coordinator_share_membership_.get());
}

group::TopicView Broker::group_topic_view() {
    TopicRegistry& topics = topics_;
    return {[&topics](const std::string& topic) { return topics.partition_count(topic); },
            [&topics] {
                std::vector<std::string> names;
                for (auto& t : topics.list())
                    names.push_back(std::move(t.name));
                return names;
            },
            [&topics](const std::string& topic) -> std::optional<protocol::Uuid> {
                auto id = topics.topic_id(topic);
                if (!id)
                    return std::nullopt;
                return to_uuid(*id);
            },
            [&topics](const protocol::Uuid& id) { return topic_name_of(topics, id); }};
}

void Broker::open_transactions() {
    // The transaction coordinator's state, one partition (see txn/transaction_coordinator.h).
    auto* log = &internal_log(txn::kTransactionStateTopic);
    auto base = log_config_from(config_);
    // Bounded by snapshots and its own retention, never compacted, whatever log.cleanup.policy.
    base.cleanup_delete = true;
    base.cleanup_compact = false;
    base.segment_bytes = static_cast<uint64_t>(config_.transaction_state_log_segment_bytes);
    txn::TxnCoordinatorConfig tc;
    tc.max_timeout_ms = config_.transaction_max_timeout_ms;
    tc.transactional_id_expiration_ms = config_.transactional_id_expiration_ms;
    txn::TxnCoordinatorHooks hooks;
    hooks.next_producer_id = [this] { return producer_ids_.next(); };
    hooks.transaction_version = [this] { return features_.transaction_version(); };
    hooks.write_marker = [this](const storage::TopicPartition& tp, const txn::Marker& m,
                                std::vector<storage::PendingSync>* unsynced) {
        return txn::write_marker(*this, tp, m, unsynced);
    };
    auto coordinator = txn::TransactionCoordinator::open(*log, base, tc, std::move(hooks));
    if (!coordinator)
        throw std::runtime_error("cannot load the transaction state: " + coordinator.error());
    transactions_ = std::move(*coordinator);
    // Transactions that partitions hold open and the coordinator lost (a power cut): ended now,
    // before a read_committed consumer can stall on one (TransactionCoordinator::abort_hanging).
    std::vector<txn::OpenTransaction> open;
    for (const auto& tp : logs_->partitions())
        if (const auto* partition = logs_->get(tp))
            for (const auto& [producer_id, entry] : partition->producer_entries())
                if (entry.current_txn_first_offset >= 0)
                    open.push_back({tp, producer_id, entry.epoch});
    transactions_->abort_hanging(open);
}

share::ShareStateLogs Broker::share_state_logs() {
    // Created when a share group first writes its state, as Kafka's share coordinator does:
    // many partitions (a share-partition's records go to the one its key hashes to),
    // cleanup.policy=delete and no retention by time or size. An update is a delta over the
    // snapshot before it, which compaction would lose, and retention would drop the state of a
    // quiet share-partition; the share-partitions prune what the latest snapshots made useless
    // (share/share_state_store.h).
    const std::string topic = share::kShareGroupStateTopic;
    share::ShareStateLogs logs;
    logs.partitions_to_create = config_.share_coordinator_state_topic_num_partitions;
    const auto partitions_of =
        [this, topic]() -> Expected<std::vector<storage::PartitionLog*>, std::string> {
        // A topic a client's Metadata auto-created gets the settings the state needs.
        auto overrides = topics_.overrides(topic).value_or(TopicOverrides{});
        const TopicOverrides needed{
            {"cleanup.policy", "delete"}, {"retention.ms", "-1"}, {"retention.bytes", "-1"}};
        bool changed = false;
        for (const auto& [key, value] : needed)
            if (overrides[key] != value) {
                overrides[key] = value;
                changed = true;
            }
        if (changed)
            if (auto set = topics_.set_overrides(topic, overrides, false);
                set.error != protocol::ErrorCode::none)
                return unexpected("cannot configure " + topic + ": " + set.message);
        std::vector<storage::PartitionLog*> found;
        const int32_t n = topics_.partition_count(topic).value_or(0);
        for (int32_t p = 0; p < n; ++p) {
            auto* log = logs_->get({topic, p});
            if (!log)
                return unexpected("cannot open " + topic + "-" + std::to_string(p));
            found.push_back(log);
        }
        return found;
    };
    if (topics_.partition_count(topic)) {
        auto existing = partitions_of();
        if (!existing)
            throw std::runtime_error(existing.error());
        logs.existing = std::move(*existing);
    }
    logs.create = [this, topic,
                   partitions_of]() -> Expected<std::vector<storage::PartitionLog*>, std::string> {
        TopicOverrides overrides{{"cleanup.policy", "delete"},
                                 {"retention.ms", "-1"},
                                 {"retention.bytes", "-1"},
                                 {"segment.bytes", "104857600"}};
        auto created = topics_.create(topic, config_.share_coordinator_state_topic_num_partitions,
                                      overrides, false);
        if (created.error != protocol::ErrorCode::none &&
            created.error != protocol::ErrorCode::topic_already_exists)
            return unexpected("cannot create the internal topic " + topic + ": " + created.message);
        return partitions_of();
    };
    return logs;
}

void Broker::open_share_partitions() {
    share::SharePartitionsConfig config;
    config.snapshot_update_records = config_.share_coordinator_snapshot_update_records_per_snapshot;
    share::ShareTopicLookup lookup;
    TopicRegistry& topics = topics_;
    storage::LogManager& logs = *logs_;
    lookup.id = [&topics](const std::string& topic) -> std::optional<protocol::Uuid> {
        auto id = topics.topic_id(topic);
        if (!id)
            return std::nullopt;
        return to_uuid(*id);
    };
    lookup.name = [&topics](const protocol::Uuid& id) { return topic_name_of(topics, id); };
    lookup.high_watermark = [&logs](const storage::TopicPartition& tp) -> std::optional<int64_t> {
        auto* log = logs.get(tp);
        if (!log)
            return std::nullopt;
        return log->high_watermark();
    };
    auto opened = share::SharePartitions::open(share_state_logs(), config, std::move(lookup));
    if (!opened)
        throw std::runtime_error("cannot load the share group state: " + opened.error());
    share_state_ = std::move(*opened);
    share_partitions_ = share_state_.get();
    share_offsets_admin_ = share_state_.get();
    // What a share group's membership tells the share side (broker/share/share_membership.h):
    // a member that leaves or is fenced loses its share session and what it holds is released;
    // a deleted group's sessions and share-partition state go.
    // A member that left on its own keeps its session a moment (ShareSessionCache::
    // member_leaving): its final acknowledgements may arrive after the leave.
    share_membership_->set_listener(
        {.member_left =
             [this](const std::string& group_id, const std::string& member_id) {
                 const int64_t now = storage::wall_clock_ms();
                 if (!share_sessions_.member_leaving(group_id, member_id, now))
                     share_state_->release_member(group_id, member_id, now);
             },
         .group_deleted =
             [this](const std::string& group_id) {
                 share_sessions_.group_deleted(group_id);
                 share_state_->delete_group(group_id);
             },
         .member_fenced =
             [this](const std::string& group_id, const std::string& member_id) {
                 share_sessions_.member_left(group_id, member_id);
                 share_state_->release_member(group_id, member_id, storage::wall_clock_ms());
             }});
}

void Broker::share_connection_closed(uint64_t connection_id) noexcept {
    try {
        const auto gone = share_sessions_.connection_closed(connection_id);
        if (gone.empty() || !share_partitions_)
            return;
        const int64_t now = storage::wall_clock_ms();
        for (const auto& [group_id, member_id] : gone) {
            spdlog::debug("share group '{}': member {}'s session closed with its connection",
                          group_id, member_id);
            share_partitions_->release_member(group_id, member_id, now);
        }
    } catch (const std::exception& e) {
        spdlog::error("releasing the share sessions of a closed connection: {}", e.what());
    }
}

void Broker::open_schema_registry() {
    auto listeners = config::parse_web_listeners(config_.schema_registry_listeners);
    if (!listeners || listeners->empty())
        return;  // no registry: no _schemas topic either
    schemas_topic_ = std::make_unique<schema_registry_service::SchemasTopic>(schemas_log());
    schema_registry::RegistrySettings settings;
    settings.default_compatibility =
        schema_registry::parse_compatibility_level(config_.schema_registry_compatibility_level)
            .value_or(schema_registry::CompatibilityLevel::kBackward);
    settings.kafka_cluster_id = cluster_id_;
    if (authorizer_)
        settings.authorize = schema_registry_service::authorize_with_acls(*authorizer_);
    schema_registry_ =
        std::make_unique<schema_registry::Registry>(*schemas_topic_, std::move(settings));
    replay_schemas();
}

void Broker::replay_schemas() {
    const std::string topic(schema_registry_service::kSchemasTopic);
    auto replayed =
        schemas_topic_->replay([this](std::string_view key, std::optional<std::string_view> value) {
            schema_registry_->replay(key, value);
        });
    if (!replayed)
        throw std::runtime_error("cannot load the schema registry: " + replayed.error());
    const auto stats = schema_registry_->replay_stats();
    if (stats.unreadable > 0 || stats.conflicting_ids > 0)
        spdlog::warn("{}: skipped {} unreadable record(s) and {} with a conflicting schema id",
                     topic, stats.unreadable, stats.conflicting_ids);
}

const config::Listener& Broker::advertised(std::string_view listener) const {
    for (const auto& a : advertised_)
        if (a.name == listener)
            return a;
    return advertised_.front();
}

config::SecurityProtocol Broker::security_protocol(std::string_view listener) const {
    auto it = security_protocols_.find(std::string(listener));
    return it == security_protocols_.end() ? config::SecurityProtocol::plaintext : it->second;
}

void Broker::set_bound_port(std::string_view listener, uint16_t port) {
    // An ephemeral listener (port 0) advertises the port it actually got.
    for (auto& a : advertised_)
        if (a.name == listener && a.port == 0)
            a.port = port;
}

}  // namespace skiff::broker
