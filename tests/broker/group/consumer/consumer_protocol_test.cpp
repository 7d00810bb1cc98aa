// The consumer group protocol (KIP-848) through the GroupCoordinator, with a fake clock: the
// heartbeat's validation and errors, epochs, the revoke-before-reassign rule, leaving, session
// and revocation timeouts, offsets of a consumer group, and the other group APIs on it.
#include "broker/group/consumer/consumer_protocol.h"

#include <gtest/gtest.h>

#include "broker/group/consumer/reconciliation.h"
#include "tests/broker/group/coordinator_fixture.h"

namespace skiff::broker::group {
namespace {

using consumer::Assignment;
using consumer::HeartbeatParams;
using consumer::HeartbeatResult;
using protocol::ErrorCode;

struct ConsumerProtocolTest : GroupCoordinatorTest {
    std::map<std::string, int32_t> topics{{"t", 6}};

    HeartbeatResult beat(HeartbeatParams p) {
        TopicView view{[this](const std::string& name) {
                           auto it = topics.find(name);
                           return it == topics.end() ? std::nullopt
                                                     : std::optional<int32_t>(it->second);
                       },
                       [this] {
                           std::vector<std::string> names;
                           for (const auto& [name, n] : topics)
                               names.push_back(name);
                           return names;
                       }};
        return coordinator->consumer_heartbeat(p, view);
    }
    // A full first heartbeat (epoch 0) of member `id`, v1 (client-generated member id).
    static HeartbeatParams joining(std::string id, std::vector<std::string> subscribed = {"t"}) {
        return consumer_joining(std::move(id), std::move(subscribed));
    }
    // A later heartbeat, owning `owned`.
    static HeartbeatParams steady(std::string id, int32_t epoch, std::optional<Assignment> owned) {
        HeartbeatParams p;
        p.api_version = 1;
        p.group_id = "g";
        p.member_id = std::move(id);
        p.member_epoch = epoch;
        p.owned = std::move(owned);
        return p;
    }
    static size_t count(const Assignment& a) {
        size_t n = 0;
        for (const auto& [t, ps] : a)
            n += ps.size();
        return n;
    }
};

TEST_F(ConsumerProtocolTest, FirstMemberGetsEveryPartitionAtEpochOne) {
    auto r = beat(joining("a"));
    ASSERT_EQ(r.error, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(r.member_id, "a");
    EXPECT_EQ(r.member_epoch, 1);
    EXPECT_EQ(r.heartbeat_interval_ms, 5000);
    ASSERT_TRUE(r.assignment);
    EXPECT_EQ(*r.assignment, (Assignment{{"t", {0, 1, 2, 3, 4, 5}}}));
    auto d = coordinator->consumer_describe("g");
    EXPECT_EQ(d.state, "Stable");
    EXPECT_EQ(d.group_epoch, 1);
    EXPECT_EQ(d.assignment_epoch, 1);
    EXPECT_EQ(d.assignor_name, "uniform");
}

TEST_F(ConsumerProtocolTest, AV0MemberGetsAnIdFromTheCoordinator) {
    auto p = joining("");
    p.api_version = 0;
    auto r = beat(p);
    ASSERT_EQ(r.error, ErrorCode::none);
    EXPECT_EQ(r.member_id.size(), 22u);
    // v1 requires the client's own id.
    p.api_version = 1;
    EXPECT_EQ(beat(p).error, ErrorCode::invalid_request);
}

TEST_F(ConsumerProtocolTest, PartitionsMoveOnlyAfterTheOwnerRevokedThem) {
    auto a = beat(joining("a"));
    ASSERT_EQ(count(*a.assignment), 6u);
    // b joins: the target splits 3/3, but a still owns all six.
    auto b = beat(joining("b"));
    ASSERT_EQ(b.error, ErrorCode::none);
    EXPECT_EQ(b.member_epoch, 2);
    EXPECT_EQ(count(*b.assignment), 0u) << "b must wait until a revokes";
    // a's next heartbeat (still owning six) is told to keep three: it stays at epoch 1.
    auto a2 = beat(steady("a", 1, a.assignment));
    ASSERT_EQ(a2.error, ErrorCode::none);
    EXPECT_EQ(a2.member_epoch, 1);
    ASSERT_TRUE(a2.assignment);
    EXPECT_EQ(count(*a2.assignment), 3u);
    // b still waits: a has not said it let them go.
    auto b2 = beat(steady("b", 2, Assignment{}));
    EXPECT_EQ(count(b2.assignment.value_or(Assignment{})), 0u);
    // a acknowledges (owns only its three now): it moves to epoch 2.
    auto a3 = beat(steady("a", 1, a2.assignment));
    EXPECT_EQ(a3.member_epoch, 2);
    // Now b gets the other three, disjoint from a's.
    auto b3 = beat(steady("b", 2, Assignment{}));
    ASSERT_TRUE(b3.assignment);
    EXPECT_EQ(count(*b3.assignment), 3u);
    for (int32_t p : b3.assignment->at("t"))
        EXPECT_EQ(a2.assignment->at("t").count(p), 0u) << "partition " << p << " owned twice";
    EXPECT_EQ(coordinator->consumer_describe("g").state, "Stable");
}

TEST_F(ConsumerProtocolTest, EpochsThatAreNotTheMembersAreFenced) {
    auto a = beat(joining("a"));
    auto ahead = beat(steady("a", a.member_epoch + 1, a.assignment));
    EXPECT_EQ(ahead.error, ErrorCode::fenced_member_epoch);
    auto unknown = beat(steady("nobody", 1, Assignment{}));
    EXPECT_EQ(unknown.error, ErrorCode::unknown_member_id);
    // The previous epoch with no more than its assignment: the answer that moved it on may
    // have been lost. With partitions it does not have: fenced.
    beat(joining("b"));
    auto a2 = beat(steady("a", 1, a.assignment));   // told to revoke, stays at 1
    auto a3 = beat(steady("a", 1, a2.assignment));  // moves to 2
    ASSERT_EQ(a3.member_epoch, 2);
    EXPECT_FALSE(a3.assignment) << "unchanged: not sent again";
    EXPECT_EQ(beat(steady("a", 1, a2.assignment)).error, ErrorCode::none);
    EXPECT_EQ(beat(steady("a", 1, a.assignment)).error, ErrorCode::fenced_member_epoch);
}

TEST_F(ConsumerProtocolTest, InvalidRequestsAreRefusedWithKafkasErrors) {
    auto no_timeout = joining("a");
    no_timeout.rebalance_timeout_ms = -1;
    EXPECT_EQ(beat(no_timeout).error, ErrorCode::invalid_request);
    auto owning = joining("a");
    owning.owned = Assignment{{"t", {0}}};
    EXPECT_EQ(beat(owning).error, ErrorCode::invalid_request);
    auto no_owned = joining("a");
    no_owned.owned.reset();
    EXPECT_EQ(beat(no_owned).error, ErrorCode::invalid_request);
    auto nothing = joining("a");
    nothing.subscribed_topic_names.reset();
    EXPECT_EQ(beat(nothing).error, ErrorCode::invalid_request);
    auto no_group = joining("a");
    no_group.group_id.clear();
    EXPECT_EQ(beat(no_group).error, ErrorCode::invalid_request);
    auto bad_epoch = steady("a", -3, std::nullopt);
    EXPECT_EQ(beat(bad_epoch).error, ErrorCode::invalid_request);
    auto static_leave_without_instance = steady("a", -2, std::nullopt);
    EXPECT_EQ(beat(static_leave_without_instance).error, ErrorCode::invalid_request);
    auto assignor = joining("a");
    assignor.server_assignor = "sticky";
    auto r = beat(assignor);
    EXPECT_EQ(r.error, ErrorCode::unsupported_assignor);
    EXPECT_TRUE(r.error_message);
    // None of them created the group.
    EXPECT_EQ(coordinator->consumer_describe("g").error, ErrorCode::group_id_not_found);
}

TEST_F(ConsumerProtocolTest, TheRangeAssignorWhenAMemberAsksForIt) {
    auto p = joining("a");
    p.server_assignor = "range";
    ASSERT_EQ(beat(p).error, ErrorCode::none);
    EXPECT_EQ(coordinator->consumer_describe("g").assignor_name, "range");
}

TEST_F(ConsumerProtocolTest, LeavingFreesThePartitionsForTheOthers) {
    auto a = beat(joining("a"));
    auto b = beat(joining("b"));
    auto a2 = beat(steady("a", 1, a.assignment));
    beat(steady("a", 1, a2.assignment));
    auto b2 = beat(steady("b", 2, Assignment{}));
    ASSERT_EQ(count(*b2.assignment), 3u);
    auto left = beat(steady("a", consumer::kLeaveGroupEpoch, std::nullopt));
    ASSERT_EQ(left.error, ErrorCode::none);
    EXPECT_EQ(left.member_epoch, -1);
    auto b3 = beat(steady("b", 2, b2.assignment));
    EXPECT_EQ(b3.member_epoch, 3);
    EXPECT_EQ(count(*b3.assignment), 6u);
    // Gone: its heartbeats are from an unknown member.
    EXPECT_EQ(beat(steady("a", 2, Assignment{})).error, ErrorCode::unknown_member_id);
}

TEST_F(ConsumerProtocolTest, ASilentMemberIsRemovedAfterItsSessionTimeout) {
    auto a = beat(joining("a"));
    auto b = beat(joining("b"));
    (void)b;
    advance(30000);
    beat(steady("b", 2, Assignment{}));  // b keeps heartbeating, a does not
    advance(30000);
    auto d = coordinator->consumer_describe("g");
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member.member_id, "b");
    auto b2 = beat(steady("b", 2, Assignment{}));
    EXPECT_EQ(count(*b2.assignment), 6u) << "a's partitions are free once it is gone";
    (void)a;
}

TEST_F(ConsumerProtocolTest, TheGroupsOwnSessionTimeoutAndIntervalTakeTheBrokersPlace) {
    // What the handler passes when the group has consumer.session.timeout.ms and
    // consumer.heartbeat.interval.ms of its own (group configs): 3 s and 700 ms here, against
    // the broker's 45 s and 5 s.
    auto own = [](HeartbeatParams p) {
        p.session_timeout_ms = 3000;
        p.heartbeat_interval_ms = 700;
        return p;
    };
    auto a = beat(own(joining("a")));
    EXPECT_EQ(a.heartbeat_interval_ms, 700);
    auto b = beat(joining("b"));
    EXPECT_EQ(b.heartbeat_interval_ms, 5000) << "without them, the broker's";
    for (int i = 0; i < 3; ++i) {
        advance(1000);
        beat(steady("b", 2, Assignment{}));
    }
    advance(100);  // a silent for 3.1 s: past its 3 s, far inside the broker's 45 s
    auto d = coordinator->consumer_describe("g");
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member.member_id, "b");
}

TEST_F(ConsumerProtocolTest, AMemberThatDoesNotRevokeInTimeIsRemoved) {
    auto a = beat(joining("a"));
    beat(joining("b"));
    beat(steady("a", 1, a.assignment));  // told to revoke three; it never acknowledges
    for (int i = 0; i < 7; ++i) {
        advance(1000);
        beat(steady("a", 1, a.assignment));  // still owning all six
        beat(steady("b", 2, Assignment{}));
    }
    auto d = coordinator->consumer_describe("g");
    ASSERT_EQ(d.members.size(), 1u) << "the rebalance timeout (5 s) passed";
    EXPECT_EQ(d.members[0].member.member_id, "b");
}

TEST_F(ConsumerProtocolTest, AStaticMemberComesBackToItsPartitions) {
    auto p = joining("a1");
    p.instance_id = "i";
    auto a = beat(p);
    ASSERT_EQ(count(*a.assignment), 6u);
    // Another process with the same instance id while the first is alive.
    auto twin = joining("a2");
    twin.instance_id = "i";
    EXPECT_EQ(beat(twin).error, ErrorCode::unreleased_instance_id);
    // The first leaves for a moment (-2), the restarted one takes its place and partitions.
    auto leave = steady("a1", consumer::kLeaveGroupStaticEpoch, std::nullopt);
    leave.instance_id = "i";
    EXPECT_EQ(beat(leave).error, ErrorCode::none);
    auto back = beat(twin);
    ASSERT_EQ(back.error, ErrorCode::none);
    EXPECT_EQ(back.member_epoch, a.member_epoch);
    EXPECT_EQ(*back.assignment, *a.assignment);
    EXPECT_EQ(coordinator->consumer_describe("g").group_epoch, 1) << "no rebalance";
}

TEST_F(ConsumerProtocolTest, ATopicThatGrowsBumpsTheGroupEpoch) {
    auto a = beat(joining("a"));
    topics["t"] = 8;
    auto a2 = beat(steady("a", 1, a.assignment));
    EXPECT_EQ(a2.member_epoch, 2);
    EXPECT_EQ(count(*a2.assignment), 8u);
}

TEST_F(ConsumerProtocolTest, GroupMaxSize) {
    coordinator.reset();
    CoordinatorConfig config;
    config.consumer.max_size = 1;
    coordinator = std::make_unique<GroupCoordinator>(config, *store, [this] { return now; });
    ASSERT_EQ(beat(joining("a")).error, ErrorCode::none);
    EXPECT_EQ(beat(joining("b")).error, ErrorCode::group_max_size_reached);
}

TEST_F(ConsumerProtocolTest, OffsetsOfAConsumerGroupNeedTheMembersEpoch) {
    auto a = beat(joining("a"));
    EXPECT_EQ(coordinator->validate_commit("g", a.member_epoch, "a", std::nullopt, 9),
              ErrorCode::none);
    EXPECT_EQ(coordinator->validate_commit("g", a.member_epoch - 1, "a", std::nullopt, 9),
              ErrorCode::stale_member_epoch);
    EXPECT_EQ(coordinator->validate_commit("g", a.member_epoch + 1, "a", std::nullopt, 9),
              ErrorCode::fenced_member_epoch);
    EXPECT_EQ(coordinator->validate_commit("g", a.member_epoch, "x", std::nullopt, 9),
              ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->validate_commit("g", a.member_epoch, "a", std::nullopt, 8),
              ErrorCode::unsupported_version);
    EXPECT_EQ(coordinator->validate_commit("g", -1, "", std::nullopt, 9),
              ErrorCode::unknown_member_id)
        << "a commit without a member only while the group is empty";
    EXPECT_EQ(coordinator->validate_offset_fetch("g", std::string("a"), a.member_epoch),
              ErrorCode::none);
    EXPECT_EQ(coordinator->validate_offset_fetch("g", std::string("a"), a.member_epoch - 1),
              ErrorCode::stale_member_epoch);
    EXPECT_EQ(coordinator->validate_offset_fetch("g", std::string("x"), 1),
              ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->validate_offset_fetch("g", std::nullopt, -1), ErrorCode::none);
}

TEST_F(ConsumerProtocolTest, TheOtherGroupApisSeeAConsumerGroup) {
    beat(joining("a"));
    auto listed = coordinator->list();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].group_type, "consumer");
    EXPECT_EQ(listed[0].protocol_type, "consumer");
    EXPECT_EQ(listed[0].group_state, "Stable");
    EXPECT_EQ(coordinator->describe("g").error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(coordinator->member_count("g"), 1u) << "the metric's count, for both types";
    EXPECT_EQ(coordinator->delete_group("g"), ErrorCode::non_empty_group);
    // A classic member cannot join it (no online migration yet).
    auto joined = join(params("", "range"));
    ASSERT_TRUE(joined->has_value());
    EXPECT_EQ((*joined)->error, ErrorCode::inconsistent_group_protocol);
    beat(steady("a", consumer::kLeaveGroupEpoch, std::nullopt));
    EXPECT_EQ(coordinator->list()[0].group_state, "Empty");
    EXPECT_EQ(coordinator->delete_group("g"), ErrorCode::none);
}

