#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

// skiff is one broker: it coordinates every group and every transactional id (Kafka would pick
// a partition of __consumer_offsets or __transaction_state by the key's hash; both have one
// partition here, led by this broker). Share groups (key type 2) get INVALID_REQUEST, Kafka's
// answer without a share coordinator. Authorization (docs/acls.md): DESCRIBE on the group, else
// GROUP_AUTHORIZATION_FAILED; on the transactional id, else TRANSACTIONAL_ID_AUTHORIZATION_FAILED.
asio::awaitable<protocol::FindCoordinatorResponse> handle_find_coordinator(
    RequestContext& ctx, const protocol::FindCoordinatorRequest& req) {
    const Broker& broker = ctx.broker;
    auto lookup = [&](int8_t key_type, const std::string& key) {
        protocol::FindCoordinatorCoordinator c;
        if (key_type != protocol::kCoordinatorKeyGroup &&
            key_type != protocol::kCoordinatorKeyTransaction) {
            // Share groups (v6's key type 2) or a type Kafka does not know either.
            c.error_code = protocol::ErrorCode::invalid_request;
            c.error_message = key_type == protocol::kCoordinatorKeyShare
                                  ? "share groups are not supported by skiff"
                                  : "unknown coordinator key type";
            c.node_id = -1;
            c.port = -1;
            return c;
        }
        const bool group = key_type == protocol::kCoordinatorKeyGroup;
        if (!authorized(ctx, AclOperation::describe,
                        group ? ResourceType::group : ResourceType::transactional_id, key)) {
            c.error_code = group ? protocol::ErrorCode::group_authorization_failed
                                 : protocol::ErrorCode::transactional_id_authorization_failed;
            c.node_id = -1;
            c.port = -1;
            return c;
        }
        c.node_id = broker.node_id();
        // The address of the listener this client came through, as Kafka answers.
        const auto& advertised = broker.advertised(ctx.listener);
        c.host = advertised.host;
        c.port = advertised.port;
        return c;
    };
    protocol::FindCoordinatorResponse resp;
    if (ctx.header.api_version >= 4) {
        for (const auto& key : req.coordinator_keys) {
            auto c = lookup(req.key_type, key);
            c.key = key;
            resp.coordinators.push_back(std::move(c));
        }
        co_return resp;
    }
    auto c = lookup(req.key_type, req.key);
    resp.error_code = c.error_code;
    resp.error_message = c.error_message;
    resp.node_id = c.node_id;
    resp.host = c.host;
    resp.port = c.port;
    co_return resp;
}

}  // namespace skiff::broker
