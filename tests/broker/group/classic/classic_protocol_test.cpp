// The classic protocol's state machine (broker/group/classic/) driven through the coordinator,
// with a fake clock: the MEMBER_ID_REQUIRED round trip, joins during a rebalance, stale
// generations, requests from non-members, eviction after the session timeout, the rebalance
// timeout, the initial delay, protocol selection and static membership (KIP-345: restart without
// rebalance, fencing of the replaced member id).
#include <gtest/gtest.h>

#include "tests/broker/group/coordinator_fixture.h"

namespace skiff::broker::group {
namespace {

using protocol::ErrorCode;

TEST_F(GroupCoordinatorTest, MemberIdRequiredThenJoinCompletesAloneAsLeader) {
    std::string id = new_member();
    EXPECT_EQ(id.rfind("client-", 0), 0u);
    auto r = join(params(id));
    ASSERT_TRUE(r->has_value());
    EXPECT_EQ((*r)->error, ErrorCode::none);
    EXPECT_EQ((*r)->generation_id, 1);
    EXPECT_EQ((*r)->leader, id);
    EXPECT_EQ((*r)->protocol_name, "range");
    ASSERT_EQ((*r)->members.size(), 1u);
    EXPECT_EQ((*r)->members[0].metadata, bytes_of("meta-range"));
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::completing_rebalance);
    auto s = sync(id, 1, {{id, bytes_of("all")}});
    ASSERT_TRUE(s->has_value());
    EXPECT_EQ((*s)->error, ErrorCode::none);
    EXPECT_EQ((*s)->assignment, bytes_of("all"));
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
}

TEST_F(GroupCoordinatorTest, UnknownMemberIdThatWasNeverIssuedIsRefused) {
    auto r = join(params("made-up"));
    ASSERT_TRUE(r->has_value());
    EXPECT_EQ((*r)->error, ErrorCode::unknown_member_id);
}

TEST_F(GroupCoordinatorTest, JoinDuringRebalanceWaitsForEveryMemberAndFollowerWaitsForLeader) {
    std::string a = new_member();
    join(params(a));
    sync(a, 1, {{a, bytes_of("a-all")}});
    ASSERT_EQ(coordinator->state("g"), ClassicGroupState::stable);

    std::string b = new_member();
    auto jb = join(params(b));
    EXPECT_FALSE(jb->has_value()) << "b must wait until a rejoins";
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
    EXPECT_EQ(coordinator->heartbeat("g", 1, a, std::nullopt), ErrorCode::rebalance_in_progress);
    // A sync of the old generation during the join phase is told to rejoin.
    auto stale = sync(a, 1);
    ASSERT_TRUE(stale->has_value());
    EXPECT_EQ((*stale)->error, ErrorCode::rebalance_in_progress);

    auto ja = join(params(a));
    ASSERT_TRUE(ja->has_value());
    ASSERT_TRUE(jb->has_value());
    EXPECT_EQ((*ja)->generation_id, 2);
    EXPECT_EQ((*jb)->generation_id, 2);
    EXPECT_EQ((*ja)->leader, a);
    EXPECT_EQ((*ja)->members.size(), 2u);
    EXPECT_TRUE((*jb)->members.empty()) << "only the leader gets the members";

    auto sb = sync(b, 2);
    EXPECT_FALSE(sb->has_value()) << "the follower waits for the leader's assignment";
    auto sa = sync(a, 2, {{a, bytes_of("pa")}, {b, bytes_of("pb")}});
    ASSERT_TRUE(sa->has_value());
    ASSERT_TRUE(sb->has_value());
    EXPECT_EQ((*sa)->assignment, bytes_of("pa"));
    EXPECT_EQ((*sb)->assignment, bytes_of("pb"));
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
}

TEST_F(GroupCoordinatorTest, StaleGenerationIsIllegal) {
    std::string a = new_member();
    join(params(a));
    sync(a, 1, {});
    EXPECT_EQ(coordinator->heartbeat("g", 0, a, std::nullopt), ErrorCode::illegal_generation);
    EXPECT_EQ(coordinator->heartbeat("g", 1, a, std::nullopt), ErrorCode::none);
    auto s = sync(a, 7);
    ASSERT_TRUE(s->has_value());
    EXPECT_EQ((*s)->error, ErrorCode::illegal_generation);
    EXPECT_EQ(coordinator->validate_commit("g", 0, a, std::nullopt), ErrorCode::illegal_generation);
    EXPECT_EQ(coordinator->validate_commit("g", 1, a, std::nullopt), ErrorCode::none);
    // A "simple" commit (generation -1) is refused while the group has members.
    EXPECT_EQ(coordinator->validate_commit("g", -1, "", std::nullopt),
              ErrorCode::unknown_member_id);
}

// Kafka's doCommitOffsets: a member of the current generation may commit while the group
// prepares a rebalance (a consumer commits in its revoke callback before rejoining), not while
// it waits for the leader's assignment; the previous generation is refused.
TEST_F(GroupCoordinatorTest, CommitDuringPreparingRebalanceIsAcceptedFromTheCurrentGeneration) {
    std::string a = new_member();
    join(params(a));
    sync(a, 1, {});
    std::string b = new_member();
    join(params(b));
    ASSERT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
    EXPECT_EQ(coordinator->validate_commit("g", 1, a, std::nullopt), ErrorCode::none);
    join(params(a));
    ASSERT_EQ(coordinator->state("g"), ClassicGroupState::completing_rebalance);
    EXPECT_EQ(coordinator->validate_commit("g", 2, a, std::nullopt),
              ErrorCode::rebalance_in_progress);
    EXPECT_EQ(coordinator->validate_commit("g", 1, a, std::nullopt), ErrorCode::illegal_generation);
}

TEST_F(GroupCoordinatorTest, RequestsFromNonMembers) {
    std::string a = new_member();
    join(params(a));
    auto s = sync("stranger", 1);
    ASSERT_TRUE(s->has_value());
    EXPECT_EQ((*s)->error, ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->heartbeat("g", 1, "stranger", std::nullopt),
              ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->leave("g", "stranger", std::nullopt), ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->heartbeat("other-group", 1, a, std::nullopt),
              ErrorCode::unknown_member_id);
    auto other = sync(a, 1);
    SyncParams p;
    p.group_id = "nope";
    p.member_id = a;
    std::optional<SyncResult> r;
    coordinator->sync(p, [&](SyncResult x) { r = x; });
    ASSERT_TRUE(r);
    EXPECT_EQ(r->error, ErrorCode::unknown_member_id);
}

TEST_F(GroupCoordinatorTest, SessionTimeoutEvictsASilentMemberAndTheOtherRebalancesAlone) {
    std::string a = new_member();
    join(params(a));
    std::string b = new_member();
    auto jb = join(params(b));
    join(params(a));
    ASSERT_TRUE(jb->has_value());
    auto sb = sync(b, 2);
    sync(a, 2, {{a, bytes_of("pa")}, {b, bytes_of("pb")}});
    ASSERT_EQ(coordinator->state("g"), ClassicGroupState::stable);

    // b heartbeats, a goes silent.
    for (int i = 0; i < 12; ++i) {
        advance(100);
        ErrorCode e = coordinator->heartbeat("g", 2, b, std::nullopt);
        if (e != ErrorCode::none) {
            EXPECT_EQ(e, ErrorCode::rebalance_in_progress);
            break;
        }
    }
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
    EXPECT_EQ(coordinator->heartbeat("g", 2, a, std::nullopt), ErrorCode::unknown_member_id);
    auto again = join(params(b));
    ASSERT_TRUE(again->has_value());
    EXPECT_EQ((*again)->generation_id, 3);
    EXPECT_EQ((*again)->leader, b);
    EXPECT_EQ((*again)->members.size(), 1u);
}

TEST_F(GroupCoordinatorTest, RebalanceTimeoutDropsMembersThatDoNotRejoin) {
    std::string a = new_member();
    join(params(a));
    sync(a, 1, {});
    std::string b = new_member();
    auto jb = join(params(b));
    // a keeps heartbeating (so the session does not expire) but never rejoins.
    for (int i = 0; i < 60 && !jb->has_value(); ++i) {
        advance(100);
        coordinator->heartbeat("g", 1, a, std::nullopt);
    }
    ASSERT_TRUE(jb->has_value());
    EXPECT_EQ((*jb)->generation_id, 2);
    EXPECT_EQ((*jb)->leader, b);
    EXPECT_EQ((*jb)->members.size(), 1u);
    EXPECT_EQ(coordinator->heartbeat("g", 2, a, std::nullopt), ErrorCode::unknown_member_id);
}

TEST_F(GroupCoordinatorTest, InitialDelayCollectsMembersBeforeTheFirstGeneration) {
    make(3000);
    std::string a = new_member();
    auto ja = join(params(a));
    advance(1000);
    EXPECT_FALSE(ja->has_value());
    std::string b = new_member();
    auto jb = join(params(b));
    advance(2500);
    EXPECT_FALSE(ja->has_value()) << "a new member extends the delay";
    advance(1000);
    ASSERT_TRUE(ja->has_value());
    ASSERT_TRUE(jb->has_value());
    EXPECT_EQ((*ja)->generation_id, 1);
    EXPECT_EQ((*jb)->generation_id, 1);
}

TEST_F(GroupCoordinatorTest, InconsistentProtocolIsRefusedAndCommonProtocolIsChosen) {
    std::string a = new_member();
    auto pa = params(a);
    pa.protocols = {{"cooperative-sticky", {}}, {"range", {}}};
    join(pa);
    sync(a, 1, {});
    auto bad = params("");
    bad.protocols = {{"roundrobin", {}}};
    bad.require_known_member_id = false;
    auto jbad = join(bad);
    ASSERT_TRUE(jbad->has_value());
    EXPECT_EQ((*jbad)->error, ErrorCode::inconsistent_group_protocol);
    auto wrong_type = params("");
    wrong_type.protocol_type = "connect";
    wrong_type.require_known_member_id = false;
    auto jt = join(wrong_type);
    EXPECT_EQ((*jt)->error, ErrorCode::inconsistent_group_protocol);

    std::string b = new_member();  // only range in common
    auto jb = join(params(b, "range"));
    auto ja = join(pa);
    ASSERT_TRUE(ja->has_value());
    EXPECT_EQ((*ja)->protocol_name, "range");
}

TEST_F(GroupCoordinatorTest, LeaveRebalancesTheRestAndLastLeaveEmptiesTheGroup) {
    std::string a = new_member();
    join(params(a));
    std::string b = new_member();
    auto jb = join(params(b));
    join(params(a));
    sync(a, 2, {});
    sync(b, 2);
    EXPECT_EQ(coordinator->leave("g", a, std::nullopt), ErrorCode::none);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
    auto again = join(params(b));
    ASSERT_TRUE(again->has_value());
    EXPECT_EQ((*again)->generation_id, 3);
    EXPECT_EQ((*again)->leader, b);
    sync(b, 3, {});
    EXPECT_EQ(coordinator->leave("g", b, std::nullopt), ErrorCode::none);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::empty);
    EXPECT_EQ(coordinator->validate_commit("g", -1, "", std::nullopt), ErrorCode::none);
    EXPECT_EQ(coordinator->describe("g").group_state, "Empty");
}

