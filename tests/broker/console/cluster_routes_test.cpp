// The console API's cluster routes (docs/console-api.md, "Cluster"): the overview with its
// disk use and produce / fetch rates, the ACLs (DescribeAcls) and the SCRAM users
// (DescribeUserScramCredentials), with and without an authorizer.
#include "tests/broker/console/console_topics_fixture.h"

namespace skiff::broker::test {
namespace {

using security::AclOperation;
using security::PatternType;
using security::ResourceType;

TEST_F(ConsoleTopicsTest, OverviewDescribesTheBrokerAndItsData) {
    create_topic("orders", 3);
    produce("orders", 0, 5);
    auto r = get("/api/overview");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["cluster_id"], "handler-test-cluster");
    EXPECT_EQ(body["node_id"], broker().node_id());
    EXPECT_EQ(body["version"].get<std::string>().rfind("skiff ", 0), 0u);
    EXPECT_GE(body["uptime_ms"].get<int64_t>(), 0);
    EXPECT_GT(body["started_at_ms"].get<int64_t>(), 0);
    ASSERT_EQ(body["listeners"].size(), 1u);
    EXPECT_EQ(body["listeners"][0]["security_protocol"], "PLAINTEXT");
    EXPECT_EQ(body["console"]["read_only"], false);
    EXPECT_EQ(body["console"]["authentication"], "none");
    EXPECT_EQ(body["console"]["principal"], "User:ANONYMOUS");
    EXPECT_EQ(body["security"]["authorizer"], false);
    EXPECT_EQ(body["security"]["tls"], false);
    EXPECT_TRUE(body["security"]["sasl_mechanisms"].empty());
    const auto& data = body["data"];
    EXPECT_EQ(data["log_dir"], broker().logs().log_dir().string());
    EXPECT_GE(data["topics"].get<int>(), 1);  // orders, and internal topics opened at start
    EXPECT_GE(data["partitions"].get<int>(), 3);
    EXPECT_GE(data["segments"].get<int>(), 3);
    EXPECT_GE(data["size_bytes"].get<int64_t>(), broker().logs().get({"orders", 0})->size_bytes());
    EXPECT_GT(data["disk_total_bytes"].get<int64_t>(), 0);
    EXPECT_GE(data["disk_total_bytes"].get<int64_t>(), data["disk_free_bytes"].get<int64_t>());
    EXPECT_EQ(body["schema_registry"], false);
    EXPECT_EQ(body["rates"]["interval_ms"], 5000);
    EXPECT_TRUE(body["rates"]["samples"].empty());  // nothing sampled yet
}

TEST_F(ConsoleTopicsTest, OverviewRatesComeFromTheTrafficCounters) {
    create_topic("orders");
    auto& rates = endpoint().rates();
    rates.sample();  // the baseline
    produce("orders", 0, 10, 1000);
    // The router counts requests (handlers called directly here do not): as it would.
    broker().request_metrics().count_request(static_cast<int16_t>(protocol::ApiKey::produce));
    ASSERT_GT(broker().logs().get({"orders", 0})->traffic().bytes_produced.load(), 10000u);
    rates.sample();
    rates.sample();  // an interval without traffic
    const auto body = json_of(get("/api/overview"));
    const auto& samples = body["rates"]["samples"];
    ASSERT_EQ(samples.size(), 2u) << body.dump();
    EXPECT_GT(samples[0]["produce_bytes_per_s"].get<double>(), 0.0) << body["rates"].dump();
    EXPECT_GT(samples[0]["produce_requests_per_s"].get<double>(), 0.0);
    EXPECT_EQ(samples[0]["fetch_bytes_per_s"].get<double>(), 0.0);
    EXPECT_EQ(samples[1]["produce_bytes_per_s"].get<double>(), 0.0);
    EXPECT_LE(samples[0]["time_ms"].get<int64_t>(), samples[1]["time_ms"].get<int64_t>());
}

TEST_F(ConsoleTopicsTest, RatesKeepOnlyTheWindow) {
    settings.rate_interval = std::chrono::milliseconds(5000);
    settings.rate_window = std::chrono::milliseconds(15000);  // three samples
    for (int i = 0; i < 6; ++i)
        endpoint().rates().sample();
    EXPECT_EQ(endpoint().rates().samples().size(), 3u);
}

TEST_F(ConsoleTopicsTest, AclsWithoutAnAuthorizerSaySo) {
    auto r = get("/api/acls");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r),
              (nlohmann::json{{"authorizer", false}, {"acls", nlohmann::json::array()}}));
}

TEST_F(ConsoleTopicsTest, AclsAreListedForWhoMayDescribeTheCluster) {
    use_authorizer();
    allow_alice(ResourceType::topic, "orders-", PatternType::prefixed, AclOperation::read);
    auto r = as("admin", "GET", "/api/acls");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["authorizer"], true);
    ASSERT_EQ(body["acls"].size(), 1u) << r.body;
    EXPECT_EQ(body["acls"][0], (nlohmann::json{{"resource_type", "TOPIC"},
                                               {"resource_name", "orders-"},
                                               {"pattern_type", "PREFIXED"},
                                               {"principal", "User:alice"},
                                               {"host", "*"},
                                               {"operation", "READ"},
                                               {"permission", "ALLOW"}}));
    // alice may not DESCRIBE the cluster: Kafka's error, as a 403.
    r = as("alice", "GET", "/api/acls");
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "CLUSTER_AUTHORIZATION_FAILED");
}

TEST_F(ConsoleTopicsTest, UsersShowMechanismsButNeverSecrets) {
    use_authorizer();
    auto r = as("admin", "GET", "/api/users");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    ASSERT_EQ(body["users"].size(), 2u) << r.body;
    nlohmann::json alice;
    for (const auto& u : body["users"])
        if (u["name"] == "alice")
            alice = u;
    EXPECT_EQ(alice["mechanisms"],
              (nlohmann::json::array({{{"mechanism", "SCRAM-SHA-256"}, {"iterations", 4096}}})));
    EXPECT_EQ(r.body.find("salt"), std::string::npos);
    EXPECT_EQ(r.body.find("key"), std::string::npos);
    EXPECT_EQ(as("alice", "GET", "/api/users").status, 403);
    // Overview as a signed-in user names the principal and the authorizer.
    const auto overview = json_of(as("alice", "GET", "/api/overview"));
    EXPECT_EQ(overview["console"]["principal"], "User:alice");
    EXPECT_EQ(overview["security"]["authorizer"], true);
}

}  // namespace
}  // namespace skiff::broker::test
