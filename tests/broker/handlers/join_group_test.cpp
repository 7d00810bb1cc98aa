// JoinGroup: the MEMBER_ID_REQUIRED round trip (v4+), direct joins before v4, the leader's view
// of the members, a second member forcing a rebalance, and the refusals (unknown member, empty
// group id, bad session timeout, inconsistent protocols).
#include <gtest/gtest.h>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using JoinGroupTest = GroupHandlerTest;

TEST_F(JoinGroupTest, MemberIdRequiredThenJoinWithIt) {
    auto first = run(handle_join_group, join_request("g", ""), kJoinVersion);
    EXPECT_EQ(first.error_code, ErrorCode::member_id_required);
    EXPECT_FALSE(first.member_id.empty());
    EXPECT_EQ(first.member_id.rfind("handler-test-", 0), 0u) << first.member_id;  // client id
    EXPECT_EQ(first.generation_id, -1);
    EXPECT_FALSE(first.protocol_type.has_value());
    EXPECT_TRUE(first.members.empty());

    auto joined = run(handle_join_group, join_request("g", first.member_id), kJoinVersion);
    EXPECT_EQ(joined.error_code, ErrorCode::none);
    EXPECT_EQ(joined.member_id, first.member_id);
    EXPECT_EQ(joined.generation_id, 1);
    EXPECT_EQ(joined.leader, first.member_id);
    EXPECT_EQ(joined.protocol_type, "consumer");
    EXPECT_EQ(joined.protocol_name, "range");
    // The leader gets every member with its metadata for the chosen protocol.
    ASSERT_EQ(joined.members.size(), 1u);
    EXPECT_EQ(joined.members[0].member_id, first.member_id);
    EXPECT_EQ(joined.members[0].metadata, bytes_of("meta-range"));
    EXPECT_EQ(broker().groups().state("g"), group::ClassicGroupState::completing_rebalance);
}

TEST_F(JoinGroupTest, BeforeV4TheMemberJoinsAtOnce) {
    auto joined = run(handle_join_group, join_request("g", ""), 3);
    EXPECT_EQ(joined.error_code, ErrorCode::none);
    EXPECT_FALSE(joined.member_id.empty());
    EXPECT_EQ(joined.generation_id, 1);
    EXPECT_EQ(joined.leader, joined.member_id);
    EXPECT_EQ(joined.protocol_name, "range");
}

TEST_F(JoinGroupTest, ErrorAnswersCarryAnEmptyProtocolNameBeforeV7) {
    auto r = run(handle_join_group, join_request("g", ""), 6);
    EXPECT_EQ(r.error_code, ErrorCode::member_id_required);
    EXPECT_EQ(r.protocol_name, "");
    auto v7 = run(handle_join_group, join_request("g", ""), 7);
    EXPECT_FALSE(v7.protocol_name.has_value());
}

TEST_F(JoinGroupTest, UnknownMemberId) {
    // A member id the broker never handed out, for a new group and for an existing one.
    EXPECT_EQ(run(handle_join_group, join_request("new", "made-up"), kJoinVersion).error_code,
              ErrorCode::unknown_member_id);
    stable_member("g");
    EXPECT_EQ(run(handle_join_group, join_request("g", "made-up"), kJoinVersion).error_code,
              ErrorCode::unknown_member_id);
}

TEST_F(JoinGroupTest, EmptyGroupIdAndBadSessionTimeout) {
    EXPECT_EQ(run(handle_join_group, join_request("", ""), kJoinVersion).error_code,
              ErrorCode::invalid_group_id);
    auto req = join_request("g", "");
    req.session_timeout_ms = 0;
    EXPECT_EQ(run(handle_join_group, req, kJoinVersion).error_code,
              ErrorCode::invalid_session_timeout);
    req.session_timeout_ms = 1800001;
    EXPECT_EQ(run(handle_join_group, req, kJoinVersion).error_code,
              ErrorCode::invalid_session_timeout);
}

TEST_F(JoinGroupTest, InconsistentProtocol) {
    stable_member("g");
    auto other_type = join_request("g", "");
    other_type.protocol_type = "connect";
    EXPECT_EQ(run(handle_join_group, other_type, kJoinVersion).error_code,
              ErrorCode::inconsistent_group_protocol);
    EXPECT_EQ(run(handle_join_group, join_request("g", "", "roundrobin"), kJoinVersion).error_code,
              ErrorCode::inconsistent_group_protocol);
}