TEST_F(GroupCoordinatorTest, StaticMemberJoinsWithoutRoundTripAndFencesItsOldSelf) {
    auto p = params("");
    p.group_instance_id = "instance-1";
    auto first = join(p);
    ASSERT_TRUE(first->has_value());
    EXPECT_EQ((*first)->error, ErrorCode::none);
    std::string old_id = (*first)->member_id;
    sync(old_id, 1, {});
    auto second = join(p);  // restarted: same instance id, no member id
    ASSERT_TRUE(second->has_value());
    EXPECT_NE((*second)->member_id, old_id);
    EXPECT_EQ(coordinator->heartbeat("g", (*second)->generation_id, old_id, "instance-1"),
              ErrorCode::fenced_instance_id);
}

// KIP-345: a static member closes without LeaveGroup and comes back with a JoinGroup without
// member id. The group stays Stable, nobody else is revoked, it gets its old assignment back.
TEST_F(GroupCoordinatorTest, RestartedStaticMemberGetsItsAssignmentBackWithoutRebalance) {
    StaticGroup sg = form_static_group(*this);
    auto r = join(restart_of(*this, "s2"));
    ASSERT_TRUE(r->has_value()) << "a Stable group answers at once";
    EXPECT_EQ((*r)->error, ErrorCode::none);
    const std::string fresh = (*r)->member_id;
    EXPECT_NE(fresh, sg.s2);
    EXPECT_EQ((*r)->generation_id, sg.generation);
    EXPECT_EQ((*r)->leader, sg.s1);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
    EXPECT_EQ(coordinator->heartbeat("g", sg.generation, sg.s1, "s1"), ErrorCode::none);
    auto s = sync(fresh, sg.generation);
    ASSERT_TRUE(s->has_value());
    EXPECT_EQ((*s)->error, ErrorCode::none);
    EXPECT_EQ((*s)->assignment, bytes_of("p1"));
    EXPECT_EQ(coordinator->heartbeat("g", sg.generation, fresh, "s2"), ErrorCode::none);
    EXPECT_EQ(coordinator->generation("g"), sg.generation);
}