TEST_F(ConsumerProtocolTest, AnEmptyConsumerGroupBecomesClassicWhenAClassicMemberJoins) {
    ASSERT_EQ(beat(joining("a")).error, ErrorCode::none);
    beat(steady("a", consumer::kLeaveGroupEpoch, std::nullopt));
    ASSERT_EQ(coordinator->list()[0].group_type, "consumer");
    const std::string m = new_member();
    auto joined = join(params(m));
    advance(100);
    ASSERT_TRUE(joined->has_value());
    EXPECT_EQ((*joined)->error, ErrorCode::none);
    EXPECT_EQ(coordinator->list()[0].group_type, "classic");
}

TEST_F(ConsumerProtocolTest, AnEmptyClassicGroupBecomesAConsumerGroup) {
    // A simple commit left an empty classic group.
    ASSERT_EQ(coordinator->validate_commit("g", -1, "", std::nullopt), ErrorCode::none);
    ASSERT_EQ(coordinator->list()[0].group_type, "classic");
    ASSERT_EQ(beat(joining("a")).error, ErrorCode::none);
    EXPECT_EQ(coordinator->list()[0].group_type, "consumer");
}

TEST_F(ConsumerProtocolTest, AClassicGroupWithMembersIsNotTakenOver) {
    const std::string m = new_member();
    auto joined = join(params(m));
    advance(100);
    ASSERT_TRUE(joined->has_value());
    auto r = beat(joining("a"));
    EXPECT_EQ(r.error, ErrorCode::group_id_not_found);
    EXPECT_TRUE(r.error_message);
}

