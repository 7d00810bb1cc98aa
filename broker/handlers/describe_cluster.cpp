#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

// The same broker list Metadata gives: this broker, also the controller. Kafka answers a request
// for the controllers' endpoints sent to a broker with MISMATCHED_ENDPOINT_TYPE; skiff's one
// process is both, but it has no separate controller listener to point to.
asio::awaitable<protocol::DescribeClusterResponse> handle_describe_cluster(
    RequestContext& ctx, const protocol::DescribeClusterRequest& req) {
    protocol::DescribeClusterResponse resp;
    resp.endpoint_type = req.endpoint_type;
    if (req.endpoint_type != protocol::kEndpointTypeBrokers) {
        resp.error_code = protocol::ErrorCode::mismatched_endpoint_type;
        resp.error_message = "skiff serves the brokers endpoint type (1) only";
        co_return resp;
    }
    Broker& broker = ctx.broker;
    resp.cluster_id = broker.cluster_id();
    resp.controller_id = broker.node_id();
    // The address of the listener this client came through, as Kafka answers.
    const auto& advertised = broker.advertised(ctx.listener);
    resp.brokers.push_back(
        {broker.node_id(), advertised.host, advertised.port, std::nullopt, false});
    // KIP-430: the client's operations on the cluster when asked; INT32_MIN otherwise.
    if (req.include_cluster_authorized_operations)
        resp.cluster_authorized_operations =
            authorized_operations(ctx, ResourceType::cluster, security::kClusterResourceName);
    co_return resp;
}

}  // namespace skiff::broker
