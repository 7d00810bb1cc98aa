// SyncGroup: the leader's assignment reaches every member (a follower waits for it), and the
// refusals: unknown group or member, stale generation, inconsistent protocol, a rebalance.
#include <gtest/gtest.h>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using SyncGroupTest = GroupHandlerTest;

TEST_F(SyncGroupTest, TheLeaderGetsItsOwnAssignmentAndTheGroupIsStable) {
    Member m;
    m.id = member_id_for("g");
    m.generation = run(handle_join_group, join_request("g", m.id), kJoinVersion).generation_id;
    auto r = run(handle_sync_group, sync_request("g", m, {{m.id, "p0,p1"}}), kSyncVersion);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.assignment, bytes_of("p0,p1"));
    EXPECT_EQ(r.protocol_type, "consumer");
    EXPECT_EQ(r.protocol_name, "range");
    EXPECT_EQ(broker().groups().state("g"), group::ClassicGroupState::stable);

    // Syncing again in the stable generation returns the same assignment.
    auto again = run(handle_sync_group, sync_request("g", m), kSyncVersion);
    EXPECT_EQ(again.error_code, ErrorCode::none);
    EXPECT_EQ(again.assignment, bytes_of("p0,p1"));
}

TEST_F(SyncGroupTest, AFollowerWaitsForTheLeadersAssignment) {
    Member leader = stable_member("g");
    Member follower{member_id_for("g"), -1};
    auto fj = start(handle_join_group, join_request("g", follower.id), kJoinVersion);
    auto lj = start(handle_join_group, join_request("g", leader.id), kJoinVersion);
    drive();
    ASSERT_EQ(fj->response->error_code, ErrorCode::none);
    ASSERT_EQ(lj->response->error_code, ErrorCode::none);
    follower.generation = fj->response->generation_id;
    leader.generation = lj->response->generation_id;

    auto fs = start(handle_sync_group, sync_request("g", follower), kSyncVersion);
    auto ls = start(handle_sync_group,
                    sync_request("g", leader, {{leader.id, "mine"}, {follower.id, "yours"}}),
                    kSyncVersion);
    drive();
    ASSERT_TRUE(fs->response);
    ASSERT_TRUE(ls->response);
    EXPECT_EQ(fs->response->error_code, ErrorCode::none);
    EXPECT_EQ(fs->response->assignment, bytes_of("yours"));
    EXPECT_EQ(ls->response->error_code, ErrorCode::none);
    EXPECT_EQ(ls->response->assignment, bytes_of("mine"));
}

TEST_F(SyncGroupTest, Refusals) {
    Member m = stable_member("g");
    EXPECT_EQ(run(handle_sync_group, sync_request("other", m), kSyncVersion).error_code,
              ErrorCode::unknown_member_id);
    EXPECT_EQ(run(handle_sync_group, sync_request("g", {"made-up", m.generation}), kSyncVersion)
                  .error_code,
              ErrorCode::unknown_member_id);
    EXPECT_EQ(run(handle_sync_group, sync_request("g", {m.id, m.generation + 1}), kSyncVersion)
                  .error_code,
              ErrorCode::illegal_generation);
    auto wrong_protocol = sync_request("g", m);
    wrong_protocol.protocol_name = "roundrobin";
    EXPECT_EQ(run(handle_sync_group, wrong_protocol, kSyncVersion).error_code,
              ErrorCode::inconsistent_group_protocol);
}

TEST_F(SyncGroupTest, DuringARebalanceIsRebalanceInProgress) {
    Member leader = stable_member("g");
    const std::string newcomer = member_id_for("g");
    // The newcomer's join starts a rebalance; the leader's sync of the old generation is
    // refused; the leader's rejoin then completes the join so that drive() returns.
    auto nj = start(handle_join_group, join_request("g", newcomer), kJoinVersion);
    auto sync = start(handle_sync_group, sync_request("g", leader), kSyncVersion);
    auto lj = start(handle_join_group, join_request("g", leader.id), kJoinVersion);
    drive();
    ASSERT_TRUE(sync->response);
    EXPECT_EQ(sync->response->error_code, ErrorCode::rebalance_in_progress);
    EXPECT_EQ(nj->response->error_code, ErrorCode::none);
}

TEST_F(SyncGroupTest, EverySupportedVersion) {
    for (int16_t v = 0; v <= kSyncVersion; ++v) {
        const std::string group = "g" + std::to_string(v);
        Member m;
        m.id = member_id_for(group);
        m.generation =
            run(handle_join_group, join_request(group, m.id), kJoinVersion).generation_id;
        auto r = run(handle_sync_group, sync_request(group, m, {{m.id, "x"}}), v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.assignment, bytes_of("x")) << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