TEST_F(ConsumerProtocolTest, ARegexSubscriptionPicksUpTopicsCreatedLater) {
    topics = {{"orders-eu", 2}, {"orders-us", 2}, {"payments", 2}, {"__consumer_offsets", 50}};
    auto p = joining("a", {});
    p.subscribed_topic_names.reset();
    p.subscribed_topic_regex = "orders-.*";
    auto first = beat(p);
    ASSERT_EQ(first.error, ErrorCode::none) << first.error_message.value_or("");
    // Resolved after the heartbeat that brought it (Kafka resolves it asynchronously).
    EXPECT_EQ(*first.assignment, Assignment{});
    auto a = beat(steady("a", first.member_epoch, first.assignment));
    EXPECT_EQ(a.member_epoch, first.member_epoch + 1);
    ASSERT_TRUE(a.assignment);
    EXPECT_EQ(*a.assignment, (Assignment{{"orders-eu", {0, 1}}, {"orders-us", {0, 1}}}));
    // A topic created after the member subscribed: resolved again within kRegexRefreshMs.
    topics["orders-asia"] = 1;
    topics["not-orders-x"] = 1;  // a whole-name match: not this one
    advance(consumer::kRegexRefreshMs);
    auto a2 = beat(steady("a", a.member_epoch, a.assignment));
    EXPECT_EQ(a2.member_epoch, a.member_epoch + 1);
    ASSERT_TRUE(a2.assignment);
    EXPECT_EQ(a2.assignment->count("orders-asia"), 1u);
    EXPECT_EQ(a2.assignment->count("not-orders-x"), 0u);
    EXPECT_EQ(a2.assignment->count("payments"), 0u);
    // And a deleted one goes.
    topics.erase("orders-eu");
    advance(consumer::kRegexRefreshMs);
    auto a3 = beat(steady("a", a2.member_epoch, a2.assignment));
    ASSERT_TRUE(a3.assignment);
    EXPECT_EQ(a3.assignment->count("orders-eu"), 0u);
    EXPECT_EQ(coordinator->consumer_describe("g").members[0].member.subscribed_topic_regex,
              "orders-.*");
}

