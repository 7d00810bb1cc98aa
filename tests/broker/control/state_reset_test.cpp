#include "broker/control/state_reset.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tests/broker/control/control_fixture.h"

namespace skiff::broker::test {
namespace {

using control::reset_broker;
using control::ResetOptions;

class ResetTest : public ControlTest {};

TEST_F(ResetTest, TopicsGroupsOffsetsAndTransactionalIdsAreGone) {
    create_topic("orders", 3);
    create_topic("payments", 1);
    append("orders", 0, 5);
    append("orders", 2, 3);
    append("payments", 0, 2);
    commit("billing", "orders", 0, 4);
    commit("audit", "payments", 0, 1);
    auto pid = broker().transactions().init_producer_id("tx-1", 60000, -1, -1);
    ASSERT_EQ(pid.error, ErrorCode::none);
    const auto old_id = *broker().topics().topic_id("orders");
    ASSERT_EQ(broker()
                  .group_configs()
                  .set("billing", {{"consumer.heartbeat.interval.ms", "6000"}}, false)
                  .error,
              ErrorCode::none);

    auto report = reset_broker(broker(), {});
    EXPECT_TRUE(report.error.empty()) << report.error;
    EXPECT_EQ(report.topics, 2u);
    EXPECT_EQ(report.groups, 2u);
    EXPECT_EQ(report.transactional_ids, 1u);

    EXPECT_TRUE(user_topics().empty());
    EXPECT_FALSE(broker().topics().partition_count("orders"));
    EXPECT_EQ(broker().logs().get({"orders", 0}), nullptr);
    EXPECT_TRUE(broker().groups().list().empty());
    EXPECT_TRUE(broker().groups().offsets().groups().empty());
    EXPECT_FALSE(committed("billing", "orders", 0));
    EXPECT_TRUE(broker().transactions().list().empty());
    EXPECT_TRUE(broker().group_configs().values("billing").empty())
        << "a group id used again would inherit them";
    // Only the internal topics' dirs are left as partition dirs (the others are *-delete dirs).
    EXPECT_EQ(partition_dirs(),
              (std::vector<std::string>{"__consumer_offsets-0", "__transaction_state-0"}));

    // A topic created again starts at 0, with a new id.
    create_topic("orders", 1);
    EXPECT_NE(*broker().topics().topic_id("orders"), old_id);
    EXPECT_EQ(broker().logs().get({"orders", 0})->log_end_offset(), 0);
    EXPECT_EQ(append("orders", 0, 2), 0);

    // The coordinators work on the new internal logs.
    commit("billing", "orders", 0, 2);
    EXPECT_EQ(committed("billing", "orders", 0), 2);
    auto again = broker().transactions().init_producer_id("tx-2", 60000, -1, -1);
    EXPECT_EQ(again.error, ErrorCode::none);
    EXPECT_GT(again.producer_id, pid.producer_id);  // ids stay unique across a reset
}

TEST_F(ResetTest, StaysEmptyAfterARestart) {
    create_topic("orders", 2);
    append("orders", 1, 4);
    commit("billing", "orders", 1, 3);
    ASSERT_EQ(broker().transactions().init_producer_id("tx-1", 60000, -1, -1).error,
              ErrorCode::none);
    ASSERT_EQ(broker()
                  .group_configs()
                  .set("billing", {{"consumer.heartbeat.interval.ms", "6000"}}, false)
                  .error,
              ErrorCode::none);
    auto report = reset_broker(broker(), {});
    ASSERT_TRUE(report.error.empty()) << report.error;

    restart();  // as after kill -9: no clean shutdown
    EXPECT_TRUE(user_topics().empty());
    EXPECT_TRUE(broker().group_configs().values("billing").empty());
    EXPECT_TRUE(broker().groups().offsets().groups().empty());
    EXPECT_TRUE(broker().groups().list().empty());
    EXPECT_TRUE(broker().transactions().list().empty());
    EXPECT_EQ(partition_dirs(),
              (std::vector<std::string>{"__consumer_offsets-0", "__transaction_state-0"}));

    // And after a clean one.
    commit("after", "x", 0, 1);  // state written after the reset survives
    ASSERT_TRUE(broker().logs().close().has_value());
    restart();
    EXPECT_TRUE(user_topics().empty());
    EXPECT_EQ(committed("after", "x", 0), 1);
    EXPECT_FALSE(committed("billing", "orders", 1));
}

TEST_F(ResetTest, RemovesAclsAndUsersOnlyWhenAsked) {
    config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    security::AclBinding b;
    b.resource_name = "orders";
    b.principal = "User:alice";
    b.operation = security::AclOperation::read;
    ASSERT_FALSE(broker().authorizer()->acls().add({b}));
    security::ScramCredential credential{std::string(16, 'a'), std::string(32, 'b'),
                                         std::string(32, 'c'), 4096};
    ASSERT_TRUE(broker()
                    .credentials()
                    .set("alice", security::ScramMechanism::sha256, credential)
                    .has_value());

    reset_broker(broker(), {});
    EXPECT_EQ(broker().authorizer()->acls().all().size(), 1u);
    EXPECT_EQ(broker().credentials().user_count(), 1u);

    auto report = reset_broker(broker(), {.acls = true, .users = true});
    EXPECT_TRUE(report.error.empty()) << report.error;
    EXPECT_EQ(report.acls, 1u);
    EXPECT_EQ(report.users, 1u);
    EXPECT_TRUE(broker().authorizer()->acls().all().empty());
    EXPECT_EQ(broker().credentials().user_count(), 0u);
    restart();
    EXPECT_TRUE(broker().authorizer()->acls().all().empty());
    EXPECT_EQ(broker().credentials().user_count(), 0u);
}

// Client quotas always go (as group configs do), and the rates measured under them: the next
// test's client id must not be throttled by the last test's quota or traffic.
TEST_F(ResetTest, ClientQuotasAreGone) {
    const quotas::QuotaEntity app{std::nullopt, quotas::EntityName::named("app")};
    ASSERT_TRUE(broker().client_quotas().apply({{app, quotas::kProducerByteRate, 1000}}));
    auto& manager = broker().quota_manager();
    const int64_t now = 1000;
    EXPECT_EQ(manager.record(quotas::QuotaKind::produce, "ANONYMOUS", "app", 10000, now), 0);
    auto report = reset_broker(broker(), {});
    EXPECT_TRUE(report.error.empty()) << report.error;
    EXPECT_EQ(report.quota_entities, 1u);
    EXPECT_TRUE(broker().client_quotas().snapshot().empty());
    EXPECT_FALSE(manager.enabled(quotas::QuotaKind::produce));
    // The same quota set again: what app sent before the reset no longer counts (10,000 bytes
    // more would otherwise be twice the quota) and /metrics shows no rate from before.
    EXPECT_TRUE(manager.sensors(quotas::QuotaKind::produce, now).empty());
    ASSERT_TRUE(broker().client_quotas().apply({{app, quotas::kProducerByteRate, 1000}}));
    EXPECT_EQ(manager.record(quotas::QuotaKind::produce, "ANONYMOUS", "app", 10000, now), 0);
    ASSERT_TRUE(broker().client_quotas().replace_all({}));
    restart();
    EXPECT_TRUE(broker().client_quotas().snapshot().empty());
}

// With the schema registry on: its subjects go with the reset, and _schemas is empty (not only
// tombstoned), also after reopening the broker.
TEST_F(ResetTest, SchemaRegistryIsEmptiedAndStaysEmpty) {
    config.schema_registry_listeners = "http://127.0.0.1:0";
    auto call = [&](const std::string& method, const std::string& path,
                    const std::string& body = "") {
        schema_registry::RestRequest r;
        r.method = method;
        r.path = path;
        r.body = body;
        return broker().schema_registry()->handle(r);
    };
    auto register_schema = [&](const std::string& subject, const std::string& schema) {
        auto answer = call("POST", "/subjects/" + subject + "/versions",
                           nlohmann::json{{"schema", schema}}.dump());
        EXPECT_EQ(answer.status, 200) << answer.body;
        return answer.status == 200 ? nlohmann::json::parse(answer.body).at("id").get<int32_t>()
                                    : -1;
    };
    auto schemas_end = [&] { return broker().logs().get({"_schemas", 0})->log_end_offset(); };
    const int32_t first = register_schema("orders-value", R"("string")");
    register_schema("payments-value", R"("long")");
    ASSERT_GT(schemas_end(), 0);
    EXPECT_TRUE(control::is_broker_topic(broker(), "_schemas"));

    auto report = reset_broker(broker(), {});
    ASSERT_TRUE(report.error.empty()) << report.error;
    EXPECT_EQ(report.topics, 0u);  // _schemas is not a user topic
    for (int round = 0; round < 2; ++round) {
        SCOPED_TRACE(round == 0 ? "after the reset" : "reopened");
        EXPECT_EQ(nlohmann::json::parse(call("GET", "/subjects").body), nlohmann::json::array());
        EXPECT_EQ(call("GET", "/schemas/ids/" + std::to_string(first)).status, 404);
        ASSERT_NE(broker().logs().get({"_schemas", 0}), nullptr);
        EXPECT_EQ(schemas_end(), 0);
        EXPECT_EQ(broker().logs().get({"_schemas", 0})->log_start_offset(), 0);
        EXPECT_EQ(broker().topics().overrides("_schemas")->at("cleanup.policy"), "compact");
        restart();
    }
    EXPECT_EQ(partition_dirs(), (std::vector<std::string>{"__consumer_offsets-0",
                                                          "__transaction_state-0", "_schemas-0"}));
    // The registry works on the new log.
    const int32_t again = register_schema("orders-value", R"("double")");
    EXPECT_GT(again, 0);
    restart();
    EXPECT_EQ(nlohmann::json::parse(call("GET", "/subjects").body),
              nlohmann::json::array({"orders-value"}));
}

// Not a timing assertion: prints what a reset of 100 topics with some data costs here.
TEST_F(ResetTest, HundredTopicsTimingIsPrinted) {
    for (int t = 0; t < 100; ++t) {
        const std::string name = "topic-" + std::to_string(t);
        create_topic(name, 1);
        for (int b = 0; b < 10; ++b)
            append(name, 0, 100);
        commit("group-" + std::to_string(t % 10), name, 0, 500);
    }
    ASSERT_TRUE(broker().logs().checkpoint().has_value());
    auto report = reset_broker(broker(), {});
    EXPECT_TRUE(report.error.empty()) << report.error;
    EXPECT_EQ(report.topics, 100u);
    EXPECT_EQ(report.groups, 10u);
    std::printf("[ reset    ] 100 topics (1,000 records each), 10 groups: %.1f ms\n",
                static_cast<double>(report.took.count()) / 1000.0);
    EXPECT_TRUE(user_topics().empty());
}

}  // namespace
}  // namespace skiff::broker::test
