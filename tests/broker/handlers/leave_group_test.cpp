// LeaveGroup: one member (v0-2) or a batch answered per member (v3+); unknown members and
// groups; the group is Empty once its last member has left.
#include <gtest/gtest.h>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::LeaveGroupRequest;

constexpr int16_t kLatestLeaveGroup = 5;

using LeaveGroupTest = GroupHandlerTest;

LeaveGroupRequest leave_one(const std::string& group, const std::string& member) {
    LeaveGroupRequest req;
    req.group_id = group;
    req.member_id = member;
    return req;
}

LeaveGroupRequest leave_batch(const std::string& group, std::vector<std::string> members) {
    LeaveGroupRequest req;
    req.group_id = group;
    for (auto& m : members)
        req.members.push_back({std::move(m), std::nullopt, "shutting down"});
    return req;
}

TEST_F(LeaveGroupTest, OneMemberBeforeV3) {
    Member m = stable_member("g");
    auto r = run(handle_leave_group, leave_one("g", m.id), 2);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(broker().groups().state("g"), group::ClassicGroupState::empty);
    // Leaving twice: no longer a member.
    EXPECT_EQ(run(handle_leave_group, leave_one("g", m.id), 2).error_code,
              ErrorCode::unknown_member_id);
}

TEST_F(LeaveGroupTest, EachMemberAnsweredFromV3) {
    Member m = stable_member("g");
    auto r = run(handle_leave_group, leave_batch("g", {m.id, "made-up"}), kLatestLeaveGroup);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    ASSERT_EQ(r.members.size(), 2u);
    EXPECT_EQ(r.members[0].member_id, m.id);
    EXPECT_EQ(r.members[0].error_code, ErrorCode::none);
    EXPECT_EQ(r.members[1].member_id, "made-up");
    EXPECT_EQ(r.members[1].error_code, ErrorCode::unknown_member_id);
    EXPECT_EQ(broker().groups().state("g"), group::ClassicGroupState::empty);
}

TEST_F(LeaveGroupTest, UnknownGroup) {
    EXPECT_EQ(run(handle_leave_group, leave_one("missing", "m"), 0).error_code,
              ErrorCode::unknown_member_id);
    auto r = run(handle_leave_group, leave_batch("missing", {"m"}), kLatestLeaveGroup);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    ASSERT_EQ(r.members.size(), 1u);
    EXPECT_EQ(r.members[0].error_code, ErrorCode::unknown_member_id);
}

TEST_F(LeaveGroupTest, APendingMemberIdMayLeave) {
    stable_member("g");
    const std::string pending = member_id_for("g");
    EXPECT_EQ(run(handle_leave_group, leave_one("g", pending), 1).error_code, ErrorCode::none);
    // Its id is then unknown for joining.
    EXPECT_EQ(run(handle_join_group, join_request("g", pending), kJoinVersion).error_code,
              ErrorCode::unknown_member_id);
}

TEST_F(LeaveGroupTest, EverySupportedVersion) {
    for (int16_t v = 0; v <= kLatestLeaveGroup; ++v) {
        const std::string group = "g" + std::to_string(v);
        Member m = stable_member(group);
        auto r =
            run(handle_leave_group, v < 3 ? leave_one(group, m.id) : leave_batch(group, {m.id}), v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(broker().groups().state(group), group::ClassicGroupState::empty) << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