// Kafka's order with a pattern and names together: the literal topics in the heartbeat that
// brings the pattern, the pattern's in the next; a pattern the group has resolved already
// counts at once for another member.
TEST_F(ConsumerProtocolTest, ANewRegexCountsFromTheNextHeartbeat) {
    topics = {{"orders-eu", 2}, {"payments", 2}};
    auto p = joining("a", {"payments"});
    p.subscribed_topic_regex = "orders-.*";
    auto a = beat(p);
    ASSERT_EQ(a.error, ErrorCode::none) << a.error_message.value_or("");
    EXPECT_EQ(*a.assignment, (Assignment{{"payments", {0, 1}}}));
    auto a2 = beat(steady("a", a.member_epoch, a.assignment));
    ASSERT_TRUE(a2.assignment);
    EXPECT_EQ(*a2.assignment, (Assignment{{"orders-eu", {0, 1}}, {"payments", {0, 1}}}));

    auto q = joining("b", {});
    q.subscribed_topic_names.reset();
    q.subscribed_topic_regex = "orders-.*";
    auto b = beat(q);
    ASSERT_EQ(b.error, ErrorCode::none) << b.error_message.value_or("");
    // Its target has its share of orders-eu already: the pattern was resolved for "a".
    bool found = false;
    for (const auto& m : coordinator->consumer_describe("g").members)
        if (m.member.member_id == b.member_id) {
            found = true;
            EXPECT_EQ(m.target.count("payments"), 0u);
            ASSERT_EQ(m.target.count("orders-eu"), 1u);
            EXPECT_FALSE(m.target.at("orders-eu").empty());
        }
    EXPECT_TRUE(found);
}

