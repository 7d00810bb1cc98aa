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
    EXPECT_EQ(broker().groups().state("g"), group::GroupState::completing_rebalance);
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

TEST_F(JoinGroupTest, EverySupportedVersion) {
    for (int16_t v = 0; v <= kJoinVersion; ++v) {
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
