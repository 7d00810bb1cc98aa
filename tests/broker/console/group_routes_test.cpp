// The console API's consumer groups (broker/console/api/group_routes.cpp) on a real Broker:
// groups of each type listed and described, the classic protocol's assignment bytes decoded,
// committed offsets and lag as kafka-consumer-groups.sh computes them, and resets, refused while
// the group has members and for bad bodies without committing anything.
#include "tests/broker/console/console_fixture.h"

#include "broker/group/embedded_consumer_protocol.h"
#include "protocol/consumer_group_heartbeat.h"
#include "protocol/join_group.h"
#include "protocol/offset_commit.h"
#include "protocol/offset_fetch.h"
#include "protocol/produce.h"
#include "protocol/share_group_heartbeat.h"
#include "protocol/sync_group.h"

namespace skiff::broker::test {
namespace {

using nlohmann::json;

class GroupRoutesTest : public ConsoleTest {
  protected:
    // A commit as a consumer outside group management makes (generation -1, no member).
    void commit(const std::string& group, const std::string& topic, int32_t partition,
                int64_t offset) {
        protocol::OffsetCommitRequest req;
        req.group_id = group;
        req.generation_id = -1;
        protocol::OffsetCommitRequestTopic t;
        t.name = topic;
        protocol::OffsetCommitRequestPartition p;
        p.partition_index = partition;
        p.committed_offset = offset;
        t.partitions.push_back(p);
        req.topics.push_back(std::move(t));
        auto resp = run(handle_offset_commit, req, 8);
        ASSERT_EQ(resp.topics.at(0).partitions.at(0).error_code, ErrorCode::none);
    }

    int64_t committed(const std::string& group, const std::string& topic, int32_t partition) {
        protocol::OffsetFetchRequest req;
        protocol::OffsetFetchRequestGroup g;
        g.group_id = group;
        g.topics = std::vector<protocol::OffsetFetchRequestTopic>{{topic, {}, {partition}}};
        req.groups.push_back(g);
        auto resp = run(handle_offset_fetch, req, 8);
        return resp.groups.at(0).topics.at(0).partitions.at(0).committed_offset;
    }

    static std::vector<std::byte> bytes_of(std::string_view s) {
        auto b = std::as_bytes(std::span(s.data(), s.size()));
        return {b.begin(), b.end()};
    }

    // A classic member that joined alone and was assigned `assigned` (the consumer protocol's
    // assignment bytes, as a client leader writes them): the group is Stable.
    void classic_member(const std::string& group, const group::TopicPartitionSets& assigned) {
        protocol::JoinGroupRequest join;
        join.group_id = group;
        join.session_timeout_ms = 30000;
        join.rebalance_timeout_ms = 2000;
        join.protocol_type = "consumer";
        join.protocols.push_back({"range", bytes_of("meta")});
        auto first = run(handle_join_group, join, 7);
        ASSERT_EQ(first.error_code, ErrorCode::member_id_required);
        join.member_id = first.member_id;
        auto joined = run(handle_join_group, join, 7);
        ASSERT_EQ(joined.error_code, ErrorCode::none);
        protocol::SyncGroupRequest sync;
        sync.group_id = group;
        sync.generation_id = joined.generation_id;
        sync.member_id = joined.member_id;
        sync.protocol_type = "consumer";
        sync.protocol_name = "range";
        sync.assignments.push_back({joined.member_id, group::encode_assignment(assigned, 1)});
        auto synced = run(handle_sync_group, sync, 5);
        ASSERT_EQ(synced.error_code, ErrorCode::none);
    }

