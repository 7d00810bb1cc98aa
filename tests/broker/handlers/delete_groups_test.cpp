// DeleteGroups: a group with members is NON_EMPTY_GROUP; an empty group or one known only from
// its committed offsets is deleted together with its offsets; unknown groups are
// GROUP_ID_NOT_FOUND.
#include <gtest/gtest.h>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::DeleteGroupsRequest;

constexpr int16_t kLatestDeleteGroups = 2;

class DeleteGroupsTest : public GroupHandlerTest {
  protected:
    std::vector<protocol::DeletableGroupResult> remove(std::vector<std::string> groups,
                                                       int16_t version = kLatestDeleteGroups) {
        DeleteGroupsRequest req;
        req.groups_names = std::move(groups);
        return run(handle_delete_groups, req, version).results;
    }
    void commit_simple(const std::string& group) {
        protocol::OffsetCommitRequest commit;
        commit.group_id = group;
        commit.topics.push_back({"t", {}, {{0, 5, -1, -1, ""}}});
        auto r = run(handle_offset_commit, commit, 8);
        ASSERT_EQ(r.topics[0].partitions[0].error_code, ErrorCode::none);
    }
    int64_t committed(const std::string& group) {
        protocol::OffsetFetchRequest req;
        req.group_id = group;
        req.topics = std::vector<protocol::OffsetFetchRequestTopic>{{"t", {}, {0}}};
        return run(handle_offset_fetch, req, 7).topics[0].partitions[0].committed_offset;
    }
    void SetUp() override { create_topic("t"); }
};

TEST_F(DeleteGroupsTest, AGroupWithMembersIsNotDeleted) {
    stable_member("g");
    auto results = remove({"g"});
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].group_id, "g");
    EXPECT_EQ(results[0].error_code, ErrorCode::non_empty_group);
    EXPECT_EQ(broker().groups().state("g"), group::ClassicGroupState::stable);
}

TEST_F(DeleteGroupsTest, AnEmptyGroupIsDeletedWithItsOffsets) {
    Member m = stable_member("g");
    protocol::OffsetCommitRequest commit;
    commit.group_id = "g";
    commit.generation_id = m.generation;
    commit.member_id = m.id;
    commit.topics.push_back({"t", {}, {{0, 9, -1, -1, ""}}});
    ASSERT_EQ(run(handle_offset_commit, commit, 8).topics[0].partitions[0].error_code,
              ErrorCode::none);
    protocol::LeaveGroupRequest leave;
    leave.group_id = "g";
    leave.member_id = m.id;
    ASSERT_EQ(run(handle_leave_group, leave, 0).error_code, ErrorCode::none);

    EXPECT_EQ(remove({"g"})[0].error_code, ErrorCode::none);
    EXPECT_FALSE(broker().groups().state("g"));
    EXPECT_EQ(committed("g"), -1);
    EXPECT_EQ(remove({"g"})[0].error_code, ErrorCode::group_id_not_found);
}

TEST_F(DeleteGroupsTest, AGroupKnownOnlyFromItsOffsets) {
    commit_simple("simple");
    ASSERT_EQ(committed("simple"), 5);
    EXPECT_EQ(remove({"simple"})[0].error_code, ErrorCode::none);
    EXPECT_EQ(committed("simple"), -1);
}

TEST_F(DeleteGroupsTest, UnknownGroupAndEachGroupAnswered) {
    stable_member("busy");
    commit_simple("simple");
    auto results = remove({"missing", "busy", "simple"});
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(results[1].error_code, ErrorCode::non_empty_group);
    EXPECT_EQ(results[2].error_code, ErrorCode::none);
}

TEST_F(DeleteGroupsTest, EverySupportedVersion) {
    for (int16_t v = 0; v <= kLatestDeleteGroups; ++v) {
        const std::string group = "g" + std::to_string(v);
        commit_simple(group);
        EXPECT_EQ(remove({group}, v)[0].error_code, ErrorCode::none) << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
