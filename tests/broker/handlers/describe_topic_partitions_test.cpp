// DescribeTopicPartitions: topics with their ids and partitions, sorted by name, in pages of at
// most response_partition_limit partitions continued through next_cursor; unknown topics; a
// cursor outside the named topics or with a negative partition; the internal topics in the
// listing of every topic; the ELR fields (empty, not null) and the authorized operations.
#include <gtest/gtest.h>

#include "broker/topics/topic_ids.h"
#include "handler_fixture.h"
#include "protocol/describe_topic_partitions.h"

namespace skiff::broker::test {
namespace {

using protocol::DescribeTopicPartitionsCursor;
using protocol::DescribeTopicPartitionsRequest;

class DescribeTopicPartitionsTest : public HandlerTest {
  protected:
    DescribeTopicPartitionsRequest request(
        std::vector<std::string> names, int32_t limit,
        std::optional<DescribeTopicPartitionsCursor> cursor = std::nullopt) {
        DescribeTopicPartitionsRequest req;
        for (auto& n : names)
            req.topics.push_back({std::move(n)});
        req.response_partition_limit = limit;
        req.cursor = std::move(cursor);
        return req;
    }
};

TEST_F(DescribeTopicPartitionsTest, OnePageWithIds) {
    create_topic("b", 2);
    create_topic("a", 1);
    auto resp = run(handle_describe_topic_partitions, request({"b", "a", "missing"}, 100), 0);
    ASSERT_EQ(resp.topics.size(), 3u);
    EXPECT_EQ(resp.topics[0].name, std::optional<std::string>("a"));
    EXPECT_EQ(resp.topics[0].topic_id, to_uuid(*broker().topics().topic_id("a")));
    EXPECT_EQ(resp.topics[1].name, std::optional<std::string>("b"));
    EXPECT_EQ(resp.topics[1].partitions.size(), 2u);
    EXPECT_EQ(resp.topics[1].partitions[1].leader_id, broker().node_id());
    EXPECT_EQ(resp.topics[2].name, std::optional<std::string>("missing"));
    EXPECT_EQ(resp.topics[2].error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_FALSE(resp.next_cursor);
}

TEST_F(DescribeTopicPartitionsTest, PagesFollowTheCursor) {
    create_topic("a", 3);
    create_topic("b", 1);
    create_topic("c", 1);
    // Every topic (none named), two partitions a page, from "a" on (the internal topics sort
    // before it).
    auto p1 = run(handle_describe_topic_partitions,
                  request({}, 2, DescribeTopicPartitionsCursor{"a", 0}), 0);
    ASSERT_EQ(p1.topics.size(), 1u);
    EXPECT_EQ(p1.topics[0].partitions.size(), 2u);
    ASSERT_TRUE(p1.next_cursor);
    EXPECT_EQ(*p1.next_cursor, (DescribeTopicPartitionsCursor{"a", 2}));
    auto p2 = run(handle_describe_topic_partitions, request({}, 2, p1.next_cursor), 0);
    ASSERT_EQ(p2.topics.size(), 2u);
    EXPECT_EQ(p2.topics[0].partitions.at(0).partition_index, 2);
    EXPECT_EQ(p2.topics[1].name, std::optional<std::string>("b"));
    ASSERT_TRUE(p2.next_cursor);  // full before c: c from partition 0
    EXPECT_EQ(*p2.next_cursor, (DescribeTopicPartitionsCursor{"c", 0}));
    auto p3 = run(handle_describe_topic_partitions, request({}, 2, p2.next_cursor), 0);
    ASSERT_EQ(p3.topics.size(), 1u);
    EXPECT_EQ(p3.topics[0].name, std::optional<std::string>("c"));
    EXPECT_FALSE(p3.next_cursor);
}

TEST_F(DescribeTopicPartitionsTest, ACursorOutsideTheNamedTopicsIsInvalid) {
    create_topic("a", 1);
    auto resp = run(handle_describe_topic_partitions,
                    request({"a"}, 10, DescribeTopicPartitionsCursor{"z", 0}), 0);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::invalid_request);
}

TEST_F(DescribeTopicPartitionsTest, ACursorWithANegativePartitionIsInvalid) {
    create_topic("a", 1);
    auto resp = run(handle_describe_topic_partitions,
                    request({"a"}, 10, DescribeTopicPartitionsCursor{"a", -1}), 0);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::invalid_request);
    EXPECT_TRUE(resp.topics[0].partitions.empty());
}

// Kafka pages at least one partition whatever the limit (max(min(limit, 2000), 1)).
TEST_F(DescribeTopicPartitionsTest, ALimitBelowOneStillAnswersOnePartition) {
    create_topic("a", 2);
    auto resp = run(handle_describe_topic_partitions, request({"a"}, 0), 0);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].partitions.size(), 1u);
    ASSERT_TRUE(resp.next_cursor);
    EXPECT_EQ(*resp.next_cursor, (DescribeTopicPartitionsCursor{"a", 1}));
}

TEST_F(DescribeTopicPartitionsTest, EveryTopicIncludesTheInternalOnes) {
    create_topic("a", 1);
    auto resp = run(handle_describe_topic_partitions, request({}, 2000), 0);
    std::vector<std::string> names;
    for (const auto& t : resp.topics)
        names.push_back(t.name.value_or(""));
    EXPECT_EQ(names, (std::vector<std::string>{"__consumer_offsets", "__transaction_state", "a"}));
    EXPECT_TRUE(resp.topics[0].is_internal);
    EXPECT_TRUE(resp.topics[1].is_internal);
    EXPECT_FALSE(resp.topics[2].is_internal);
}

// KIP-966: a single broker's partition has its one replica in the ISR, so no eligible leader
// replicas and no last known ELR: empty arrays, as Kafka answers with ELR enabled or not (null
// would say "unknown"). Authorized operations without an authorizer: every topic operation.
TEST_F(DescribeTopicPartitionsTest, ElrFieldsAreEmptyAndOperationsAreAnswered) {
    create_topic("a", 1);
    auto resp = run(handle_describe_topic_partitions, request({"a", "bad name"}, 10), 0);
    protocol::OutBuffer out;
    protocol::encode_message(resp, 0, out);
    auto decoded =
        protocol::decode_message<protocol::DescribeTopicPartitionsResponse>(out.bytes(), 0);
    ASSERT_TRUE(decoded);
    ASSERT_EQ(decoded->topics.size(), 2u);
    const auto& p = decoded->topics[0].partitions.at(0);
    ASSERT_TRUE(p.eligible_leader_replicas);
    EXPECT_TRUE(p.eligible_leader_replicas->empty());
    ASSERT_TRUE(p.last_known_elr);
    EXPECT_TRUE(p.last_known_elr->empty());
    constexpr int32_t kAllTopicOps =
        (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);
    EXPECT_EQ(decoded->topics[0].topic_authorized_operations, kAllTopicOps);
    // An invalid name is INVALID_TOPIC_EXCEPTION, as Kafka's metadata cache answers it.
    EXPECT_EQ(decoded->topics[1].name, std::optional<std::string>("bad name"));
    EXPECT_EQ(decoded->topics[1].error_code, ErrorCode::invalid_topic_exception);
}

}  // namespace
}  // namespace skiff::broker::test
