// Fault rules as the control API takes them: what parses, what is refused and why, and how a
// rule matches requests (broker/control/fault_rule.h, fault_table.h).
#include <gtest/gtest.h>

#include "broker/control/fault_table.h"

namespace skiff::broker::control {
namespace {

using nlohmann::json;

FaultRule parse_ok(const char* text) {
    auto parsed = parse_rule(json::parse(text));
    EXPECT_TRUE(parsed.rule) << parsed.error;
    return parsed.rule.value_or(FaultRule{});
}

std::string parse_error(const char* text) {
    auto parsed = parse_rule(json::parse(text));
    EXPECT_FALSE(parsed.rule) << text;
    return parsed.error;
}

TEST(FaultRuleTest, ParsesNamesAndNumbersOfApisAndErrors) {
    auto rule = parse_ok(
        R"({"api":"produce","topic":"t","partition":2,"action":"error","error":"not_leader_or_follower","count":3})");
    EXPECT_EQ(rule.match.api_key, 0);
    EXPECT_EQ(rule.match.topic, "t");
    EXPECT_EQ(rule.match.partition, 2);
    EXPECT_EQ(rule.error, protocol::ErrorCode::not_leader_or_follower);
    EXPECT_EQ(rule.remaining, 3u);
    auto by_number = parse_ok(R"({"api":12,"action":"fail_response","error":27})");
    EXPECT_EQ(by_number.match.api_key, 12);
    EXPECT_EQ(by_number.error, protocol::ErrorCode::rebalance_in_progress);
    EXPECT_EQ(parse_ok(R"({"action":"close"})").match.api_key, std::nullopt);
    EXPECT_EQ(
        parse_ok(R"({"action":"latency","latency_ms":250,"probability":0.5})").latency.count(),
        250);
}

TEST(FaultRuleTest, RefusesWhatItDoesNotUnderstandSayingWhat) {
    EXPECT_NE(parse_error(R"({"api":"Nope","action":"close"})").find("\"api\""), std::string::npos);
    EXPECT_NE(parse_error(R"({"api":"Produce","action":"error","error":"NO_SUCH_ERROR"})")
                  .find("not a Kafka error code"),
              std::string::npos);
    EXPECT_NE(parse_error(R"({"action":"close","topc":"t"})").find("unknown field \"topc\""),
              std::string::npos);
    EXPECT_NE(parse_error(R"({"action":"close","partition":1})").find("needs a \"topic\""),
              std::string::npos);
    EXPECT_NE(parse_error(R"({"action":"explode"})").find("\"explode\""), std::string::npos);
    EXPECT_NE(parse_error(R"({"api":"Produce","action":"error"})").find("\"error\" is required"),
              std::string::npos);
    EXPECT_NE(parse_error(R"({"action":"error","error":"UNKNOWN_SERVER_ERROR"})").find("needs an"),
              std::string::npos);
    // The error action builds its answer per API; SASL has none.
    EXPECT_NE(
        parse_error(R"({"api":"SaslHandshake","action":"error","error":"ILLEGAL_SASL_STATE"})")
            .find("fail_response"),
        std::string::npos);
    EXPECT_FALSE(parse_error(R"({"action":"latency"})").empty());
    EXPECT_FALSE(parse_error(R"({"action":"close","count":0})").empty());
    EXPECT_FALSE(parse_error(R"({"action":"close","probability":1.5})").empty());
    EXPECT_FALSE(parse_error(R"({"action":"close","min_version":5,"max_version":3})").empty());
    EXPECT_FALSE(parse_error(R"([1,2])").empty());
}

RequestFacts produce_facts(const std::string& topic, std::vector<int32_t> partitions) {
    RequestFacts facts;
    facts.topics.push_back({topic, {}, std::move(partitions)});
    facts.acks = -1;
    return facts;
}

TEST(FaultTableTest, MatchesTopicPartitionVersionAndClientAndCountsDown) {
    FaultTable table;
    auto added = table.add(parse_ok(
        R"({"api":"Produce","topic":"orders","partition":1,"min_version":3,"client_id":"app","action":"error","error":"NOT_LEADER_OR_FOLLOWER","count":2})"));
    EXPECT_EQ(added.id, 1u);
    auto facts = produce_facts("orders", {0, 1});
    RequestView view{0, 9, "app", "PLAINTEXT", &facts, {}};
    auto other_partition = produce_facts("orders", {0});
    RequestView miss{0, 9, "app", "PLAINTEXT", &other_partition, {}};
    EXPECT_FALSE(table.match(miss));
    RequestView old_version{0, 2, "app", "PLAINTEXT", &facts, {}};
    EXPECT_FALSE(table.match(old_version));
    RequestView other_client{0, 9, "other", "PLAINTEXT", &facts, {}};
    EXPECT_FALSE(table.match(other_client));
    auto fired = table.match(view);
    ASSERT_TRUE(fired);
    EXPECT_TRUE(fired->targets("orders", {}, 1));
    EXPECT_FALSE(fired->targets("orders", {}, 0));
    EXPECT_FALSE(fired->targets("orders", {}, std::nullopt));  // the topic itself is not targeted
    EXPECT_TRUE(table.match(view));
    EXPECT_FALSE(table.match(view));  // used up
    auto listed = table.list();
    ASSERT_EQ(listed.size(), 1u);  // still listed, with its counts
    EXPECT_EQ(listed[0].fired, 2u);
    EXPECT_EQ(listed[0].remaining, 0u);
    EXPECT_TRUE(table.remove(1));
    EXPECT_FALSE(table.remove(1));
    EXPECT_TRUE(table.empty());
}

TEST(FaultTableTest, ResolvesTopicIdsAndMatchesGroupsAndTransactionalIds) {
    FaultTable table;
    table.add(parse_ok(R"({"topic":"by-id","action":"drop"})"));
    RequestFacts facts;
    protocol::Uuid id;
    id.bytes[0] = 7;
    facts.topics.push_back({"", id, {0}});
    RequestView view{1,
                     13,
                     "",
                     "PLAINTEXT",
                     &facts,
                     [&](const protocol::Uuid& u) {
                         return u == id ? std::string("by-id") : std::string(); }};
    EXPECT_TRUE(table.match(view));
    table.clear();
    table.add(parse_ok(R"({"group":"g1","action":"close"})"));
    table.add(parse_ok(R"({"transactional_id":"tx","action":"drop"})"));
    RequestFacts group;
    group.groups = {"g1"};
    RequestFacts txn;
    txn.transactional_ids = {"tx"};
    auto g = table.match(RequestView{12, 4, "", "", &group, {}});
    ASSERT_TRUE(g);
    EXPECT_EQ(g->action, FaultAction::close);
    auto t = table.match(RequestView{26, 3, "", "", &txn, {}});
    ASSERT_TRUE(t);
    EXPECT_EQ(t->action, FaultAction::drop);
}

TEST(FaultTableTest, ProbabilityCountsMatchesApartFromFirings) {
    FaultTable table;
    table.add(parse_ok(R"({"action":"drop","probability":0.5})"));
    RequestFacts none;
    int fired = 0;
    for (int i = 0; i < 400; ++i)
        fired += table.match(RequestView{3, 9, "", "", &none, {}}) ? 1 : 0;
    auto rule = table.list().at(0);
    EXPECT_EQ(rule.matched, 400u);
    EXPECT_EQ(rule.fired, static_cast<uint64_t>(fired));
    EXPECT_GT(fired, 100);  // 400 draws at p=0.5: below 100 has a chance under 1e-20
    EXPECT_LT(fired, 300);
}

}  // namespace
}  // namespace skiff::broker::control
