// The console API's topic routes (docs/console-api.md, "Topics"): the list and one topic with
// the offsets and configs Kafka's APIs give, a partition's segments and index entries read from
// storage, and the writes (CreateTopics, DeleteTopics, CreatePartitions,
// IncrementalAlterConfigs) with Kafka's errors, malformed bodies refused before anything
// changes, the ACLs of the caller, and read-only mode.
#include <filesystem>

#include "tests/broker/console/console_topics_fixture.h"

namespace skiff::broker::test {
namespace {

using security::AclOperation;
using security::PatternType;
using security::ResourceType;

nlohmann::json find_named(const nlohmann::json& list, const std::string& key,
                          const std::string& name) {
    for (const auto& item : list)
        if (item[key] == name)
            return item;
    return nullptr;
}

bool topic_exists(Broker& broker, const std::string& topic) {
    return broker.logs().get({topic, 0}) != nullptr;
}

TEST_F(ConsoleTopicsTest, ListsTopicsWithSizesAndRecordCounts) {
    create_topic("orders", 2);
    produce("orders", 0, 3);
    produce("orders", 1, 4);
    auto r = get("/api/topics");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto orders = find_named(json_of(r)["topics"], "name", "orders");
    ASSERT_FALSE(orders.is_null()) << r.body;
    EXPECT_EQ(orders["partitions"], 2);
    EXPECT_EQ(orders["records"], 7);
    EXPECT_EQ(orders["size_bytes"].get<int64_t>(),
              broker().logs().get({"orders", 0})->size_bytes() +
                  broker().logs().get({"orders", 1})->size_bytes());
    EXPECT_EQ(orders["internal"], false);
}

// Version emulation (emulate.kafka.version) is for the Kafka listeners' clients: the console's
// own requests (Metadata v12, Fetch v12, ...) are newer than Kafka 2.0 serves, and must still
// be answered while skiff pretends to be it.
TEST_F(ConsoleTopicsTest, PagesStillWorkWhileAnOldKafkaIsEmulated) {
    create_topic("orders", 1);
    produce("orders", 0, 3);
    ASSERT_EQ(broker().emulation().set("2.0"), std::nullopt);
    auto r = get("/api/topics");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(find_named(json_of(r)["topics"], "name", "orders")["records"], 3) << r.body;
    r = get("/api/topics/orders/partitions/0/records?from=beginning");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r)["records"].size(), 3u) << r.body;
    broker().emulation().set("");
}

TEST_F(ConsoleTopicsTest, DescribesOneTopicsPartitionsAndConfigs) {
    create_topic("orders", 2, {{"retention.ms", "3600000"}});
    produce("orders", 1, 5);
    auto r = get("/api/topics/orders");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["name"], "orders");
    EXPECT_EQ(body["topic_id"].get<std::string>().size(), 22u);  // Kafka's base64url form
    ASSERT_EQ(body["partitions"].size(), 2u);
    const auto& p1 = body["partitions"][1];
    EXPECT_EQ(p1["partition"], 1);
    EXPECT_EQ(p1["leader"], broker().node_id());
    EXPECT_EQ(p1["log_start_offset"], 0);
    EXPECT_EQ(p1["log_end_offset"], 5);
    EXPECT_EQ(p1["high_watermark"], 5);
    EXPECT_EQ(p1["last_stable_offset"], 5);
    EXPECT_EQ(p1["segments"], 1);
    EXPECT_EQ(p1["size_bytes"], broker().logs().get({"orders", 1})->size_bytes());
    EXPECT_EQ(body["partitions"][0]["high_watermark"], 0);
    const auto retention = find_named(body["configs"], "name", "retention.ms");
    EXPECT_EQ(retention["value"], "3600000");
    EXPECT_EQ(retention["source"], "DYNAMIC_TOPIC_CONFIG");
    const auto cleanup = find_named(body["configs"], "name", "cleanup.policy");
    EXPECT_EQ(cleanup["value"], "delete");
    EXPECT_EQ(cleanup["source"], "DEFAULT_CONFIG");

    r = get("/api/topics/no-such-topic");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(json_of(r)["kafka_error"], "UNKNOWN_TOPIC_OR_PARTITION");
    EXPECT_FALSE(topic_exists(broker(), "no-such-topic"));  // never auto-created
}

