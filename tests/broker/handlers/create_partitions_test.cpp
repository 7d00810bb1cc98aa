// CreatePartitions: growing a topic, keeping or shrinking its count refused, unknown topics,
// validate_only, manual assignments and the internal topic.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/create_partitions.h"

namespace skiff::broker::test {
namespace {

using protocol::CreatePartitionsRequest;
using protocol::CreatePartitionsTopicResult;

constexpr int16_t kLatestCreatePartitions = 1;

class CreatePartitionsTest : public HandlerTest {
  protected:
    CreatePartitionsTopicResult grow(const std::string& topic, int32_t count,
                                     bool validate_only = false,
                                     int16_t version = kLatestCreatePartitions) {
        CreatePartitionsRequest req;
        req.topics.push_back({topic, count, std::nullopt});
        req.validate_only = validate_only;
        req.timeout_ms = 1000;
        auto resp = run(handle_create_partitions, req, version);
        if (resp.results.size() != 1)
            throw std::runtime_error("expected one result");
        EXPECT_EQ(resp.results[0].name, topic);
        return resp.results[0];
    }
};

TEST_F(CreatePartitionsTest, GrowsTheTopic) {
    create_topic("t", 1);
    auto r = grow("t", 3);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_FALSE(r.error_message.has_value());
    EXPECT_EQ(broker().topics().partition_count("t"), 3);
    EXPECT_NE(broker().logs().get({"t", 1}), nullptr);
    EXPECT_NE(broker().logs().get({"t", 2}), nullptr);
}

TEST_F(CreatePartitionsTest, SameOrSmallerCountIsInvalidPartitions) {
    create_topic("t", 3);
    for (int32_t n : {3, 2, 0}) {
        auto r = grow("t", n);
        EXPECT_EQ(r.error_code, ErrorCode::invalid_partitions) << n;
        EXPECT_TRUE(r.error_message.has_value());
    }
    EXPECT_EQ(broker().topics().partition_count("t"), 3);
}

TEST_F(CreatePartitionsTest, UnknownTopic) {
    EXPECT_EQ(grow("missing", 2).error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_FALSE(broker().topics().partition_count("missing"));
}

TEST_F(CreatePartitionsTest, ValidateOnlyChangesNothing) {
    create_topic("t", 1);
    EXPECT_EQ(grow("t", 4, /*validate_only=*/true).error_code, ErrorCode::none);
    EXPECT_EQ(broker().topics().partition_count("t"), 1);
    EXPECT_EQ(broker().logs().get({"t", 1}), nullptr);
    EXPECT_EQ(grow("t", 1, true).error_code, ErrorCode::invalid_partitions);
}

TEST_F(CreatePartitionsTest, ManualAssignmentNamingThisBrokerIsAccepted) {
    create_topic("t", 1);
    CreatePartitionsRequest req;
    req.topics.push_back({"t", 3,
                          std::vector<protocol::CreatePartitionsAssignment>{{{config.node_id}},
                                                                            {{config.node_id}}}});
    auto resp = run(handle_create_partitions, req, kLatestCreatePartitions);
    EXPECT_EQ(resp.results[0].error_code, ErrorCode::none);
    EXPECT_EQ(broker().topics().partition_count("t"), 3);
}

TEST_F(CreatePartitionsTest, ManualAssignmentNamingOtherBrokersOrTheWrongCountIsRefused) {
    create_topic("t", 1);
    const int32_t self = config.node_id;
    using Lists = std::vector<protocol::CreatePartitionsAssignment>;
    for (const Lists& assignment :
         {Lists{{{self + 1}}}, Lists{{{self, self}}}, Lists{{{self}}, {{self}}}, Lists{}}) {
        CreatePartitionsRequest req;
        req.topics.push_back({"t", 2, assignment});
        auto resp = run(handle_create_partitions, req, kLatestCreatePartitions);
        EXPECT_EQ(resp.results[0].error_code, ErrorCode::invalid_replica_assignment)
            << assignment.size();
    }
    EXPECT_EQ(broker().topics().partition_count("t"), 1);
}

TEST_F(CreatePartitionsTest, TheInternalTopicIsRefused) {
    EXPECT_EQ(grow("__consumer_offsets", 5).error_code, ErrorCode::invalid_request);
    EXPECT_EQ(broker().topics().partition_count("__consumer_offsets"), 1);
}

TEST_F(CreatePartitionsTest, EverySupportedVersion) {
    create_topic("t", 1);
    for (int16_t v = 0; v <= kLatestCreatePartitions; ++v)
        EXPECT_EQ(grow("t", 2 + v, false, v).error_code, ErrorCode::none) << "v" << v;
    EXPECT_EQ(broker().topics().partition_count("t"), 2 + kLatestCreatePartitions);
}

}  // namespace
}  // namespace skiff::broker::test
