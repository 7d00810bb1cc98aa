// What the coordinator does for any group type: deleting groups (DeleteGroups) with their
// offsets. The groups are formed with the classic protocol, the only type there is yet.
#include "broker/group/group_coordinator.h"

#include <gtest/gtest.h>

#include "tests/broker/group/coordinator_fixture.h"

namespace skiff::broker::group {
namespace {

using protocol::ErrorCode;

TEST_F(GroupCoordinatorTest, DeleteGroupOnlyWhenEmpty) {
    std::string a = new_member();
    join(params(a));
    EXPECT_EQ(coordinator->delete_group("g"), ErrorCode::non_empty_group);
    EXPECT_EQ(coordinator->delete_group("unknown"), ErrorCode::group_id_not_found);
    coordinator->leave("g", a, std::nullopt);
    ASSERT_TRUE(store->commit("g", {{{"t", 0}, CommittedOffset{5, -1, "", 1}}}));
    EXPECT_EQ(coordinator->delete_group("g"), ErrorCode::none);
    EXPECT_FALSE(store->get("g", {"t", 0}));
    EXPECT_EQ(coordinator->describe("g").group_state, "Dead");
}

TEST_F(GroupCoordinatorTest, DeleteGroupExpiresMembersPastTheirDeadlineFirst) {
    StaticGroup sg = form_static_group(*this);  // static members: they never send LeaveGroup
    EXPECT_EQ(coordinator->delete_group("g"), ErrorCode::non_empty_group);
    // Past both members' session deadlines, before the periodic tick has run.
    now += 6000;
    EXPECT_EQ(coordinator->delete_group("g"), ErrorCode::none);
    EXPECT_EQ(coordinator->describe("g").group_state, "Dead");
}

// The control API's reset and restore clear every group with their connections closed: a JoinGroup
// waiting in a rebalance is answered then (its coroutine would otherwise never finish).
TEST_F(GroupCoordinatorTest, ClearingGroupsAnswersJoinsWaitingInARebalance) {
    std::string a = new_member();
    auto first = join(params(a));
    ASSERT_TRUE(first->has_value());
    std::string b = new_member();
    auto waiting = join(params(b));  // waits until a joins again or its rebalance times out
    ASSERT_FALSE(waiting->has_value());
    coordinator->clear_groups();
    ASSERT_TRUE(waiting->has_value());
    EXPECT_EQ((*waiting)->error, ErrorCode::coordinator_not_available);
    EXPECT_EQ(coordinator->describe("g").group_state, "Dead");
}

}  // namespace
}  // namespace skiff::broker::group