TEST_F(JoinGroupTest, ASecondMemberRebalancesTheGroupWhenTheFirstRejoins) {
    Member leader = stable_member("g");
    const std::string follower_id = member_id_for("g");

    // The follower's join parks until the leader rejoins; both then get generation 2.
    auto follower = start(handle_join_group, join_request("g", follower_id), kJoinVersion);
    auto rejoined = start(handle_join_group, join_request("g", leader.id), kJoinVersion);
    drive();
    ASSERT_TRUE(follower->response);
    ASSERT_TRUE(rejoined->response);
    EXPECT_EQ(follower->response->error_code, ErrorCode::none);
    EXPECT_EQ(rejoined->response->error_code, ErrorCode::none);
    EXPECT_EQ(follower->response->generation_id, leader.generation + 1);
    EXPECT_EQ(rejoined->response->generation_id, leader.generation + 1);
    EXPECT_EQ(follower->response->leader, leader.id);
    EXPECT_EQ(rejoined->response->leader, leader.id);
    EXPECT_EQ(rejoined->response->members.size(), 2u);
    EXPECT_TRUE(follower->response->members.empty());  // only the leader gets the members
}

// A static member (group.instance.id) that leads a Stable group restarts and joins again with
// an empty member id and unchanged protocols: the group keeps its assignment. From v9 (KIP-814)
// the new incarnation learns that it leads, gets the members and skip_assignment; before v9 it
// is answered as a follower, the leader id being its old member id.
TEST_F(JoinGroupTest, ARestartedStaticLeaderSkipsTheAssignmentFromV9) {
    for (int16_t v : {8, 9}) {
        const std::string group = "static" + std::to_string(v);
        auto req = join_request(group, "");
        req.group_instance_id = "instance-1";
        auto first = run(handle_join_group, req, v);  // static members need no second join
        ASSERT_EQ(first.error_code, ErrorCode::none) << "v" << v;
        ASSERT_EQ(first.leader, first.member_id) << "v" << v;
        EXPECT_FALSE(first.skip_assignment) << "v" << v;
        Member m{first.member_id, first.generation_id};
        auto synced = run(handle_sync_group, sync_request(group, m, {{m.id, "a"}}), kSyncVersion);
        ASSERT_EQ(synced.error_code, ErrorCode::none) << "v" << v;

        req.reason = "restarted";
        auto again = run(handle_join_group, req, v);
        ASSERT_EQ(again.error_code, ErrorCode::none) << "v" << v;
        EXPECT_NE(again.member_id, m.id) << "v" << v;
        EXPECT_EQ(again.generation_id, m.generation) << "v" << v;  // no rebalance
        if (v >= 9) {
            EXPECT_TRUE(again.skip_assignment);
            EXPECT_EQ(again.leader, again.member_id);
            ASSERT_EQ(again.members.size(), 1u);
            EXPECT_EQ(again.members[0].member_id, again.member_id);
            EXPECT_EQ(again.members[0].group_instance_id, "instance-1");
        } else {
            EXPECT_FALSE(again.skip_assignment);
            EXPECT_EQ(again.leader, m.id);
            EXPECT_TRUE(again.members.empty());
        }
        // Either way the group is Stable and the new member id syncs to the old assignment.
        auto resync =
            run(handle_sync_group, sync_request(group, {again.member_id, again.generation_id}),
                kSyncVersion);
        EXPECT_EQ(resync.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(resync.assignment, bytes_of("a")) << "v" << v;
    }
}

TEST_F(JoinGroupTest, EverySupportedVersion) {
    for (int16_t v = 0; v <= 9; ++v) {
        const std::string group = "g" + std::to_string(v);
        auto r = run(handle_join_group, join_request(group, ""), v);
        if (v >= 4) {
            ASSERT_EQ(r.error_code, ErrorCode::member_id_required) << "v" << v;
            r = run(handle_join_group, join_request(group, r.member_id), v);
        }
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.generation_id, 1) << "v" << v;
        EXPECT_EQ(r.members.size(), 1u) << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
