#include "broker/broker.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

// skiff is one broker: it coordinates every group. Transactions are not supported: a
// transaction coordinator lookup gets TRANSACTIONAL_ID_AUTHORIZATION_FAILED, which clients treat
// as fatal at once (librdkafka's init_transactions() fails with it), the answer InitProducerId
// and Produce give a transactional id too. COORDINATOR_NOT_AVAILABLE, the earlier answer, is
// retriable: clients retried it until init_transactions() timed out, with nothing saying why.
// Share groups (key type 2) get INVALID_REQUEST, Kafka's answer without a share coordinator.
asio::awaitable<protocol::FindCoordinatorResponse> handle_find_coordinator(
    RequestContext& ctx, const protocol::FindCoordinatorRequest& req) {
    const Broker& broker = ctx.broker;
    auto lookup = [&](int8_t key_type) {
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
        if (key_type == protocol::kCoordinatorKeyTransaction) {
            c.error_code = protocol::ErrorCode::transactional_id_authorization_failed;
            c.error_message = "transactions are not supported by skiff";
            c.node_id = -1;
            c.port = -1;
            return c;
        }
        c.node_id = broker.node_id();
        c.host = broker.advertised_host();
        c.port = broker.advertised_port();
        return c;
    };
    protocol::FindCoordinatorResponse resp;
    if (ctx.header.api_version >= 4) {
        for (const auto& key : req.coordinator_keys) {
            auto c = lookup(req.key_type);
            c.key = key;
            resp.coordinators.push_back(std::move(c));
        }
        co_return resp;
    }
    auto c = lookup(req.key_type);
    resp.error_code = c.error_code;
    resp.error_message = c.error_message;
    resp.node_id = c.node_id;
    resp.host = c.host;
    resp.port = c.port;
    co_return resp;
}

}  // namespace skiff::broker