// Kafka deletes a pattern with its last user: librdkafka's unsubscribe is a leave, and the same
// pattern subscribed again is resolved after the heartbeat that brings it, like a new one.
TEST_F(ConsumerProtocolTest, APatternAskedAgainAfterItsLastUserLeftIsNewAgain) {
    topics = {{"orders-eu", 2}, {"payments", 2}};
    auto p = joining("a", {});
    p.subscribed_topic_names.reset();
    p.subscribed_topic_regex = "orders-.*";
    auto a = beat(p);
    auto a2 = beat(steady("a", a.member_epoch, a.assignment));
    ASSERT_TRUE(a2.assignment);
    EXPECT_EQ(a2.assignment->count("orders-eu"), 1u);
    ASSERT_EQ(beat(steady("a", consumer::kLeaveGroupEpoch, std::nullopt)).error, ErrorCode::none);

    auto q = joining("a", {"payments"});
    q.subscribed_topic_regex = "orders-.*";
    auto again = beat(q);
    ASSERT_EQ(again.error, ErrorCode::none) << again.error_message.value_or("");
    EXPECT_EQ(*again.assignment, (Assignment{{"payments", {0, 1}}}));
    auto after = beat(steady("a", again.member_epoch, again.assignment));
    ASSERT_TRUE(after.assignment);
    EXPECT_EQ(*after.assignment, (Assignment{{"orders-eu", {0, 1}}, {"payments", {0, 1}}}));
}

