// The share session cache on its own (broker/share/share_session_cache.h): epochs, the union of
// partitions minus the forgotten ones, the limit, replacement, and the membership's listener
// calls removing sessions.
#include "broker/share/share_session_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace skiff::broker::share {
namespace {

using protocol::ErrorCode;

SessionPartition sp(uint8_t topic, int32_t partition) {
    protocol::Uuid id;
    id.bytes[0] = topic;
    return {id, partition};
}

TEST(ShareSessionCache, EpochsAndPartitions) {
    ShareSessionCache cache(10);
    bool replaced = true;
    std::vector<SessionPartition> first{sp(1, 0), sp(1, 1)};
    ASSERT_EQ(cache.open("g", "m", first, replaced), ErrorCode::none);
    EXPECT_FALSE(replaced);
    std::vector<SessionPartition> out;
    std::vector<SessionPartition> added{sp(2, 0), sp(1, 0)};
    std::vector<SessionPartition> forgotten{sp(1, 1)};
    EXPECT_EQ(cache.update("g", "m", 2, added, {}, out), ErrorCode::invalid_share_session_epoch);
    ASSERT_EQ(cache.update("g", "m", 1, added, forgotten, out), ErrorCode::none);
    EXPECT_EQ(out, (std::vector<SessionPartition>{sp(1, 0), sp(2, 0)}));
    EXPECT_EQ(cache.acknowledge("g", "m", 2), ErrorCode::none);
    EXPECT_EQ(cache.acknowledge("g", "m", 2), ErrorCode::invalid_share_session_epoch);
    EXPECT_EQ(cache.update("g", "m", 3, {}, {}, out), ErrorCode::none);
    EXPECT_EQ(cache.update("g", "other", 1, {}, {}, out), ErrorCode::share_session_not_found);
    EXPECT_EQ(cache.close("g", "m"), ErrorCode::none);
    EXPECT_EQ(cache.close("g", "m"), ErrorCode::share_session_not_found);
    EXPECT_EQ(cache.size(), 0u);
}

// Kafka removes a share session when the connection that opened it closes: the sessions opened
// on that connection go (returned, for their members' records to be released), no other one
// does, and a session opened again on another connection is that connection's.
TEST(ShareSessionCache, SessionsGoWithTheConnectionThatOpenedThem) {
    ShareSessionCache cache(10);
    bool replaced = false;
    ASSERT_EQ(cache.open("g", "a", {}, replaced, 7), ErrorCode::none);
    ASSERT_EQ(cache.open("g", "b", {}, replaced, 8), ErrorCode::none);
    ASSERT_EQ(cache.open("h", "c", {}, replaced, 7), ErrorCode::none);
    ASSERT_EQ(cache.open("h", "d", {}, replaced), ErrorCode::none);  // no connection known
    EXPECT_TRUE(cache.connection_closed(9).empty());
    EXPECT_TRUE(cache.connection_closed(0).empty());  // in-process callers close nothing
    auto gone = cache.connection_closed(7);
    std::sort(gone.begin(), gone.end());
    EXPECT_EQ(gone, (std::vector<std::pair<std::string, std::string>>{{"g", "a"}, {"h", "c"}}));
    EXPECT_FALSE(cache.has_session("g", "a"));
    EXPECT_FALSE(cache.has_session("h", "c"));
    EXPECT_TRUE(cache.has_session("g", "b"));
    EXPECT_TRUE(cache.has_session("h", "d"));
    EXPECT_EQ(cache.size(), 2u);
    std::vector<SessionPartition> out;
    EXPECT_EQ(cache.update("g", "a", 1, {}, {}, out), ErrorCode::share_session_not_found);
    // b reconnects: its new session (epoch 0 again) belongs to the new connection.
    ASSERT_EQ(cache.open("g", "b", {}, replaced, 10), ErrorCode::none);
    EXPECT_TRUE(replaced);
    EXPECT_TRUE(cache.connection_closed(8).empty());
    EXPECT_EQ(cache.connection_closed(10).size(), 1u);
    EXPECT_EQ(cache.size(), 1u);
}

TEST(ShareSessionCache, LimitAndReplacement) {
    ShareSessionCache cache(2);
    bool replaced = false;
    EXPECT_EQ(cache.open("g", "a", {}, replaced), ErrorCode::none);
    EXPECT_EQ(cache.open("g", "b", {}, replaced), ErrorCode::none);
    EXPECT_EQ(cache.open("h", "c", {}, replaced), ErrorCode::share_session_limit_reached);
    EXPECT_EQ(cache.open("g", "a", {}, replaced), ErrorCode::none);
    EXPECT_TRUE(replaced);
    EXPECT_EQ(cache.size(), 2u);
    cache.member_left("g", "a");
    EXPECT_EQ(cache.size(), 1u);
    EXPECT_EQ(cache.open("h", "c", {}, replaced), ErrorCode::none);
    cache.group_deleted("g");
    EXPECT_EQ(cache.size(), 1u);
    std::vector<SessionPartition> out;
    EXPECT_EQ(cache.update("g", "b", 1, {}, {}, out), ErrorCode::share_session_not_found);
    EXPECT_EQ(cache.update("h", "c", 1, {}, {}, out), ErrorCode::none);
}

TEST(ShareSessionCache, ALeavingMembersSessionClosesWithinItsGrace) {
    ShareSessionCache cache(10);
    bool replaced = false;
    ASSERT_EQ(cache.open("g", "a", {}, replaced), ErrorCode::none);
    EXPECT_FALSE(cache.member_leaving("g", "nobody", 1000));  // no session: caller releases
    ASSERT_TRUE(cache.member_leaving("g", "a", 1000));
    EXPECT_TRUE(cache.has_session("g", "a"));
    EXPECT_TRUE(cache.expire_closing(1000 + ShareSessionCache::kClosingGraceMs - 1).empty());
    auto expired = cache.expire_closing(1000 + ShareSessionCache::kClosingGraceMs);
    ASSERT_EQ(expired.size(), 1u);
    EXPECT_EQ(expired[0], std::make_pair(std::string("g"), std::string("a")));
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_FALSE(cache.has_session("g", "a"));
    // A closing session closed by its final request is simply gone.
    ASSERT_EQ(cache.open("g", "b", {}, replaced), ErrorCode::none);
    ASSERT_TRUE(cache.member_leaving("g", "b", 0));
    EXPECT_EQ(cache.close("g", "b"), ErrorCode::none);
    EXPECT_TRUE(cache.expire_closing(1 << 30).empty());
}

TEST(ShareSessionCache, EpochsWrapToOne) {
    EXPECT_EQ(next_share_session_epoch(0), 1);
    EXPECT_EQ(next_share_session_epoch(41), 42);
    EXPECT_EQ(next_share_session_epoch(std::numeric_limits<int32_t>::max()), 1);
    EXPECT_EQ(next_share_session_epoch(-1), -1);
}

}  // namespace
}  // namespace skiff::broker::share