// The previous incarnation (or a duplicate process with the same instance id) is fenced
// everywhere: never trust a member id without checking it is the one bound to the instance.
TEST_F(GroupCoordinatorTest, ReplacedStaticMemberIdIsFencedEverywhere) {
    StaticGroup sg = form_static_group(*this);
    auto r = join(restart_of(*this, "s2"));
    ASSERT_TRUE(r->has_value());
    const int32_t gen = sg.generation;
    EXPECT_EQ(coordinator->heartbeat("g", gen, sg.s2, "s2"), ErrorCode::fenced_instance_id);
    EXPECT_EQ(coordinator->validate_commit("g", gen, sg.s2, "s2"), ErrorCode::fenced_instance_id);
    auto p = params(sg.s2);
    p.group_instance_id = "s2";
    auto j = join(p);
    ASSERT_TRUE(j->has_value());
    EXPECT_EQ((*j)->error, ErrorCode::fenced_instance_id);
    SyncParams sp;
    sp.group_id = "g";
    sp.generation_id = gen;
    sp.member_id = sg.s2;
    sp.group_instance_id = "s2";
    std::optional<SyncResult> sr;
    coordinator->sync(sp, [&](SyncResult x) { sr = x; });
    ASSERT_TRUE(sr);
    EXPECT_EQ(sr->error, ErrorCode::fenced_instance_id);
    EXPECT_EQ(coordinator->leave("g", sg.s2, "s2"), ErrorCode::fenced_instance_id);
    // Without the instance id the old member id is simply unknown.
    EXPECT_EQ(coordinator->heartbeat("g", gen, sg.s2, std::nullopt), ErrorCode::unknown_member_id);
    // Another member's id under this instance id is fenced too.
    EXPECT_EQ(coordinator->heartbeat("g", gen, sg.s1, "s2"), ErrorCode::fenced_instance_id);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
    // LeaveGroup v3+ by instance id (the member id may be left out) removes the member.
    EXPECT_EQ(coordinator->leave("g", "", "s2"), ErrorCode::none);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
}