    static const json* find_group(const json& body, const std::string& id) {
        for (const auto& g : body["groups"])
            if (g["group_id"] == id)
                return &g;
        return nullptr;
    }
    static const json* find_offset(const json& body, const std::string& topic, int partition) {
        for (const auto& o : body["offsets"])
            if (o["topic"] == topic && o["partition"] == partition)
                return &o;
        return nullptr;
    }
};

TEST_F(GroupRoutesTest, LagIsTheHighWatermarkMinusTheCommittedOffset) {
    create_topic("orders", 2);
    produce("orders", 0, 10);
    produce("orders", 1, 4);
    commit("billing", "orders", 0, 3);
    commit("billing", "orders", 1, 4);

    auto r = get("/api/groups/billing");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["group_id"], "billing");
    EXPECT_EQ(body["type"], "classic");
    EXPECT_EQ(body["state"], "Empty");
    const json* p0 = find_offset(body, "orders", 0);
    ASSERT_NE(p0, nullptr) << r.body;
    EXPECT_EQ((*p0)["committed_offset"], 3);
    EXPECT_EQ((*p0)["log_end_offset"], 10);
    EXPECT_EQ((*p0)["lag"], 7);
    const json* p1 = find_offset(body, "orders", 1);
    ASSERT_NE(p1, nullptr);
    EXPECT_EQ((*p1)["lag"], 0);
    EXPECT_EQ(body["lag"], 7);

    auto listed = json_of(get("/api/groups"));
    const json* g = find_group(listed, "billing");
    ASSERT_NE(g, nullptr) << listed.dump();
    EXPECT_EQ((*g)["type"], "classic");
    EXPECT_EQ((*g)["state"], "Empty");
    EXPECT_EQ((*g)["members"], 0);
}

TEST_F(GroupRoutesTest, UnknownGroupIs404WithKafkasError) {
    auto r = get("/api/groups/nobody");
    EXPECT_EQ(r.status, 404);
    const auto body = json_of(r);
    EXPECT_EQ(body["error_code"], 404);
    EXPECT_EQ(body["kafka_error"], "GROUP_ID_NOT_FOUND");
    // A reset of an unknown group commits nothing.
    r = request("POST", "/api/groups/nobody/offsets/reset", R"({"to":"earliest","topics":["x"]})");
    EXPECT_EQ(r.status, 404);
}

TEST_F(GroupRoutesTest, ClassicMembersShowTheirDecodedAssignment) {
    create_topic("orders", 3);
    classic_member("app", {{"orders", {0, 2}}});
    auto r = get("/api/groups/app");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["state"], "Stable");
    EXPECT_EQ(body["protocol_type"], "consumer");
    EXPECT_EQ(body["protocol"], "range");
    ASSERT_EQ(body["members"].size(), 1u);
    const auto& a = body["members"][0]["assignment"];
    ASSERT_EQ(a.size(), 1u) << r.body;
    EXPECT_EQ(a[0]["topic"], "orders");
    EXPECT_EQ(a[0]["partitions"], json::array({0, 2}));
    // Assigned, never committed: listed without a committed offset or a lag.
    ASSERT_EQ(body["offsets"].size(), 2u) << r.body;
    const json* p2 = find_offset(body, "orders", 2);
    ASSERT_NE(p2, nullptr) << r.body;
    EXPECT_TRUE((*p2)["committed_offset"].is_null());
    EXPECT_TRUE((*p2)["lag"].is_null());
    EXPECT_EQ((*p2)["log_end_offset"], 0);

    const auto listed = json_of(get("/api/groups"));  // kept: find_group points into it
    const json* g = find_group(listed, "app");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ((*g)["members"], 1);
}

TEST_F(GroupRoutesTest, ResetIsRefusedWhileTheGroupHasMembersAndCommitsNothing) {
    create_topic("orders", 1);
    produce("orders", 0, 5);
    classic_member("app", {{"orders", {0}}});
    auto r =
        request("POST", "/api/groups/app/offsets/reset", R"({"to":"latest","topics":["orders"]})");
    EXPECT_EQ(r.status, 400) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["kafka_error"], "UNKNOWN_MEMBER_ID") << r.body;
    EXPECT_NE(body["message"].get<std::string>().find("members"), std::string::npos);
    EXPECT_EQ(committed("app", "orders", 0), -1);
}

