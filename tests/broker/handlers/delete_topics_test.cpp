// DeleteTopics: the topic and its logs are gone at once and the name can be reused; unknown
// topics; the internal topic is refused.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/delete_topics.h"
#include "protocol/produce.h"

namespace skiff::broker::test {
namespace {

using protocol::DeleteTopicsRequest;

constexpr int16_t kLatestDeleteTopics = 3;

class DeleteTopicsTest : public HandlerTest {
  protected:
    std::vector<protocol::DeletableTopicResult> remove(std::vector<std::string> names,
                                                       int16_t version = kLatestDeleteTopics) {
        DeleteTopicsRequest req;
        req.topic_names = std::move(names);
        req.timeout_ms = 1000;
        return run(handle_delete_topics, req, version).responses;
    }
};

TEST_F(DeleteTopicsTest, DeletesTheTopicAndItsLogs) {
    create_topic("t", 2);
    create_topic("keep");
    auto results = remove({"t"});
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].name, "t");
    EXPECT_EQ(results[0].error_code, ErrorCode::none);
    EXPECT_FALSE(broker().topics().partition_count("t"));
    EXPECT_EQ(broker().logs().get({"t", 0}), nullptr);
    EXPECT_EQ(broker().logs().get({"t", 1}), nullptr);
    EXPECT_TRUE(broker().topics().partition_count("keep"));
}

TEST_F(DeleteTopicsTest, ARecreatedTopicStartsEmpty) {
    create_topic("t");
    auto batch = make_batch(3);
    protocol::ProduceRequest produce;
    produce.acks = -1;
    produce.topic_data.push_back({"t", {}, {{0, std::span<const std::byte>(batch)}}});
    run(handle_produce, produce, 9);
    ASSERT_EQ(broker().logs().get({"t", 0})->high_watermark(), 3);

    ASSERT_EQ(remove({"t"})[0].error_code, ErrorCode::none);
    create_topic("t");
    EXPECT_EQ(broker().logs().get({"t", 0})->high_watermark(), 0);
}

TEST_F(DeleteTopicsTest, UnknownTopic) {
    create_topic("t");
    auto results = remove({"missing", "t"});
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(results[1].error_code, ErrorCode::none);
    // Deleting twice: the second time it is unknown.
    EXPECT_EQ(remove({"t"})[0].error_code, ErrorCode::unknown_topic_or_partition);
}

TEST_F(DeleteTopicsTest, TheInternalTopicIsRefused) {
    EXPECT_EQ(remove({"__consumer_offsets"})[0].error_code, ErrorCode::invalid_request);
    EXPECT_TRUE(broker().topics().partition_count("__consumer_offsets"));
    EXPECT_NE(broker().logs().get({"__consumer_offsets", 0}), nullptr);
}

TEST_F(DeleteTopicsTest, EverySupportedVersion) {
    for (int16_t v = 0; v <= kLatestDeleteTopics; ++v) {
        create_topic("t");
        EXPECT_EQ(remove({"t"}, v)[0].error_code, ErrorCode::none) << "v" << v;
        EXPECT_FALSE(broker().topics().partition_count("t")) << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
