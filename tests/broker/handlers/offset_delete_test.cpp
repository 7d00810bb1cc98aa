// OffsetDelete (KIP-496): an empty group (or one known only from its offsets) loses the offsets
// asked for and keeps the others; a live consumer group keeps the offsets of topics its members
// subscribe to (GROUP_SUBSCRIBED_TO_TOPIC) and loses the rest; unknown groups are
// GROUP_ID_NOT_FOUND, unknown topics UNKNOWN_TOPIC_OR_PARTITION; a live group of another protocol
// type is NON_EMPTY_GROUP. The deletion is durable (a restart without close keeps it).
#include <gtest/gtest.h>

#include "broker/group/consumer_subscription.h"
#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::OffsetDeleteRequest;
using protocol::OffsetDeleteResponse;

class OffsetDeleteTest : public GroupHandlerTest {
  protected:
    void SetUp() override {
        create_topic("t", 2);
        create_topic("other");
    }
    void commit(const std::string& group, const std::string& topic, int32_t partition,
                int64_t offset) {
        protocol::OffsetCommitRequest req;
        req.group_id = group;
        req.topics.push_back({topic, {}, {{partition, offset, -1, -1, ""}}});
        ASSERT_EQ(run(handle_offset_commit, req, 8).topics[0].partitions[0].error_code,
                  ErrorCode::none);
    }
    int64_t committed(const std::string& group, const std::string& topic, int32_t partition) {
        protocol::OffsetFetchRequest req;
        req.group_id = group;
        req.topics = std::vector<protocol::OffsetFetchRequestTopic>{{topic, {}, {partition}}};
        return run(handle_offset_fetch, req, 7).topics[0].partitions[0].committed_offset;
    }
    OffsetDeleteResponse remove(const std::string& group,
                                std::vector<protocol::OffsetDeleteRequestTopic> topics) {
        OffsetDeleteRequest req;
        req.group_id = group;
        req.topics = std::move(topics);
        return run(handle_offset_delete, req, 0);
    }
    // ConsumerProtocolSubscription v0: version, topics, user data (null).
    static std::vector<std::byte> subscription(const std::vector<std::string>& topics) {
        std::vector<std::byte> out;
        auto put = [&](uint32_t v, int width) {
            for (int i = width - 1; i >= 0; --i)
                out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
        };
        put(0, 2);
        put(static_cast<uint32_t>(topics.size()), 4);
        for (const auto& t : topics) {
            put(static_cast<uint32_t>(t.size()), 2);
            for (char c : t)
                out.push_back(static_cast<std::byte>(c));
        }
        put(0xffffffffu, 4);
        return out;
    }
    // A member that joined alone subscribed to `topics` and synced: the group is Stable.
    void consume(const std::string& group, const std::vector<std::string>& topics,
                 const std::string& protocol_type = "consumer") {
        Member m;
        m.id = member_id_for(group);
        auto join = join_request(group, m.id);
        join.protocol_type = protocol_type;
        join.protocols[0].metadata = subscription(topics);
        auto joined = run(handle_join_group, join, kJoinVersion);
        ASSERT_EQ(joined.error_code, ErrorCode::none);
        m.generation = joined.generation_id;
        auto sync = sync_request(group, m, {{m.id, "a"}});
        sync.protocol_type = protocol_type;
        ASSERT_EQ(run(handle_sync_group, sync, kSyncVersion).error_code, ErrorCode::none);
    }
};

TEST(ConsumerSubscription, ReadsTheTopicsOfEveryVersionAndRefusesGarbage) {
    const std::vector<std::byte> v0 = {
        std::byte{0}, std::byte{1},                                // version 1
        std::byte{0}, std::byte{0}, std::byte{0},   std::byte{2},  // two topics
        std::byte{0}, std::byte{1}, std::byte{'a'},                // "a"
        std::byte{0}, std::byte{2}, std::byte{'b'}, std::byte{'c'}};
    auto topics = group::subscribed_topics(v0);
    ASSERT_TRUE(topics);
    EXPECT_EQ(*topics, (std::set<std::string>{"a", "bc"}));
    auto truncated = std::span(v0).first(v0.size() - 1);
    EXPECT_FALSE(group::subscribed_topics(truncated));
    EXPECT_FALSE(group::subscribed_topics(std::span(v0).first(3)));
}

TEST_F(OffsetDeleteTest, AnEmptyGroupLosesOnlyTheOffsetsAskedFor) {
    commit("g", "t", 0, 5);
    commit("g", "t", 1, 6);
    commit("g", "other", 0, 7);
    auto resp = remove("g", {{"t", {1}}, {"other", {0}}});
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].name, "t");
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_EQ(resp.topics[0].partitions[0].partition_index, 1);
    EXPECT_EQ(resp.topics[0].partitions[0].error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics[1].partitions[0].error_code, ErrorCode::none);
    EXPECT_EQ(committed("g", "t", 0), 5);
    EXPECT_EQ(committed("g", "t", 1), -1);
    EXPECT_EQ(committed("g", "other", 0), -1);
    restart();
    EXPECT_EQ(committed("g", "t", 0), 5);
    EXPECT_EQ(committed("g", "t", 1), -1);
}

TEST_F(OffsetDeleteTest, ALiveConsumerGroupKeepsTheTopicsItSubscribesTo) {
    commit("g", "t", 0, 5);
    commit("g", "other", 0, 7);
    consume("g", {"t"});
    auto resp = remove("g", {{"t", {0}}, {"other", {0}}});
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].partitions[0].error_code, ErrorCode::group_subscribed_to_topic);
    EXPECT_EQ(resp.topics[1].partitions[0].error_code, ErrorCode::none);
    EXPECT_EQ(committed("g", "t", 0), 5);
    EXPECT_EQ(committed("g", "other", 0), -1);
}

TEST_F(OffsetDeleteTest, GroupAndTopicErrors) {
    auto missing = remove("nobody", {{"t", {0}}});
    EXPECT_EQ(missing.error_code, ErrorCode::group_id_not_found);
    EXPECT_TRUE(missing.topics.empty());

    commit("g", "t", 0, 5);
    auto unknown = remove("g", {{"nope", {0}}, {"t", {9}}});
    EXPECT_EQ(unknown.error_code, ErrorCode::none);
    ASSERT_EQ(unknown.topics.size(), 2u);
    EXPECT_EQ(unknown.topics[0].partitions[0].error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(unknown.topics[1].partitions[0].error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(committed("g", "t", 0), 5);

    consume("connect-like", {"t"}, "connect");
    auto other_type = remove("connect-like", {{"t", {0}}});
    EXPECT_EQ(other_type.error_code, ErrorCode::non_empty_group);
}

}  // namespace
}  // namespace skiff::broker::test