TEST_F(ConsumerProtocolTest, AnInvalidRegexIsRefused) {
    auto p = joining("a", {});
    p.subscribed_topic_names.reset();
    p.subscribed_topic_regex = "orders-(";
    auto r = beat(p);
    EXPECT_EQ(r.error, ErrorCode::invalid_regular_expression);
    ASSERT_TRUE(r.error_message);
    EXPECT_NE(r.error_message->find("orders-("), std::string::npos);
    EXPECT_EQ(coordinator->consumer_describe("g").error, ErrorCode::group_id_not_found);
}

// librdkafka 2.15 sends an empty pattern beside its topic names: no pattern, as in Kafka (its
// own test suite's consumer groups all failed with INVALID_REQUEST before).
TEST_F(ConsumerProtocolTest, AnEmptyRegexMeansNoRegex) {
    auto p = joining("a");
    p.subscribed_topic_regex = "";
    auto a = beat(p);
    ASSERT_EQ(a.error, ErrorCode::none) << a.error_message.value_or("");
    EXPECT_EQ(*a.assignment, (Assignment{{"t", {0, 1, 2, 3, 4, 5}}}));
    EXPECT_FALSE(coordinator->consumer_describe("g").members[0].member.subscribed_topic_regex);
    // A member subscribed by a pattern that sends "" with names drops the pattern.
    topics["u"] = 1;
    auto q = joining("b", {});
    q.subscribed_topic_names.reset();
    q.subscribed_topic_regex = "u";
    auto b = beat(q);
    ASSERT_EQ(b.error, ErrorCode::none);
    auto switched = steady("b", b.member_epoch, b.assignment);
    switched.subscribed_topic_names = std::vector<std::string>{"t"};
    switched.subscribed_topic_regex = "";
    ASSERT_EQ(beat(switched).error, ErrorCode::none);
    for (const auto& m : coordinator->consumer_describe("g").members)
        EXPECT_FALSE(m.member.subscribed_topic_regex) << m.member.member_id;
}