TEST_F(ConsoleTopicsTest, SegmentsMatchTheFilesOnDisk) {
    // Small segments and an index entry for nearly every batch.
    create_topic("logs", 1, {{"segment.bytes", "4096"}, {"index.interval.bytes", "100"}});
    for (int i = 0; i < 12; ++i)
        produce("logs", 0, 2, 400);
    auto r = get("/api/topics/logs/partitions/0/segments");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["log_start_offset"], 0);
    EXPECT_EQ(body["log_end_offset"], 24);
    EXPECT_EQ(body["settings"]["segment.bytes"], 4096);
    const auto& segments = body["segments"];
    ASSERT_GE(segments.size(), 2u) << r.body;
    const auto dir = broker().logs().get({"logs", 0})->dir();
    int64_t expected_base = 0;
    for (size_t i = 0; i < segments.size(); ++i) {
        const auto& s = segments[i];
        EXPECT_EQ(s["base_offset"], expected_base);
        expected_base = s["next_offset"].get<int64_t>();
        EXPECT_EQ(s["active"], i + 1 == segments.size());
        const auto file = dir / s["file"].get<std::string>();
        EXPECT_EQ(s["size_bytes"].get<int64_t>(),
                  static_cast<int64_t>(std::filesystem::file_size(file)));
        EXPECT_EQ(s["first_timestamp"], 1733400000000);
        EXPECT_GE(s["max_timestamp"].get<int64_t>(), 1733400000000);
        auto index_file = file;
        index_file.replace_extension(".index");
        if (!s["active"].get<bool>()) {  // the active index is preallocated
            EXPECT_EQ(s["index"]["entries"].get<uint64_t>(),
                      std::filesystem::file_size(index_file) / 8);
            EXPECT_GT(s["index"]["entries"].get<int>(), 0);
        }
        const auto& shown = s["index"]["entries_shown"];
        EXPECT_EQ(shown.size(), s["index"]["entries"].get<size_t>());
        for (const auto& e : shown) {
            EXPECT_GE(e["offset"].get<int64_t>(), s["base_offset"].get<int64_t>());
            EXPECT_LT(e["position"].get<int64_t>(), s["size_bytes"].get<int64_t>());
        }
    }
    EXPECT_EQ(expected_base, 24);

    // index_limit bounds the entries shown, not the counts.
    r = get("/api/topics/logs/partitions/0/segments?index_limit=1");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto limited = json_of(r);  // kept: a range-for over a temporary's member dangles
    for (const auto& s : limited["segments"])
        EXPECT_LE(s["index"]["entries_shown"].size(), 1u);
    EXPECT_EQ(get("/api/topics/logs/partitions/0/segments?index_limit=-1").status, 400);
    EXPECT_EQ(get("/api/topics/logs/partitions/0/segments?index_limit=abc").status, 400);
    EXPECT_EQ(get("/api/topics/logs/partitions/1/segments").status, 404);
    EXPECT_EQ(get("/api/topics/logs/partitions/-1/segments").status, 400);
    EXPECT_EQ(get("/api/topics/logs/partitions/99999999999/segments").status, 400);
    EXPECT_EQ(get("/api/topics/logs/partitions/0x1/segments").status, 400);
    EXPECT_EQ(get("/api/topics/nope/partitions/0/segments").status, 404);
}

TEST_F(ConsoleTopicsTest, CreatesATopicAsCreateTopicsDoes) {
    auto r = request("POST", "/api/topics",
                     R"({"name": "orders", "partitions": 3, "configs": {"cleanup.policy": "compact",
                         "retention.ms": 3600000}})");
    ASSERT_EQ(r.status, 201) << r.body;
    auto body = json_of(r);
    EXPECT_EQ(body["name"], "orders");
    EXPECT_EQ(body["partitions"].size(), 3u);
    EXPECT_EQ(find_named(body["configs"], "name", "cleanup.policy")["value"], "compact");
    EXPECT_EQ(find_named(body["configs"], "name", "retention.ms")["value"], "3600000");
    EXPECT_TRUE(topic_exists(broker(), "orders"));

    r = request("POST", "/api/topics", R"({"name": "orders"})");
    EXPECT_EQ(r.status, 409) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "TOPIC_ALREADY_EXISTS");

    r = request("POST", "/api/topics",
                R"({"name": "bad-config", "configs": {"cleanup.policy": "sometimes"}})");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "INVALID_CONFIG");
    EXPECT_FALSE(topic_exists(broker(), "bad-config"));

    // Defaults: num.partitions.
    r = request("POST", "/api/topics", R"({"name": "plain"})");
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(json_of(r)["partitions"].size(), static_cast<size_t>(config.num_partitions));
}

