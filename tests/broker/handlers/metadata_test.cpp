// Metadata: this broker as the only broker, leader and replica of every partition; all topics
// (the internal one only by name); named topics; auto-creation on and off (broker setting and the
// v4+ request flag); invalid names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "broker/topics/topic_ids.h"
#include "handler_fixture.h"
#include "protocol/metadata.h"

namespace skiff::broker::test {
namespace {

using protocol::MetadataRequest;
using protocol::MetadataResponse;

constexpr int16_t kLatestMetadata = 12;

MetadataRequest named(std::vector<std::string> names, bool allow_auto_create = true) {
    MetadataRequest req;
    req.topics.emplace();
    for (auto& n : names) {
        protocol::MetadataRequestTopic t;
        t.name = std::move(n);
        req.topics->push_back(std::move(t));
    }
    req.allow_auto_topic_creation = allow_auto_create;
    return req;
}

std::vector<std::string> names_of(const MetadataResponse& resp) {
    std::vector<std::string> out;
    for (const auto& t : resp.topics)
        out.push_back(t.name.value_or("<null>"));
    return out;
}

using MetadataTest = HandlerTest;

TEST_F(MetadataTest, AllTopicsWithThisBrokerLeadingEveryPartition) {
    create_topic("b", 2);
    create_topic("a", 1);
    auto resp = run(handle_metadata, MetadataRequest{.topics = std::nullopt}, kLatestMetadata);
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].node_id, 1);
    EXPECT_EQ(resp.brokers[0].host, "127.0.0.1");
    EXPECT_EQ(resp.brokers[0].port, 9092);
    EXPECT_EQ(resp.cluster_id, "handler-test-cluster");
    EXPECT_EQ(resp.controller_id, 1);
    // Sorted by name; the internal offsets topic is not listed.
    ASSERT_EQ(names_of(resp), (std::vector<std::string>{"a", "b"}));
    const auto& b = resp.topics[1];
    EXPECT_EQ(b.error_code, ErrorCode::none);
    EXPECT_FALSE(b.is_internal);
    ASSERT_EQ(b.partitions.size(), 2u);
    for (int32_t i = 0; i < 2; ++i) {
        const auto& p = b.partitions[static_cast<size_t>(i)];
        EXPECT_EQ(p.error_code, ErrorCode::none);
        EXPECT_EQ(p.partition_index, i);
        EXPECT_EQ(p.leader_id, 1);
        EXPECT_EQ(p.leader_epoch, 0);
        EXPECT_EQ(p.replica_nodes, std::vector<int32_t>{1});
        EXPECT_EQ(p.isr_nodes, std::vector<int32_t>{1});
        EXPECT_TRUE(p.offline_replicas.empty());
    }
}

TEST_F(MetadataTest, AdvertisesTheConfiguredListener) {
    config.node_id = 7;
    config.advertised_listeners = {config::Listener{"PLAINTEXT", "broker.example", 19092}};
    auto resp = run(handle_metadata, MetadataRequest{.topics = std::nullopt}, kLatestMetadata);
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].node_id, 7);
    EXPECT_EQ(resp.brokers[0].host, "broker.example");
    EXPECT_EQ(resp.brokers[0].port, 19092);
    EXPECT_EQ(resp.controller_id, 7);
}

TEST_F(MetadataTest, AdvertisesTheListenerTheClientCameThrough) {
    config.listeners = {config::Listener{"A", "0.0.0.0", 9092},
                        config::Listener{"B", "127.0.0.1", 9093}};
    config.advertised_listeners = {config::Listener{"B", "b.example", 19093}};
    listener = "B";
    auto resp = run(handle_metadata, MetadataRequest{.topics = std::nullopt}, kLatestMetadata);
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].host, "b.example");
    EXPECT_EQ(resp.brokers[0].port, 19093);
    // A is not in advertised.listeners: its own address, the wildcard given as loopback.
    listener = "A";
    resp = run(handle_metadata, MetadataRequest{.topics = std::nullopt}, kLatestMetadata);
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].host, "127.0.0.1");
    EXPECT_EQ(resp.brokers[0].port, 9092);
}

TEST_F(MetadataTest, EmptyListMeansAllTopicsAtV0AndNoneFromV1) {
    create_topic("a");
    EXPECT_EQ(names_of(run(handle_metadata, named({}), 0)), std::vector<std::string>{"a"});
    EXPECT_TRUE(run(handle_metadata, named({}), 1).topics.empty());
    EXPECT_TRUE(run(handle_metadata, named({}), kLatestMetadata).topics.empty());
}

TEST_F(MetadataTest, NamedTopicsInRequestOrderAndTheInternalTopicByName) {
    create_topic("a", 3);
    create_topic("b");
    auto resp = run(handle_metadata, named({"b", "__consumer_offsets", "a"}), kLatestMetadata);
    ASSERT_EQ(names_of(resp), (std::vector<std::string>{"b", "__consumer_offsets", "a"}));
    EXPECT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_TRUE(resp.topics[1].is_internal);
    EXPECT_EQ(resp.topics[1].error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics[2].partitions.size(), 3u);
}

TEST_F(MetadataTest, AutoCreatesAnUnknownTopicWithTheDefaultPartitionCount) {
    config.num_partitions = 3;
    auto resp = run(handle_metadata, named({"fresh"}), kLatestMetadata);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics[0].partitions.size(), 3u);
    EXPECT_EQ(broker().topics().partition_count("fresh"), 3);
    EXPECT_NE(broker().logs().get({"fresh", 2}), nullptr);
}

