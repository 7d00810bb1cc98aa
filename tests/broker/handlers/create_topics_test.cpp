// CreateTopics: success (explicit and default partition counts, with overrides), already
// exists, invalid partitions / replication factor / name / config, manual assignments (this
// broker only), validate_only,
// and a name listed twice.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "handler_fixture.h"
#include "protocol/create_topics.h"

namespace skiff::broker::test {
namespace {

using protocol::CreatableTopic;
using protocol::CreatableTopicResult;
using protocol::CreateTopicsRequest;

constexpr int16_t kLatestCreateTopics = 4;

CreatableTopic topic(std::string name, int32_t partitions = 1, int16_t replication_factor = 1) {
    CreatableTopic t;
    t.name = std::move(name);
    t.num_partitions = partitions;
    t.replication_factor = replication_factor;
    return t;
}

class CreateTopicsTest : public HandlerTest {
  protected:
    std::vector<CreatableTopicResult> create(std::vector<CreatableTopic> topics,
                                             bool validate_only = false,
                                             int16_t version = kLatestCreateTopics) {
        CreateTopicsRequest req;
        req.topics = std::move(topics);
        req.validate_only = validate_only;
        return run(handle_create_topics, req, version).topics;
    }
    CreatableTopicResult create_one(CreatableTopic t, bool validate_only = false) {
        auto results = create({std::move(t)}, validate_only);
        if (results.size() != 1)
            throw std::runtime_error("expected one result");
        return results[0];
    }
};

TEST_F(CreateTopicsTest, CreatesTheTopicWithItsPartitions) {
    auto r = create_one(topic("t", 3));
    EXPECT_EQ(r.name, "t");
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_FALSE(r.error_message.has_value());
    EXPECT_EQ(broker().topics().partition_count("t"), 3);
    EXPECT_NE(broker().logs().get({"t", 2}), nullptr);
}

TEST_F(CreateTopicsTest, MinusOneMeansTheBrokerDefaults) {
    config.num_partitions = 2;
    auto r = create_one(topic("t", -1, -1));
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(broker().topics().partition_count("t"), 2);
}

TEST_F(CreateTopicsTest, AlreadyExists) {
    create_topic("t", 2);
    auto r = create_one(topic("t", 5));
    EXPECT_EQ(r.error_code, ErrorCode::topic_already_exists);
    EXPECT_TRUE(r.error_message.has_value());
    EXPECT_EQ(broker().topics().partition_count("t"), 2);  // untouched
    EXPECT_EQ(create_one(topic("__consumer_offsets")).error_code, ErrorCode::topic_already_exists);
}

TEST_F(CreateTopicsTest, InvalidPartitionCount) {
    for (int32_t n : {0, -2}) {
        auto r = create_one(topic("t", n));
        EXPECT_EQ(r.error_code, ErrorCode::invalid_partitions) << n;
    }
    EXPECT_FALSE(broker().topics().partition_count("t"));
}

TEST_F(CreateTopicsTest, OnlyReplicationFactorOneOnASingleBroker) {
    EXPECT_EQ(create_one(topic("t", 1, 3)).error_code, ErrorCode::invalid_replication_factor);
    EXPECT_EQ(create_one(topic("t", 1, 0)).error_code, ErrorCode::invalid_replication_factor);
    EXPECT_FALSE(broker().topics().partition_count("t"));
}

TEST_F(CreateTopicsTest, ManualAssignmentNamingThisBrokerIsAccepted) {
    auto t = topic("t", -1, -1);
    t.assignments.push_back({1, {config.node_id}});
    t.assignments.push_back({0, {config.node_id}});
    auto r = create_one(t);
    EXPECT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(broker().topics().partition_count("t"), 2);
}

TEST_F(CreateTopicsTest, ManualAssignmentNamingOtherBrokersIsRefused) {
    const int32_t self = config.node_id;
    const std::vector<std::vector<protocol::CreatableReplicaAssignment>> bad = {
        {{0, {self + 1}}},           // a broker that does not exist
        {{0, {self, self}}},         // the same broker twice
        {{0, {}}},                   // no replica
        {{0, {self}}, {2, {self}}},  // a gap in the partition numbers
        {{0, {self}}, {0, {self}}},  // one partition twice
        {{1, {self}}},               // not starting at 0
    };
    for (const auto& assignment : bad) {
        auto t = topic("t", -1, -1);
        t.assignments = assignment;
        auto r = create_one(t);
        EXPECT_EQ(r.error_code, ErrorCode::invalid_replica_assignment) << assignment.size();
        EXPECT_TRUE(r.error_message.has_value());
    }
    EXPECT_FALSE(broker().topics().partition_count("t"));
}

TEST_F(CreateTopicsTest, AssignmentAndPartitionCountTogetherAreRefused) {
    auto t = topic("t", 1, -1);
    t.assignments.push_back({0, {config.node_id}});
    EXPECT_EQ(create_one(t).error_code, ErrorCode::invalid_request);
    EXPECT_FALSE(broker().topics().partition_count("t"));
}

TEST_F(CreateTopicsTest, InvalidName) {
    EXPECT_EQ(create_one(topic("a/b")).error_code, ErrorCode::invalid_topic_exception);
    EXPECT_EQ(create_one(topic("")).error_code, ErrorCode::invalid_topic_exception);
}

TEST_F(CreateTopicsTest, ConfigsAreValidatedAndStored) {
    auto good = topic("t");
    good.configs.push_back({"retention.ms", "1000"});
    EXPECT_EQ(create_one(good).error_code, ErrorCode::none);
    EXPECT_EQ(broker().topics().overrides("t"), (TopicOverrides{{"retention.ms", "1000"}}));

    auto unknown = topic("u");
    unknown.configs.push_back({"no.such.config", "1"});
    EXPECT_EQ(create_one(unknown).error_code, ErrorCode::invalid_config);
    auto bad_value = topic("u");
    bad_value.configs.push_back({"retention.ms", "soon"});
    EXPECT_EQ(create_one(bad_value).error_code, ErrorCode::invalid_config);
    auto null_value = topic("u");
    null_value.configs.push_back({"retention.ms", std::nullopt});
    EXPECT_EQ(create_one(null_value).error_code, ErrorCode::invalid_config);
    EXPECT_FALSE(broker().topics().partition_count("u"));
}

TEST_F(CreateTopicsTest, ValidateOnlyChecksAndCreatesNothing) {
    EXPECT_EQ(create_one(topic("t", 4), /*validate_only=*/true).error_code, ErrorCode::none);
    EXPECT_FALSE(broker().topics().partition_count("t"));
    EXPECT_EQ(broker().logs().get({"t", 0}), nullptr);
    EXPECT_EQ(create_one(topic("t", 0), true).error_code, ErrorCode::invalid_partitions);
    create_topic("exists");
    EXPECT_EQ(create_one(topic("exists"), true).error_code, ErrorCode::topic_already_exists);
}

TEST_F(CreateTopicsTest, ANameListedTwiceIsRefusedForEveryOccurrence) {
    auto results = create({topic("d"), topic("ok"), topic("d")});
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].error_code, ErrorCode::invalid_request);
    EXPECT_EQ(results[1].error_code, ErrorCode::none);
    EXPECT_EQ(results[2].error_code, ErrorCode::invalid_request);
    EXPECT_FALSE(broker().topics().partition_count("d"));
    EXPECT_TRUE(broker().topics().partition_count("ok"));
}

