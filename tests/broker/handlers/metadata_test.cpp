// Metadata: this broker as the only broker, leader and replica of every partition; all topics
// (the internal ones with is_internal, as Kafka lists them); named topics; authorized operations
// (KIP-430) without an authorizer; the v13 top-level error; auto-creation on and off (broker
// setting and the v4+ request flag); invalid names.
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

// The response as a client reads it off the wire.
MetadataResponse round_trip(const MetadataResponse& resp, int16_t version) {
    protocol::OutBuffer out;
    protocol::encode_message(resp, version, out);
    auto decoded = protocol::decode_message<MetadataResponse>(out.bytes(), version);
    EXPECT_TRUE(decoded.has_value());
    return decoded ? *decoded : MetadataResponse{};
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
    // Sorted by name, the broker's internal topics included, as Kafka lists them.
    ASSERT_EQ(names_of(resp),
              (std::vector<std::string>{"__consumer_offsets", "__transaction_state", "a", "b"}));
    EXPECT_TRUE(resp.topics[0].is_internal);
    EXPECT_TRUE(resp.topics[1].is_internal);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::none);
    EXPECT_FALSE(resp.topics[0].partitions.empty());
    EXPECT_FALSE(resp.topics[2].is_internal);
    const auto& b = resp.topics[3];
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
    EXPECT_EQ(names_of(run(handle_metadata, named({}), 0)),
              (std::vector<std::string>{"__consumer_offsets", "__transaction_state", "a"}));
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

// KIP-430 without an authorizer: every operation Kafka's ACLs know for the resource type, when
// asked; INT32_MIN when not (or before v8).
TEST_F(MetadataTest, AuthorizedOperationsWithoutAnAuthorizerAreEveryValidOne) {
    create_topic("a");
    // READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7, DESCRIBE 8, DESCRIBE_CONFIGS 10,
    // ALTER_CONFIGS 11: Kafka's 3576 for a topic.
    constexpr int32_t kAllTopicOps =
        (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);
    // CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11,
    // IDEMPOTENT_WRITE 12.
    constexpr int32_t kAllClusterOps =
        (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);
    MetadataRequest req = named({"a", "nope"}, /*allow_auto_create=*/false);
    req.include_topic_authorized_operations = true;
    req.include_cluster_authorized_operations = true;
    auto resp = run(handle_metadata, req, 10);
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].topic_authorized_operations, kAllTopicOps);
    // Unknown but describable: Kafka answers its operations too.
    EXPECT_EQ(resp.topics[1].error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(resp.topics[1].topic_authorized_operations, kAllTopicOps);
    EXPECT_EQ(resp.cluster_authorized_operations, kAllClusterOps);
    EXPECT_EQ(round_trip(resp, 10).cluster_authorized_operations, kAllClusterOps);

    // v11+ has no cluster field (DescribeCluster answers it).
    resp = run(handle_metadata, req, 12);
    EXPECT_EQ(resp.topics[0].topic_authorized_operations, kAllTopicOps);
    EXPECT_EQ(resp.cluster_authorized_operations, protocol::kAuthorizedOperationsOmitted);

    // Not asked, or all topics not asked: "not requested".
    resp = run(handle_metadata, named({"a"}), 12);
    EXPECT_EQ(resp.topics[0].topic_authorized_operations, protocol::kAuthorizedOperationsOmitted);
    MetadataRequest all{.topics = std::nullopt};
    all.include_topic_authorized_operations = true;
    resp = run(handle_metadata, all, 13);
    ASSERT_FALSE(resp.topics.empty());
    for (const auto& t : resp.topics)
        EXPECT_EQ(t.topic_authorized_operations, kAllTopicOps) << t.name.value_or("");
}

TEST_F(MetadataTest, Version13CarriesANoErrorTopLevelCode) {
    create_topic("a");
    auto resp = run(handle_metadata, named({"a"}), 13);
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    auto decoded = round_trip(resp, 13);
    EXPECT_EQ(decoded.error_code, ErrorCode::none);
    ASSERT_EQ(decoded.topics.size(), 1u);
    EXPECT_EQ(decoded.topics[0].name, "a");
}

}  // namespace
}  // namespace skiff::broker::test