TEST_F(MetadataTest, AFailedAutoCreationIsRolledBackAndAnsweredLeaderNotAvailable) {
    config.num_partitions = 4;
    broker();
    const std::filesystem::path dir(config.log_dir);
    std::ofstream(dir / "fresh-3") << "in the way";  // partition 3 cannot be created
    for (int i = 0; i < 3; ++i) {  // the second and third are answered from the back-off
        auto resp = run(handle_metadata, named({"fresh"}), kLatestMetadata);
        ASSERT_EQ(resp.topics.size(), 1u);
        EXPECT_EQ(resp.topics[0].error_code, ErrorCode::leader_not_available);
        EXPECT_TRUE(resp.topics[0].partitions.empty());
        EXPECT_FALSE(broker().topics().partition_count("fresh"));
        for (int p = 0; p < 3; ++p)
            EXPECT_FALSE(std::filesystem::exists(dir / ("fresh-" + std::to_string(p))));
    }
    // Another topic is created as usual meanwhile.
    auto other = run(handle_metadata, named({"other"}), kLatestMetadata);
    EXPECT_EQ(other.topics[0].error_code, ErrorCode::none);
    EXPECT_EQ(broker().topics().partition_count("other"), 4);
}

TEST_F(MetadataTest, NoAutoCreationWhenTheBrokerDisablesIt) {
    config.auto_create_topics_enable = false;
    auto resp = run(handle_metadata, named({"fresh"}), kLatestMetadata);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_TRUE(resp.topics[0].partitions.empty());
    EXPECT_FALSE(broker().topics().partition_count("fresh"));
}

TEST_F(MetadataTest, NoAutoCreationWhenTheV4RequestFlagIsOff) {
    auto resp = run(handle_metadata, named({"fresh"}, /*allow_auto_create=*/false), 4);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_FALSE(broker().topics().partition_count("fresh"));
    // Before v4 there is no flag (it is not even sent): the broker setting decides.
    run(handle_metadata, named({"fresh"}, /*allow_auto_create=*/false), 3);
    EXPECT_EQ(broker().topics().partition_count("fresh"), 1);
}

TEST_F(MetadataTest, InvalidTopicNameIsInvalidTopicException) {
    auto resp =
        run(handle_metadata, named({"bad name", "..", std::string(250, 'x')}), kLatestMetadata);
    ASSERT_EQ(resp.topics.size(), 3u);
    for (const auto& t : resp.topics)
        EXPECT_EQ(t.error_code, ErrorCode::invalid_topic_exception) << t.name.value_or("");
    EXPECT_EQ(broker().topics().list().size(), 2u);  // only the internal topics
}

TEST_F(MetadataTest, InvalidTopicNameWithoutAutoCreation) {
    config.auto_create_topics_enable = false;
    auto resp = run(handle_metadata, named({"bad name", "fine"}), kLatestMetadata);
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::invalid_topic_exception);
    EXPECT_EQ(resp.topics[1].error_code, ErrorCode::unknown_topic_or_partition);
}

// Kafka's KafkaApis: v10 and v11 may not look topics up by id (nor leave the name null).
TEST_F(MetadataTest, LookupByTopicIdBeforeV12IsInvalidRequest) {
    create_topic("a", 1);
    for (int16_t v : {10, 11}) {
        MetadataRequest req;
        req.topics.emplace();
        protocol::MetadataRequestTopic by_id;
        by_id.name = std::nullopt;
        by_id.topic_id = broker::to_uuid(*broker().topics().topic_id("a"));
        req.topics->push_back(by_id);
        auto resp = run(handle_metadata, req, v);
        ASSERT_EQ(resp.topics.size(), 1u);
        EXPECT_EQ(resp.topics[0].error_code, ErrorCode::invalid_request) << v;
    }
}

TEST_F(MetadataTest, ReturnsTopicIdsAndLooksThemUpFromV12) {
    create_topic("a", 2);
    create_topic("b", 1);
    auto id_a = broker().topics().topic_id("a");
    ASSERT_TRUE(id_a);
    EXPECT_FALSE(id_a->is_zero());
    EXPECT_NE(*id_a, *broker().topics().topic_id("b"));
    auto resp = run(handle_metadata, named({"a"}), 10);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].topic_id, broker::to_uuid(*id_a));

    MetadataRequest req;
    req.topics.emplace();
    protocol::MetadataRequestTopic by_id;
    by_id.name = std::nullopt;
    by_id.topic_id = broker::to_uuid(*id_a);
    req.topics->push_back(by_id);
    protocol::MetadataRequestTopic unknown;
    unknown.name = std::nullopt;
    unknown.topic_id.bytes[0] = 0x5a;
    req.topics->push_back(unknown);
    resp = run(handle_metadata, req, 12);
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics[0].name, std::optional<std::string>("a"));
    EXPECT_EQ(resp.topics[0].partitions.size(), 2u);
    EXPECT_EQ(resp.topics[1].error_code, ErrorCode::unknown_topic_id);
    EXPECT_FALSE(resp.topics[1].name.has_value());
    EXPECT_EQ(resp.topics[1].topic_id, unknown.topic_id);
}

TEST_F(MetadataTest, NeitherNameNorIdIsUnknownTopicId) {
    MetadataRequest req;
    req.topics.emplace();
    protocol::MetadataRequestTopic neither;
    neither.name = std::nullopt;
    req.topics->push_back(neither);
    auto resp = run(handle_metadata, req, 12);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::unknown_topic_id);
}

TEST_F(MetadataTest, EverySupportedVersion) {
    create_topic("a", 2);
    for (int16_t v = 0; v <= kLatestMetadata; ++v) {
        auto resp = run(handle_metadata, named({"a"}), v);
        ASSERT_EQ(resp.topics.size(), 1u) << "v" << v;
        EXPECT_EQ(resp.topics[0].error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(resp.topics[0].partitions.size(), 2u) << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