TEST_F(ConsoleTopicsTest, MalformedCreateBodiesAre400AndCreateNothing) {
    const std::string long_name(300, 'a');
    for (const std::string& body :
         {std::string("not json"), std::string("[]"), std::string("{}"),
          std::string(R"({"name": 7})"), std::string(R"({"name": "t1", "partitions": 0})"),
          std::string(R"({"name": "t1", "partitions": 1099511627776})"),
          std::string(R"({"name": "t1", "partitions": -1})"),
          std::string(R"({"name": "t1", "partitions": "3"})"),
          std::string(R"({"name": "t1", "partitions": 1.5})"),
          std::string(R"({"name": "t1", "configs": ["a"]})"),
          std::string(R"({"name": "t1", "configs": {"retention.ms": {"x": 1}}})"),
          std::string(R"({"name": "a/b"})"), std::string(R"({"name": ".."})"),
          std::string(R"({"name": ""})"), R"({"name": ")" + long_name + R"("})"}) {
        auto r = request("POST", "/api/topics", body);
        EXPECT_EQ(r.status, 400) << body << " -> " << r.body;
        EXPECT_EQ(json_of(r)["error_code"], 400) << body;
    }
    EXPECT_FALSE(topic_exists(broker(), "t1"));
    for (const auto& tp : broker().logs().partitions())
        EXPECT_TRUE(tp.topic.starts_with("__")) << tp.topic;
}

TEST_F(ConsoleTopicsTest, DeletesATopic) {
    create_topic("orders");
    auto r = request("DELETE", "/api/topics/orders");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r), (nlohmann::json{{"deleted", "orders"}}));
    EXPECT_EQ(get("/api/topics/orders").status, 404);
    r = request("DELETE", "/api/topics/orders");
    EXPECT_EQ(r.status, 404) << r.body;
}

TEST_F(ConsoleTopicsTest, AddsPartitions) {
    create_topic("orders", 2);
    auto r = request("POST", "/api/topics/orders/partitions", R"({"count": 4})");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r)["partitions"].size(), 4u);
    EXPECT_NE(broker().logs().get({"orders", 3}), nullptr);
    r = request("POST", "/api/topics/orders/partitions", R"({"count": 2})");  // fewer
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "INVALID_PARTITIONS");
    for (const std::string& body : {"{}", R"({"count": 0})", R"({"count": 1099511627776})",
                                    R"({"count": "5"})", "[5]", "5"}) {
        r = request("POST", "/api/topics/orders/partitions", body);
        EXPECT_EQ(r.status, 400) << body << " -> " << r.body;
    }
    EXPECT_EQ(broker().logs().get({"orders", 4}), nullptr);
    r = request("POST", "/api/topics/nope/partitions", R"({"count": 4})");
    EXPECT_EQ(r.status, 404) << r.body;
}

