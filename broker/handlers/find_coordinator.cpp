#include "broker/broker.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

// skiff is one broker: it coordinates every group. Transactions are not supported, so a
// transaction coordinator is never available.
asio::awaitable<protocol::FindCoordinatorResponse> handle_find_coordinator(
    RequestContext& ctx, const protocol::FindCoordinatorRequest& req) {
    const Broker& broker = ctx.broker;
    auto lookup = [&](int8_t key_type) {
        protocol::FindCoordinatorCoordinator c;
        if (key_type != protocol::kCoordinatorKeyGroup) {
            c.error_code = protocol::ErrorCode::coordinator_not_available;
            c.error_message = "skiff has no transaction coordinator";
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