TEST_F(GroupRoutesTest, ResetsAnEmptyGroupToEarliestLatestTimestampAndOffset) {
    create_topic("orders", 1);
    produce("orders", 0, 10);  // timestamps 1733400000000 + 0..9
    commit("billing", "orders", 0, 4);

    auto r = request("POST", "/api/groups/billing/offsets/reset", R"({"to":"earliest"})");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r)["offsets"][0]["offset"], 0);
    EXPECT_EQ(committed("billing", "orders", 0), 0);

    r = request("POST", "/api/groups/billing/offsets/reset", R"({"to":"latest"})");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(committed("billing", "orders", 0), 10);

    r = request("POST", "/api/groups/billing/offsets/reset",
                R"({"to":"timestamp","timestamp":1733400000006})");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(committed("billing", "orders", 0), 6);

    // An offset outside the log is kept within it, as kafka-consumer-groups.sh does.
    r = request("POST", "/api/groups/billing/offsets/reset",
                R"({"to":"offset","offset":999,"topics":["orders"]})");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(committed("billing", "orders", 0), 10);
    r = request("POST", "/api/groups/billing/offsets/reset", R"({"to":"offset","offset":2})");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(committed("billing", "orders", 0), 2);
    EXPECT_EQ(json_of(get("/api/groups/billing"))["lag"], 8);
}

TEST_F(GroupRoutesTest, BadResetBodiesAre400AndCommitNothing) {
    create_topic("orders", 1);
    produce("orders", 0, 3);
    commit("billing", "orders", 0, 1);
    for (const std::string body :
         {"", "not json", "[]", R"({"to":"yesterday"})", R"({"to":5})", R"({"to":"offset"})",
          R"({"to":"offset","offset":-1})", R"({"to":"offset","offset":"2"})",
          R"({"to":"offset","offset":1.5})",
          R"({"to":"timestamp","timestamp":99999999999999999999})",
          R"({"to":"earliest","topics":"orders"})", R"({"to":"earliest","topics":[1]})"}) {
        auto r = request("POST", "/api/groups/billing/offsets/reset", body);
        EXPECT_EQ(r.status, 400) << body << " -> " << r.body;
        EXPECT_EQ(json_of(r)["error_code"], 400);
    }
    auto r = request("POST", "/api/groups/billing/offsets/reset",
                     R"({"to":"earliest","topics":["no-such-topic"]})");
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "UNKNOWN_TOPIC_OR_PARTITION");
    EXPECT_EQ(committed("billing", "orders", 0), 1);
}

TEST_F(GroupRoutesTest, ResetIsAWriteRefusedWhenReadOnly) {
    settings.read_only = true;
    create_topic("orders", 1);
    commit("billing", "orders", 0, 1);
    auto r = request("POST", "/api/groups/billing/offsets/reset", R"({"to":"earliest"})");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(committed("billing", "orders", 0), 1);
}

// With ACLs on, the console's caller (User:ANONYMOUS here, no ACL for it) gets what Kafka gives
// that principal: no group listed, a group it may not DESCRIBE refused, nothing reset.
TEST_F(GroupRoutesTest, AclsApplyToTheCaller) {
    config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    create_topic("orders", 1);
    auto r = get("/api/groups");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(json_of(r)["groups"].empty());
    r = get("/api/groups/billing");
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "GROUP_AUTHORIZATION_FAILED");
    r = request("POST", "/api/groups/billing/offsets/reset",
                R"({"to":"earliest","topics":["orders"]})");
    EXPECT_EQ(r.status, 403) << r.body;
}