// A restarted leader is not told it leads: its assignment would never be handed out by a
// Stable group. The current leader id is its old one, which it does not recognize.
TEST_F(GroupCoordinatorTest, RestartedStaticLeaderDoesNotAssign) {
    StaticGroup sg = form_static_group(*this);
    auto r = join(restart_of(*this, "s1"));
    ASSERT_TRUE(r->has_value());
    EXPECT_EQ((*r)->error, ErrorCode::none);
    EXPECT_EQ((*r)->leader, sg.s1);
    EXPECT_NE((*r)->member_id, sg.s1);
    EXPECT_TRUE((*r)->members.empty());
    auto s = sync((*r)->member_id, sg.generation, {{(*r)->member_id, bytes_of("ignored")}});
    ASSERT_TRUE(s->has_value());
    EXPECT_EQ((*s)->assignment, bytes_of("p0"));
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
}

// If the group's protocol would change, a rebalance is needed after all.
TEST_F(GroupCoordinatorTest, RestartedStaticMemberWithOtherProtocolRebalances) {
    auto p = restart_of(*this, "s1");
    p.protocols = {{"range", {}}, {"roundrobin", {}}};
    auto j = join(p);
    sync((*j)->member_id, 1, {});
    auto p2 = restart_of(*this, "s2");
    p2.protocols = {{"roundrobin", {}}, {"range", {}}};
    auto j2 = join(p2);
    auto p1 = params((*j)->member_id);
    p1.group_instance_id = "s1";
    p1.protocols = p.protocols;
    auto j1 = join(p1);
    ASSERT_TRUE(j2->has_value());
    EXPECT_EQ((*j2)->protocol_name, "range");
    sync((*j2)->member_id, 2);
    sync((*j)->member_id, 2, {});
    ASSERT_EQ(coordinator->state("g"), ClassicGroupState::stable);
    // s1 restarts preferring roundrobin only: the vote now picks roundrobin.
    auto again = restart_of(*this, "s1");
    again.protocols = {{"roundrobin", {}}};
    auto r = join(again);
    EXPECT_FALSE(r->has_value()) << "waits for the rebalance";
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
}

