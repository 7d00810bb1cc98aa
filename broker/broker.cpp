#include "broker/broker.h"

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
    return l;
}

Broker::Broker(config::BrokerConfig config, std::unique_ptr<storage::LogManager> logs,
               std::string cluster_id)
    : config_(std::move(config)),
      logs_(std::move(logs)),
      topics_(*logs_),
      producer_ids_(logs_->log_dir()),
      cluster_id_(std::move(cluster_id)) {
    const auto& adv =
        config_.advertised_listeners.empty() ? config_.listeners : config_.advertised_listeners;
    if (!adv.empty()) {
        advertised_host_ = adv.front().host;
        advertised_port_ = adv.front().port;
    }
    if (advertised_host_.empty() || advertised_host_ == "0.0.0.0" || advertised_host_ == "::")
        advertised_host_ = "127.0.0.1";
}

void Broker::set_bound_port(uint16_t port) {
    // An ephemeral listener (port 0) advertises the port it actually got.
    if (advertised_port_ == 0)
        advertised_port_ = port;
}

}  // namespace skiff::broker
