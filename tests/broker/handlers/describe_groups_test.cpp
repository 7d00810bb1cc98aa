// DescribeGroups: a stable group with its members, protocol and assignments; unknown groups
// ("Dead", and from v6 GROUP_ID_NOT_FOUND); groups that only have committed offsets ("Empty").
#include <gtest/gtest.h>

#include <limits>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::DescribeGroupsRequest;

constexpr int16_t kLatestDescribeGroups = 6;

class DescribeGroupsTest : public GroupHandlerTest {
  protected:
    std::vector<protocol::DescribedGroup> describe(std::vector<std::string> groups,
                                                   int16_t version = kLatestDescribeGroups) {
        DescribeGroupsRequest req;
        req.groups = std::move(groups);
        return run(handle_describe_groups, req, version).groups;
    }
};

TEST_F(DescribeGroupsTest, AStableGroup) {
    Member m = stable_member("g", "assigned");
    auto groups = describe({"g"});
    ASSERT_EQ(groups.size(), 1u);
    const auto& g = groups[0];
    EXPECT_EQ(g.error_code, ErrorCode::none);
    EXPECT_EQ(g.group_id, "g");
    EXPECT_EQ(g.group_state, "Stable");
    EXPECT_EQ(g.protocol_type, "consumer");
    EXPECT_EQ(g.protocol_data, "range");
    ASSERT_EQ(g.members.size(), 1u);
    EXPECT_EQ(g.members[0].member_id, m.id);
    EXPECT_EQ(g.members[0].client_id, "handler-test");
    EXPECT_EQ(g.members[0].client_host, "/127.0.0.1");
    EXPECT_EQ(g.members[0].member_metadata, bytes_of("meta-range"));
    EXPECT_EQ(g.members[0].member_assignment, bytes_of("assigned"));
}

// KIP-430 (v3+) without an authorizer: every group operation (READ 3, DELETE 6, DESCRIBE 8,
// DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11) when asked; INT32_MIN when not, and for a group
// answered with an error.
TEST_F(DescribeGroupsTest, AuthorizedOperationsWhenAsked) {
    stable_member("g", "assigned");
    DescribeGroupsRequest req;
    req.groups = {"g", "missing"};
    auto groups = run(handle_describe_groups, req, kLatestDescribeGroups).groups;
    EXPECT_EQ(groups.at(0).authorized_operations, std::numeric_limits<int32_t>::min());
    req.include_authorized_operations = true;
    groups = run(handle_describe_groups, req, kLatestDescribeGroups).groups;
    EXPECT_EQ(groups.at(0).authorized_operations,
              (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11));
    EXPECT_EQ(groups.at(1).error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(groups.at(1).authorized_operations, std::numeric_limits<int32_t>::min());
}

TEST_F(DescribeGroupsTest, ARebalancingGroupShowsNoProtocolData) {
    Member m;
    m.id = member_id_for("g");
    run(handle_join_group, join_request("g", m.id), kJoinVersion);
    auto g = describe({"g"})[0];
    EXPECT_EQ(g.group_state, "CompletingRebalance");
    EXPECT_EQ(g.protocol_data, "");
    ASSERT_EQ(g.members.size(), 1u);
    EXPECT_TRUE(g.members[0].member_assignment.empty());
}

TEST_F(DescribeGroupsTest, UnknownGroupIsDeadWithoutErrorBeforeV6) {
    auto groups = describe({"missing"}, 5);
    ASSERT_EQ(groups.size(), 1u);
    EXPECT_EQ(groups[0].error_code, ErrorCode::none);
    EXPECT_FALSE(groups[0].error_message);
    EXPECT_EQ(groups[0].group_id, "missing");
    EXPECT_EQ(groups[0].group_state, "Dead");
    EXPECT_TRUE(groups[0].members.empty());
}

TEST_F(DescribeGroupsTest, UnknownGroupIsGroupIdNotFoundFromV6) {
    stable_member("g");
    auto groups = describe({"missing", "g"}, 6);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(groups[0].error_message, "Group missing not found.");
    EXPECT_EQ(groups[0].group_state, "Dead");
    EXPECT_EQ(groups[1].error_code, ErrorCode::none);
    EXPECT_FALSE(groups[1].error_message);
    EXPECT_EQ(groups[1].group_state, "Stable");
}

TEST_F(DescribeGroupsTest, EmptyAfterTheLastMemberLeftAndForOffsetsOnly) {
    Member m = stable_member("g");
    protocol::LeaveGroupRequest leave;
    leave.group_id = "g";
    leave.member_id = m.id;
    run(handle_leave_group, leave, 0);

    create_topic("t");
    broker().groups().validate_commit("simple", -1, "", std::nullopt);
    auto groups = describe({"g", "simple"});
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].group_state, "Empty");
    EXPECT_TRUE(groups[0].members.empty());
    EXPECT_EQ(groups[1].group_state, "Empty");
}

TEST_F(DescribeGroupsTest, EverySupportedVersion) {
    stable_member("g");
    for (int16_t v = 0; v <= kLatestDescribeGroups; ++v) {
        auto groups = describe({"g"}, v);
        ASSERT_EQ(groups.size(), 1u) << "v" << v;
        EXPECT_EQ(groups[0].group_state, "Stable") << "v" << v;
        EXPECT_EQ(groups[0].members.size(), 1u) << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
