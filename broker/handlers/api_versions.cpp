#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/broker.h"
#include "broker/handlers/advertised_apis.h"
#include "broker/handlers/handlers.h"
#include "config/settings.h"

namespace skiff::broker {

namespace {

constexpr std::string_view kShareVersionFeature = "share.version";

// ApiVersions v3+'s feature fields (KIP-584), as a Kafka 4.1 broker fills them, for the one
// feature skiff honours: transaction.version, supported 0-2, finalized at the broker's level
// (absent at level 0, as Kafka lists no feature finalized at 0). Kafka 4.1 also lists
// metadata.version, kraft.version, group.version, eligible.leader.replicas.version and others;
// skiff has no such levels to honour and does not claim them (docs/transactions.md).
void fill_features(Broker& broker, protocol::ApiVersionsResponse& resp) {
    const int16_t txn_level = broker.features().transaction_version();
    resp.supported_features.push_back(
        {std::string(txn::kTransactionVersionFeature), 0, txn::kMaxTransactionVersion});
    // share.version (KIP-932): supported 0-1, finalized at the `share.version` setting's level
    // (Kafka 4.2 finalizes it at 1 by default). Not changeable by UpdateFeatures here.
    const bool share = !broker.emulation().current();  // an emulated release: its own list
    if (share)
        resp.supported_features.push_back({std::string(kShareVersionFeature), 0, 1});
    resp.finalized_features_epoch = broker.features().epoch();
    if (txn_level > 0)
        resp.finalized_features.push_back(
            {std::string(txn::kTransactionVersionFeature), txn_level, txn_level});
    if (const auto share_level = static_cast<int16_t>(broker.config().share_version);
        share && share_level > 0)
        resp.finalized_features.push_back(
            {std::string(kShareVersionFeature), share_level, share_level});
}

}  // namespace

std::vector<protocol::ApiVersion> advertised_apis(Broker& broker) {
    // emulate.kafka.version: exactly what that release's broker advertises, where skiff serves it
    // (control/version_emulation.h).
    if (const auto* emulated = broker.emulation().current())
        return emulated->advertised;
    auto apis = protocol::make_api_versions_response().api_keys;
    const auto drop = [&apis](protocol::ApiKey a, protocol::ApiKey b) {
        std::erase_if(apis, [a, b](const protocol::ApiVersion& v) {
            return v.api_key == static_cast<int16_t>(a) || v.api_key == static_cast<int16_t>(b);
        });
    };
    // group.coordinator.rebalance.protocols without "consumer": KIP-848's APIs are not offered,
    // and clients keep to the classic protocol.
    if (!config::rebalance_protocol_enabled(broker.config(), "consumer"))
        drop(protocol::ApiKey::consumer_group_heartbeat, protocol::ApiKey::consumer_group_describe);
    // client.telemetry.enable off: KIP-714's APIs are not offered, as Kafka's ApiVersions leaves
    // them out without a client telemetry receiver, and clients never push.
    if (!broker.config().client_telemetry_enable)
        drop(protocol::ApiKey::get_telemetry_subscriptions, protocol::ApiKey::push_telemetry);
    // share.version 0: the share group APIs (KIP-932) are not offered, as Kafka 4.2 leaves them
    // out of ApiVersions until the feature is finalized.
    if (!share_groups_enabled(broker))
        std::erase_if(apis, [](const protocol::ApiVersion& v) {
            return (v.api_key >= 76 && v.api_key <= 79) || (v.api_key >= 90 && v.api_key <= 92);
        });
    return apis;
}

bool share_groups_enabled(const Broker& broker) {
    return broker.config().share_version >= 1;
}

// The answer comes from protocol/'s one table of supported APIs, the same table the request
// router is checked against, so what skiff advertises is exactly what it dispatches. v3+ requests
// name the client software (KIP-511): it is kept on the connection and logged, once per change.
asio::awaitable<protocol::ApiVersionsResponse> handle_api_versions(
    RequestContext& ctx, const protocol::ApiVersionsRequest& req) {
    if (ctx.header.api_version >= 3 && ctx.client_software &&
        (ctx.client_software->name != req.client_software_name ||
         ctx.client_software->version != req.client_software_version)) {
        ctx.client_software->name = req.client_software_name;
        ctx.client_software->version = req.client_software_version;
        spdlog::debug("connection {}: client {} {} (client id '{}')", ctx.peer,
                      req.client_software_name, req.client_software_version,
                      ctx.header.client_id.value_or(""));
    }
    protocol::ApiVersionsResponse resp;
    resp.api_keys = advertised_apis(ctx.broker);
    // A release emulated without EndTxn v5 (before Kafka 4.0) knows no transaction.version.
    const auto* emulated = ctx.broker.emulation().current();
    if (!emulated || std::any_of(resp.api_keys.begin(), resp.api_keys.end(), [](const auto& k) {
            return k.api_key == static_cast<int16_t>(protocol::ApiKey::end_txn) &&
                   k.max_version >= 5;
        }))
        fill_features(ctx.broker, resp);
    co_return resp;
}

}  // namespace skiff::broker