// Kafka keeps a static member that has not rejoined in the next generation (the leader
// assigns to it) until its session times out; a dynamic one is dropped at once.
TEST_F(GroupCoordinatorTest, StaticMemberThatDoesNotRejoinKeepsItsPlaceUntilSessionTimeout) {
    // s2's session (10 s) outlasts the rebalance timeout (5 s).
    StaticGroup sg = form_static_group(*this, 10000);
    std::string d = new_member();
    auto jd = join(params(d));
    auto p1 = params(sg.s1);
    p1.group_instance_id = "s1";
    auto j1 = join(p1);
    EXPECT_FALSE(j1->has_value()) << "the join phase waits for s2 too";
    advance(5000);
    ASSERT_TRUE(jd->has_value());
    ASSERT_TRUE(j1->has_value());
    EXPECT_EQ((*j1)->generation_id, sg.generation + 1);
    EXPECT_EQ((*j1)->leader, sg.s1);
    EXPECT_EQ((*j1)->members.size(), 3u) << "s2 is still a member";
    // s2 restarts in CompletingRebalance: the leader may be assigning to its old id, so the
    // group rebalances again and s2 waits with everyone.
    auto r = join(restart_of(*this, "s2"));
    EXPECT_FALSE(r->has_value());
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
    join(p1);
    join(params(d));
    ASSERT_TRUE(r->has_value());
    EXPECT_EQ((*r)->generation_id, sg.generation + 2);
}

TEST_F(GroupCoordinatorTest, SilentStaticMemberIsEvictedAfterItsSessionTimeout) {
    StaticGroup sg = form_static_group(*this);
    for (int i = 0; i < 9; ++i) {
        advance(100);
        EXPECT_EQ(coordinator->heartbeat("g", sg.generation, sg.s1, "s1"), ErrorCode::none);
    }
    advance(200);
    EXPECT_EQ(coordinator->heartbeat("g", sg.generation, sg.s1, "s1"),
              ErrorCode::rebalance_in_progress);
    auto p1 = params(sg.s1);
    p1.group_instance_id = "s1";
    auto j1 = join(p1);
    ASSERT_TRUE(j1->has_value());
    EXPECT_EQ((*j1)->members.size(), 1u);
    // Its instance id is free again: coming back is a plain join of a new static member.
    auto r = join(restart_of(*this, "s2"));
    EXPECT_FALSE(r->has_value());
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
}

}  // namespace
}  // namespace skiff::broker::group
