// ListGroups: every group with its protocol type and state, groups known only from committed
// offsets, the v4 state filter and the v5 type filter (both case-insensitive).
#include <gtest/gtest.h>

#include <algorithm>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::ListGroupsRequest;

constexpr int16_t kLatestListGroups = 5;

class ListGroupsTest : public GroupHandlerTest {
  protected:
    std::vector<protocol::ListedGroup> list(std::vector<std::string> states = {},
                                            int16_t version = kLatestListGroups,
                                            std::vector<std::string> types = {}) {
        ListGroupsRequest req;
        req.states_filter = std::move(states);
        req.types_filter = std::move(types);
        auto resp = run(handle_list_groups, req, version);
        EXPECT_EQ(resp.error_code, ErrorCode::none);
        auto groups = resp.groups;
        std::sort(groups.begin(), groups.end(),
                  [](const auto& a, const auto& b) { return a.group_id < b.group_id; });
        return groups;
    }
    // "stable": a Stable consumer group; "simple": offsets committed without members (Empty).
    void two_groups() {
        stable_member("stable");
        create_topic("t");
        protocol::OffsetCommitRequest commit;
        commit.group_id = "simple";
        commit.topics.push_back({"t", {}, {{0, 5, -1, -1, ""}}});
        auto r = run(handle_offset_commit, commit, 9);
        ASSERT_EQ(r.topics[0].partitions[0].error_code, ErrorCode::none);
    }
};

TEST_F(ListGroupsTest, NoGroups) {
    EXPECT_TRUE(list().empty());
}

TEST_F(ListGroupsTest, EveryGroupWithItsState) {
    two_groups();
    auto groups = list();
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].group_id, "simple");
    EXPECT_EQ(groups[0].group_state, "Empty");
    EXPECT_EQ(groups[0].protocol_type, "");
    EXPECT_EQ(groups[1].group_id, "stable");
    EXPECT_EQ(groups[1].group_state, "Stable");
    EXPECT_EQ(groups[1].protocol_type, "consumer");
}

TEST_F(ListGroupsTest, StateFilterIsCaseInsensitive) {
    two_groups();
    auto stable = list({"STABLE"});
    ASSERT_EQ(stable.size(), 1u);
    EXPECT_EQ(stable[0].group_id, "stable");
    EXPECT_EQ(list({"empty", "stable"}).size(), 2u);
    EXPECT_TRUE(list({"Dead"}).empty());
}

TEST_F(ListGroupsTest, EveryGroupIsClassicAndTheTypeFilterIsCaseInsensitive) {
    two_groups();
    auto groups = list();
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].group_type, "classic");
    EXPECT_EQ(groups[1].group_type, "classic");
    EXPECT_EQ(list({}, 5, {"Classic"}).size(), 2u);
    EXPECT_TRUE(list({}, 5, {"consumer"}).empty());
    EXPECT_TRUE(list({}, 5, {"share"}).empty());
    EXPECT_EQ(list({}, 5, {"consumer", "CLASSIC"}).size(), 2u);
    // Both filters apply.
    auto stable = list({"stable"}, 5, {"classic"});
    ASSERT_EQ(stable.size(), 1u);
    EXPECT_EQ(stable[0].group_id, "stable");
}

TEST_F(ListGroupsTest, EverySupportedVersion) {
    two_groups();
    for (int16_t v = 0; v <= kLatestListGroups; ++v)
        EXPECT_EQ(list({}, v).size(), 2u) << "v" << v;
}

}  // namespace
}  // namespace skiff::broker::test