TEST_F(GroupRoutesTest, ConsumerProtocolGroupsAreDescribedWithConsumerGroupDescribe) {
    create_topic("orders", 2);
    protocol::ConsumerGroupHeartbeatRequest hb;
    hb.group_id = "kip848";
    hb.member_id = "m1";
    hb.member_epoch = 0;
    hb.rebalance_timeout_ms = 30000;
    hb.subscribed_topic_names = std::vector<std::string>{"orders"};
    hb.topic_partitions.emplace();
    auto joined = run(handle_consumer_group_heartbeat, hb, 1);
    ASSERT_EQ(joined.error_code, ErrorCode::none);

    auto r = get("/api/groups/kip848");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["type"], "consumer");
    EXPECT_EQ(body["protocol"], "uniform");
    ASSERT_EQ(body["members"].size(), 1u);
    EXPECT_EQ(body["members"][0]["member_id"], "m1");
    EXPECT_EQ(body["members"][0]["assignment"][0]["partitions"], json::array({0, 1}));

    const auto listed = json_of(get("/api/groups"));
    const json* g = find_group(listed, "kip848");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ((*g)["type"], "consumer");
    EXPECT_EQ((*g)["members"], 1);

    // Kafka's rule holds for these groups too: no admin commit while a member is in it.
    r = request("POST", "/api/groups/kip848/offsets/reset",
                R"({"to":"earliest","topics":["orders"]})");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(committed("kip848", "orders", 0), -1);
}

TEST_F(GroupRoutesTest, ShareGroupsAreDescribedAndResetThroughTheShareGroupApis) {
    create_topic("jobs", 3);
    produce("jobs", 1, 4);
    protocol::ShareGroupHeartbeatRequest hb;
    hb.group_id = "workers";
    hb.member_id = "w1";
    hb.member_epoch = 0;
    hb.subscribed_topic_names = std::vector<std::string>{"jobs"};
    auto joined = run(handle_share_group_heartbeat, hb, 1);
    ASSERT_EQ(joined.error_code, ErrorCode::none) << joined.error_message.value_or("");

    auto r = get("/api/groups/workers");
    ASSERT_EQ(r.status, 200) << r.body;
    auto body = json_of(r);
    EXPECT_EQ(body["type"], "share");
    EXPECT_EQ(body["protocol_type"], "share");
    ASSERT_EQ(body["members"].size(), 1u) << r.body;
    EXPECT_EQ(body["members"][0]["member_id"], "w1");
    EXPECT_EQ(body["members"][0]["assignment"][0]["partitions"], json::array({0, 1, 2}));
    // Assigned, never fetched from: no share state yet, listed with what is known (the tool's
    // "-" for the start offset and the lag), the 4 records waiting on partition 1 included.
    ASSERT_EQ(body["offsets"].size(), 3u) << r.body;
    const json* waiting = find_offset(body, "jobs", 1);
    ASSERT_NE(waiting, nullptr) << r.body;
    EXPECT_TRUE((*waiting)["start_offset"].is_null()) << r.body;
    EXPECT_TRUE((*waiting)["lag"].is_null()) << r.body;
    EXPECT_EQ((*waiting)["log_end_offset"], 4) << r.body;
    const auto listed = json_of(get("/api/groups"));
    const json* g = find_group(listed, "workers");
    ASSERT_NE(g, nullptr) << listed.dump();
    EXPECT_EQ((*g)["type"], "share");

    // Kafka alters a share group's offsets only while it is empty.
    r = request("POST", "/api/groups/workers/offsets/reset",
                R"({"to":"latest","topics":["jobs"]})");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "NON_EMPTY_GROUP") << r.body;

    hb.member_id = "w1";
    hb.member_epoch = -1;  // leaves
    run(handle_share_group_heartbeat, hb, 1);
    r = request("POST", "/api/groups/workers/offsets/reset",
                R"({"to":"latest","topics":["jobs"]})");
    ASSERT_EQ(r.status, 200) << r.body;
    body = json_of(get("/api/groups/workers"));
    const json* p1 = find_offset(body, "jobs", 1);
    ASSERT_NE(p1, nullptr) << body.dump();
    EXPECT_EQ((*p1)["start_offset"], 4);
    EXPECT_EQ((*p1)["log_end_offset"], 4);
}

}  // namespace
}  // namespace skiff::broker::test
