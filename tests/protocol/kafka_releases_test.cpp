// The per-release ApiVersions tables (protocol/kafka_releases_data.inc, generated from Kafka's
// sources by tools/kafka-releases/derive_api_versions.py) and what skiff advertises when it
// emulates a release. Each fact below was checked against the release's sources (and against
// kafka-python's captured broker tables; see tools/kafka-releases/README.md).
#include "protocol/kafka_releases.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "protocol/api_table.h"

namespace skiff::protocol {
namespace {

constexpr int16_t kProduce = 0;
constexpr int16_t kFetch = 1;
constexpr int16_t kMetadata = 3;
constexpr int16_t kLeaderAndIsr = 4;
constexpr int16_t kDescribeCluster = 60;
constexpr int16_t kConsumerGroupHeartbeat = 68;
constexpr int16_t kGetTelemetrySubscriptions = 71;
constexpr int16_t kDescribeTopicPartitions = 75;
constexpr int16_t kShareGroupHeartbeat = 76;

std::optional<ReleaseApi> api_of(std::string_view version, int16_t key) {
    const KafkaRelease* release = find_kafka_release(version);
    if (release == nullptr)
        return std::nullopt;
    for (const ReleaseApi& api : release->apis)
        if (api.api_key == key)
            return api;
    return std::nullopt;
}

void expect_range(std::string_view version, int16_t key, int16_t min, int16_t max) {
    const std::optional<ReleaseApi> api = api_of(version, key);
    ASSERT_TRUE(api.has_value()) << version << " key " << key;
    EXPECT_EQ(api->min_version, min) << version << " key " << key;
    EXPECT_EQ(api->max_version, max) << version << " key " << key;
}

TEST(KafkaReleases, EveryMinorReleaseFrom20To41OldestFirst) {
    const std::vector<std::string> expected{"2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6",
                                            "2.7", "2.8", "3.0", "3.1", "3.2", "3.3", "3.4",
                                            "3.5", "3.6", "3.7", "3.8", "3.9", "4.0", "4.1"};
    std::vector<std::string> got;
    for (const KafkaRelease& release : kafka_releases()) {
        got.emplace_back(release.version);
        EXPECT_FALSE(release.apis.empty()) << release.version;
        for (size_t i = 1; i < release.apis.size(); ++i)
            EXPECT_LT(release.apis[i - 1].api_key, release.apis[i].api_key) << release.version;
    }
    EXPECT_EQ(got, expected);
}

TEST(KafkaReleases, FindsAMinorReleaseWithOrWithoutItsPatch) {
    const KafkaRelease* r28 = find_kafka_release("2.8");
    ASSERT_NE(r28, nullptr);
    EXPECT_EQ(r28->version, "2.8");
    EXPECT_EQ(find_kafka_release("2.8.0"), r28);
    EXPECT_EQ(find_kafka_release("2.8.1"), r28);
    EXPECT_EQ(find_kafka_release("2.8.2"), r28);
    ASSERT_NE(find_kafka_release("4.1.0"), nullptr);
    EXPECT_EQ(find_kafka_release("4.1.0")->version, "4.1");
}

TEST(KafkaReleases, UnknownOrMalformedVersionsAreNull) {
    for (std::string_view v : {"1.1", "9.9", "abc", "", "2", "2.", "2.8.", "2.8.x", "2.8.1.1",
                               "v2.8", " 2.8", "2.8 ", "3.10", "-2.8", "2.80"})
        EXPECT_EQ(find_kafka_release(v), nullptr) << '"' << v << '"';
}

TEST(KafkaReleases, Kafka20HasNeitherDescribeClusterNorConsumerGroupHeartbeat) {
    EXPECT_FALSE(api_of("2.0", kDescribeCluster).has_value());
    EXPECT_FALSE(api_of("2.0", kConsumerGroupHeartbeat).has_value());
    expect_range("2.0", kProduce, 0, 6);
    expect_range("2.0", kFetch, 0, 8);
    // ZooKeeper brokers advertise the inter-broker APIs too.
    expect_range("2.0", kLeaderAndIsr, 0, 1);
}

TEST(KafkaReleases, Kafka28MetadataAndFetch) {
    expect_range("2.8", kMetadata, 0, 11);
    expect_range("2.8", kFetch, 0, 12);
    expect_range("2.8", kDescribeCluster, 0, 0);
}

TEST(KafkaReleases, Kafka39ZooKeeperBrokerAdvertisesConsumerGroupHeartbeatV0) {
    // 3.9's ConsumerGroupHeartbeatRequest.json: listeners zkBroker and broker, validVersions "0",
    // not marked unstable, and ApiVersionsResponse.filterApis does not skip it; a ZooKeeper broker
    // advertises it (and answers it with UNSUPPORTED_VERSION from the old group coordinator).
    expect_range("3.9", kConsumerGroupHeartbeat, 0, 0);
    expect_range("3.9", kFetch, 0, 17);
    // KRaft-only ("broker" listener) and run-time-gated APIs are not in a ZooKeeper broker's table.
    EXPECT_FALSE(api_of("3.9", kDescribeTopicPartitions).has_value());
    EXPECT_FALSE(api_of("3.9", kGetTelemetrySubscriptions).has_value());
}

TEST(KafkaReleases, Kafka40KraftBrokerAfterKip896) {
    // KIP-896 raised minimums, but Produce keeps advertising 0 (KAFKA-18659, for librdkafka).
    expect_range("4.0", kProduce, 0, 12);
    expect_range("4.0", kFetch, 4, 17);
    expect_range("4.0", kMetadata, 0, 13);
    expect_range("4.0", kConsumerGroupHeartbeat, 0, 1);
    expect_range("4.0", kDescribeTopicPartitions, 0, 0);
    EXPECT_FALSE(api_of("4.0", kLeaderAndIsr).has_value());         // no ZooKeeper any more
    EXPECT_FALSE(api_of("4.0", kShareGroupHeartbeat).has_value());  // unstable in 4.0
}

TEST(KafkaReleases, Kafka41) {
    expect_range("4.1", kProduce, 0, 13);
    expect_range("4.1", kFetch, 4, 18);
    expect_range("4.1", kShareGroupHeartbeat, 1, 1);
}

TEST(KafkaReleases, EmulationNeverAdvertisesWhatSkiffDoesNotServe) {
    for (const KafkaRelease& release : kafka_releases()) {
        const EmulatedApis emulated = emulate(release);
        for (const ReleaseApi& api : emulated.advertised) {
            const ApiSupport* served = find_api(api.api_key);
            ASSERT_NE(served, nullptr) << release.version << " key " << api.api_key;
            EXPECT_GE(api.min_version, served->min_version) << release.version;
            EXPECT_LE(api.max_version, served->max_version) << release.version;
            EXPECT_LE(api.min_version, api.max_version) << release.version;
            const std::optional<ReleaseApi> theirs = api_of(release.version, api.api_key);
            ASSERT_TRUE(theirs.has_value());
            EXPECT_GE(api.min_version, theirs->min_version) << release.version;
            EXPECT_LE(api.max_version, theirs->max_version) << release.version;
        }
        for (const ReleaseApi& api : emulated.release_only)
            EXPECT_EQ(find_api(api.api_key), nullptr) << release.version << " key " << api.api_key;
        // Every API of the release is in exactly one of the two lists, unless the ranges do not
        // overlap.
        EXPECT_LE(emulated.advertised.size() + emulated.release_only.size(), release.apis.size());
    }
}

TEST(KafkaReleases, EmulatingIntersectsRangesAndListsWhatSkiffCannotAnswer) {
    const EmulatedApis e28 = emulate(*find_kafka_release("2.8"));
    auto find = [](const std::vector<ReleaseApi>& apis, int16_t key) -> const ReleaseApi* {
        for (const ReleaseApi& api : apis)
            if (api.api_key == key)
                return &api;
        return nullptr;
    };
    const ReleaseApi* fetch = find(e28.advertised, kFetch);
    ASSERT_NE(fetch, nullptr);
    EXPECT_EQ(fetch->min_version, 0);
    EXPECT_EQ(fetch->max_version, 12);
    // LeaderAndIsr is inter-broker: 2.8 advertises it, skiff does not serve it.
    EXPECT_EQ(find(e28.advertised, kLeaderAndIsr), nullptr);
    ASSERT_NE(find(e28.release_only, kLeaderAndIsr), nullptr);

    const EmulatedApis e40 = emulate(*find_kafka_release("4.0"));
    const ReleaseApi* produce = find(e40.advertised, kProduce);
    ASSERT_NE(produce, nullptr);
    EXPECT_EQ(produce->min_version, 0);
    EXPECT_EQ(produce->max_version, 12);
    const ReleaseApi* fetch40 = find(e40.advertised, kFetch);
    ASSERT_NE(fetch40, nullptr);
    EXPECT_EQ(fetch40->min_version, 4);
    EXPECT_EQ(fetch40->max_version, 17);
}

}  // namespace
}  // namespace skiff::protocol