TEST_F(ConsoleTopicsTest, AltersConfigsIncrementally) {
    create_topic("orders", 1, {{"cleanup.policy", "compact"}});
    auto r = request("PATCH", "/api/topics/orders/configs",
                     R"({"set": {"retention.ms": "3600000"}, "delete": ["cleanup.policy"]})");
    ASSERT_EQ(r.status, 200) << r.body;
    auto body = json_of(r);
    EXPECT_EQ(body["name"], "orders");
    auto retention = find_named(body["configs"], "name", "retention.ms");
    EXPECT_EQ(retention["value"], "3600000");
    EXPECT_EQ(retention["source"], "DYNAMIC_TOPIC_CONFIG");
    auto cleanup = find_named(body["configs"], "name", "cleanup.policy");
    EXPECT_EQ(cleanup["value"], "delete");
    EXPECT_EQ(cleanup["source"], "DEFAULT_CONFIG");

    r = request("PATCH", "/api/topics/orders/configs", R"({"set": {"retention.ms": "soon"}})");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "INVALID_CONFIG");
    for (const std::string& bad : {"x", "{}", R"({"set": []})", R"({"delete": "a"})",
                                   R"({"delete": [1]})", R"({"set": {"retention.ms": null}})"}) {
        r = request("PATCH", "/api/topics/orders/configs", bad);
        EXPECT_EQ(r.status, 400) << bad << " -> " << r.body;
    }
    retention = find_named(json_of(get("/api/topics/orders"))["configs"], "name", "retention.ms");
    EXPECT_EQ(retention["value"], "3600000");  // unchanged by the refused ones
    r = request("PATCH", "/api/topics/nope/configs", R"({"set": {"retention.ms": "1"}})");
    EXPECT_EQ(r.status, 404) << r.body;
}

TEST_F(ConsoleTopicsTest, ReadOnlyRefusesEveryTopicWrite) {
    settings.read_only = true;
    create_topic("orders", 1);
    EXPECT_EQ(request("POST", "/api/topics", R"({"name": "new"})").status, 403);
    EXPECT_EQ(request("DELETE", "/api/topics/orders").status, 403);
    EXPECT_EQ(request("POST", "/api/topics/orders/partitions", R"({"count": 3})").status, 403);
    EXPECT_EQ(
        request("PATCH", "/api/topics/orders/configs", R"({"set": {"retention.ms": "1"}})").status,
        403);
    EXPECT_FALSE(topic_exists(broker(), "new"));
    EXPECT_TRUE(topic_exists(broker(), "orders"));
    EXPECT_EQ(broker().logs().get({"orders", 1}), nullptr);
    EXPECT_EQ(get("/api/topics/orders").status, 200);  // reads still work
}

TEST_F(ConsoleTopicsTest, CallersSeeAndChangeOnlyWhatTheirAclsAllow) {
    use_authorizer();
    create_topic("orders-eu");
    create_topic("payments");
    allow_alice(ResourceType::topic, "orders-", PatternType::prefixed, AclOperation::describe);

    auto r = as("alice", "GET", "/api/topics");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto topics = json_of(r)["topics"];
    EXPECT_FALSE(find_named(topics, "name", "orders-eu").is_null());
    EXPECT_TRUE(find_named(topics, "name", "payments").is_null());
    // Sizes need DESCRIBE on the cluster (DescribeLogDirs), which alice does not have.
    EXPECT_TRUE(find_named(topics, "name", "orders-eu")["size_bytes"].is_null());

    r = as("alice", "GET", "/api/topics/payments");
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "TOPIC_AUTHORIZATION_FAILED");
    EXPECT_EQ(as("alice", "GET", "/api/topics/payments/partitions/0/segments").status, 403);
    EXPECT_EQ(as("alice", "GET", "/api/topics/orders-eu/partitions/0/segments").status, 200);
    // An unknown topic she may not describe looks the same as one that exists.
    EXPECT_EQ(as("alice", "GET", "/api/topics/secret/partitions/0/segments").status, 403);

    r = as("alice", "POST", "/api/topics", R"({"name": "orders-new"})");
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "TOPIC_AUTHORIZATION_FAILED");
    EXPECT_FALSE(topic_exists(broker(), "orders-new"));
    EXPECT_EQ(as("alice", "DELETE", "/api/topics/orders-eu").status, 403);
    EXPECT_TRUE(topic_exists(broker(), "orders-eu"));

    allow_alice(ResourceType::topic, "orders-", PatternType::prefixed, AclOperation::create);
    r = as("alice", "POST", "/api/topics", R"({"name": "orders-new"})");
    EXPECT_EQ(r.status, 201) << r.body;

    // The super user sees everything, sizes included.
    r = as("admin", "GET", "/api/topics");
    EXPECT_FALSE(find_named(json_of(r)["topics"], "name", "payments")["size_bytes"].is_null());
}

}  // namespace
}  // namespace skiff::broker::test