TEST_F(CreateTopicsTest, EverySupportedVersion) {
    for (int16_t v = 0; v <= kLatestCreateTopics; ++v) {
        const std::string name = "t" + std::to_string(v);
        auto results = create({topic(name, 2)}, false, v);
        ASSERT_EQ(results.size(), 1u);
        EXPECT_EQ(results[0].error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(broker().topics().partition_count(name), 2) << "v" << v;
    }
}

TEST_F(CreateTopicsTest, AStorageFailureIsRolledBackAndAnswersKafkaStorageError) {
    broker();  // the log dir is loaded before the obstacle is put in
    // A regular file where partition 2's directory would go: creating it fails.
    std::ofstream(std::filesystem::path(config.log_dir) / "t-2") << "in the way";
    auto r = create_one(topic("t", 5));
    EXPECT_EQ(r.error_code, ErrorCode::kafka_storage_error);
    ASSERT_TRUE(r.error_message.has_value());
    EXPECT_NE(r.error_message->find("partition 2 of topic t"), std::string::npos)
        << *r.error_message;
    EXPECT_FALSE(broker().topics().partition_count("t"));
    EXPECT_EQ(broker().logs().get({"t", 0}), nullptr);
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(config.log_dir) / "t-0"));
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(config.log_dir) / "t-1"));
}

}  // namespace
}  // namespace skiff::broker::test
