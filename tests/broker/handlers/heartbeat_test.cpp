// Heartbeat: NONE for a member of the current generation, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION
// and REBALANCE_IN_PROGRESS while the group rebalances.
#include <gtest/gtest.h>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::HeartbeatRequest;

constexpr int16_t kLatestHeartbeat = 4;

class HeartbeatTest : public GroupHandlerTest {
  protected:
    ErrorCode heartbeat(const std::string& group, const Member& m,
                        int16_t version = kLatestHeartbeat) {
        HeartbeatRequest req;
        req.group_id = group;
        req.generation_id = m.generation;
        req.member_id = m.id;
        return run(handle_heartbeat, req, version).error_code;
    }
};

TEST_F(HeartbeatTest, AMemberOfTheCurrentGeneration) {
    Member m = stable_member("g");
    EXPECT_EQ(heartbeat("g", m), ErrorCode::none);
}

TEST_F(HeartbeatTest, UnknownMember) {
    Member m = stable_member("g");
    EXPECT_EQ(heartbeat("g", {"made-up", m.generation}), ErrorCode::unknown_member_id);
    EXPECT_EQ(heartbeat("other", m), ErrorCode::unknown_member_id);
}

TEST_F(HeartbeatTest, StaleOrFutureGeneration) {
    Member m = stable_member("g");
    EXPECT_EQ(heartbeat("g", {m.id, m.generation - 1}), ErrorCode::illegal_generation);
    EXPECT_EQ(heartbeat("g", {m.id, m.generation + 1}), ErrorCode::illegal_generation);
}

TEST_F(HeartbeatTest, RebalanceInProgressWhileAnotherMemberJoins) {
    Member leader = stable_member("g");
    const std::string newcomer = member_id_for("g");
    auto nj = start(handle_join_group, join_request("g", newcomer), kJoinVersion);
    HeartbeatRequest req;
    req.group_id = "g";
    req.generation_id = leader.generation;
    req.member_id = leader.id;
    auto hb = start(handle_heartbeat, req, kLatestHeartbeat);
    auto lj = start(handle_join_group, join_request("g", leader.id), kJoinVersion);
    drive();
    ASSERT_TRUE(hb->response);
    EXPECT_EQ(hb->response->error_code, ErrorCode::rebalance_in_progress);
    // After the rebalance: the old generation is stale, the new one is fine.
    const int32_t next = lj->response->generation_id;
    EXPECT_EQ(next, leader.generation + 1);
    EXPECT_EQ(nj->response->error_code, ErrorCode::none);
}

TEST_F(HeartbeatTest, EverySupportedVersion) {
    Member m = stable_member("g");
    for (int16_t v = 0; v <= kLatestHeartbeat; ++v)
        EXPECT_EQ(heartbeat("g", m, v), ErrorCode::none) << "v" << v;
}

}  // namespace
}  // namespace skiff::broker::test