TEST(ReconciliationTest, IsSubset) {
    using consumer::is_subset;
    EXPECT_TRUE(is_subset({}, {{"t", {1}}}));
    EXPECT_TRUE(is_subset({{"t", {1}}}, {{"t", {1, 2}}}));
    EXPECT_FALSE(is_subset({{"t", {3}}}, {{"t", {1, 2}}}));
    EXPECT_FALSE(is_subset({{"u", {1}}}, {{"t", {1}}}));
}

TEST(ReconciliationTest, WithoutAnOwnedListTheMemberIsAssumedToOwnWhatItMustRevoke) {
    consumer::ConsumerMember m;
    m.member_id = "a";
    m.member_epoch = 1;
    m.assigned = {{"t", {0, 1}}};
    auto nobody = [](const std::string&, int32_t, const std::string&) { return false; };
    auto next = consumer::reconcile(m, 2, {{"t", {0}}}, std::nullopt, nobody);
    EXPECT_EQ(next.state, consumer::MemberState::unrevoked_partitions);
    EXPECT_EQ(next.member_epoch, 1);
    EXPECT_EQ(next.pending_revocation, (Assignment{{"t", {1}}}));
    // Once a heartbeat lists only partition 0, it moves on.
    auto done = consumer::reconcile(next, 2, {{"t", {0}}}, Assignment{{"t", {0}}}, nobody);
    EXPECT_EQ(done.state, consumer::MemberState::stable);
    EXPECT_EQ(done.member_epoch, 2);
    EXPECT_EQ(done.previous_member_epoch, 1);
    EXPECT_TRUE(done.pending_revocation.empty());
}

TEST(ReconciliationTest, APartitionOwnedElsewhereWaitsAsUnreleased) {
    consumer::ConsumerMember m;
    m.member_id = "b";
    auto owner_is_a = [](const std::string&, int32_t p, const std::string&) { return p == 2; };
    auto next = consumer::reconcile(m, 3, {{"t", {1, 2}}}, Assignment{}, owner_is_a);
    EXPECT_EQ(next.state, consumer::MemberState::unreleased_partitions);
    EXPECT_EQ(next.member_epoch, 3);
    EXPECT_EQ(next.assigned, (Assignment{{"t", {1}}}));
    auto released = [](const std::string&, int32_t, const std::string&) { return false; };
    auto later = consumer::reconcile(next, 3, {{"t", {1, 2}}}, next.assigned, released);
    EXPECT_EQ(later.state, consumer::MemberState::stable);
    EXPECT_EQ(later.assigned, (Assignment{{"t", {1, 2}}}));
}

}  // namespace
}  // namespace skiff::broker::group
