// DescribeCluster: the cluster id, this broker (also the controller) at its advertised address,
// for every version; the controllers endpoint type is refused as Kafka's brokers refuse it.
#include <gtest/gtest.h>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

class DescribeClusterTest : public HandlerTest {};

TEST_F(DescribeClusterTest, ThisBrokerInEveryVersion) {
    for (int16_t v = 0; v <= 2; ++v) {
        auto resp = run(handle_describe_cluster, protocol::DescribeClusterRequest{}, v);
        EXPECT_EQ(resp.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(resp.cluster_id, "handler-test-cluster");
        EXPECT_EQ(resp.controller_id, broker().node_id());
        ASSERT_EQ(resp.brokers.size(), 1u);
        EXPECT_EQ(resp.brokers[0].broker_id, broker().node_id());
        EXPECT_EQ(resp.brokers[0].host, broker().advertised("").host);
        EXPECT_EQ(resp.brokers[0].port, broker().advertised("").port);
        EXPECT_FALSE(resp.brokers[0].is_fenced);
        EXPECT_EQ(resp.cluster_authorized_operations, protocol::kAuthorizedOperationsOmitted);
    }
}

// KIP-430 without an authorizer: every cluster operation (CREATE 5, ALTER 7, DESCRIBE 8,
// CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12) when asked.
TEST_F(DescribeClusterTest, AuthorizedOperationsWhenAsked) {
    protocol::DescribeClusterRequest req;
    req.include_cluster_authorized_operations = true;
    EXPECT_EQ(run(handle_describe_cluster, req, 1).cluster_authorized_operations,
              (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12));
}

TEST_F(DescribeClusterTest, AdvertisesTheListenerTheClientCameThrough) {
    config.listeners = {config::Listener{"A", "0.0.0.0", 9092},
                        config::Listener{"B", "127.0.0.1", 0}};
    config.advertised_listeners = {config::Listener{"A", "a.example", 19092}};
    broker().set_bound_port("B", 40123);  // as the server does once B bound its ephemeral port
    broker().set_bound_port("A", 40124);  // A's advertised port is not 0: kept
    listener = "B";
    auto resp = run(handle_describe_cluster, protocol::DescribeClusterRequest{}, 1);
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].host, "127.0.0.1");
    EXPECT_EQ(resp.brokers[0].port, 40123);
    listener = "A";
    resp = run(handle_describe_cluster, protocol::DescribeClusterRequest{}, 1);
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].host, "a.example");
    EXPECT_EQ(resp.brokers[0].port, 19092);
}

TEST_F(DescribeClusterTest, TheControllersEndpointTypeIsMismatched) {
    protocol::DescribeClusterRequest req;
    req.endpoint_type = 2;
    auto resp = run(handle_describe_cluster, req, 1);
    EXPECT_EQ(resp.error_code, ErrorCode::mismatched_endpoint_type);
    EXPECT_TRUE(resp.brokers.empty());
}

}  // namespace
}  // namespace skiff::broker::test
