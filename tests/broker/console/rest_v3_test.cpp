// Confluent REST Proxy v3 on the console (broker/console/rest_v3/): the cluster and topic
// listings in REST Proxy's shapes, record production (one record, the streaming form, each
// format, headers, partitions by key as Kafka's default partitioner), and bad input answered
// with REST Proxy's error shape while nothing is stored.
#include "tests/broker/console/console_fixture.h"

#include "broker/console/murmur2.h"
#include "broker/console/rest_v3/produce_request.h"

namespace skiff::broker::test {
namespace {

using nlohmann::json;
namespace rest = console::rest_v3;

class RestV3Test : public ConsoleTest {
  protected:
    std::string cluster() { return broker().cluster_id(); }
    std::string records_url(const std::string& topic) {
        return "/v3/clusters/" + cluster() + "/topics/" + topic + "/records";
    }
    int64_t high_watermark(const std::string& topic, int32_t partition = 0) {
        auto* log = broker().logs().get({topic, partition});
        return log ? log->high_watermark() : -1;
    }
    // The answers of a streamed request: one JSON object per record.
    static std::vector<json> results_of(const http::HttpResponse& r) {
        std::vector<json> out;
        auto texts = rest::split_concatenated_json(r.body);
        EXPECT_TRUE(texts) << r.body;
        if (texts)
            for (auto t : *texts)
                out.push_back(json::parse(t));
        return out;
    }
};

TEST(RestV3Request, SplitsConcatenatedObjectsAndRefusesTheRest) {
    auto parts = rest::split_concatenated_json(R"( {"a":"}{"} {"b":[{}]}
{"c":"\"}"} )");
    ASSERT_TRUE(parts);
    ASSERT_EQ(parts->size(), 3u);
    EXPECT_EQ((*parts)[0], R"({"a":"}{"})");
    EXPECT_EQ((*parts)[2], R"({"c":"\"}"})");
    EXPECT_FALSE(rest::split_concatenated_json(""));
    EXPECT_FALSE(rest::split_concatenated_json("[1]"));
    EXPECT_FALSE(rest::split_concatenated_json(R"({"a":1} x)"));
    EXPECT_FALSE(rest::split_concatenated_json(R"({"a":{})"));
}

TEST(RestV3Request, TimestampsInIso8601) {
    EXPECT_EQ(rest::parse_iso8601_ms("1970-01-01T00:00:01Z"), 1000);
    EXPECT_EQ(rest::parse_iso8601_ms("2021-02-05T19:14:42.123Z"), 1612552482123);
    EXPECT_EQ(rest::parse_iso8601_ms("2021-02-05T20:14:42.5+01:00"), 1612552482500);
    EXPECT_FALSE(rest::parse_iso8601_ms("2021-02-05 19:14:42"));
    EXPECT_FALSE(rest::parse_iso8601_ms("2021-13-05T19:14:42Z"));
    EXPECT_FALSE(rest::parse_iso8601_ms("yesterday"));
    EXPECT_EQ(rest::format_iso8601_ms(1612552482123), "2021-02-05T19:14:42.123Z");
}

TEST_F(RestV3Test, ListsTheClusterAndItsTopicsInRestProxysShapes) {
    create_topic("orders", 3);
    auto r = get("/v3/clusters");
    ASSERT_EQ(r.status, 200) << r.body;
    auto body = json_of(r);
    EXPECT_EQ(body["kind"], "KafkaClusterList");
    EXPECT_EQ(body["metadata"]["self"], "http://127.0.0.1:8080/v3/clusters");
    ASSERT_EQ(body["data"].size(), 1u);
    EXPECT_EQ(body["data"][0]["kind"], "KafkaCluster");
    EXPECT_EQ(body["data"][0]["cluster_id"], cluster());
    EXPECT_EQ(body["data"][0]["topics"]["related"],
              "http://127.0.0.1:8080/v3/clusters/" + cluster() + "/topics");

    body = json_of(get("/v3/clusters/" + cluster()));
    EXPECT_EQ(body["kind"], "KafkaCluster");

    r = get("/v3/clusters/" + cluster() + "/topics");
    ASSERT_EQ(r.status, 200) << r.body;
    body = json_of(r);
    EXPECT_EQ(body["kind"], "KafkaTopicList");
    bool found = false;
    for (const auto& t : body["data"]) {
        if (t["topic_name"] != "orders")
            continue;
        found = true;
        EXPECT_EQ(t["kind"], "KafkaTopic");
        EXPECT_EQ(t["partitions_count"], 3);
        EXPECT_EQ(t["replication_factor"], 1);
        EXPECT_EQ(t["is_internal"], false);
        EXPECT_EQ(t["metadata"]["self"],
                  "http://127.0.0.1:8080/v3/clusters/" + cluster() + "/topics/orders");
    }
    EXPECT_TRUE(found) << r.body;

    r = get("/v3/clusters/" + cluster() + "/topics/orders");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r)["topic_name"], "orders");
}

TEST_F(RestV3Test, UnknownClusterAndTopicAre404) {
    auto r = get("/v3/clusters/not-this-one");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(json_of(r)["error_code"], 404);
    r = get("/v3/clusters/not-this-one/topics");
    EXPECT_EQ(r.status, 404);
    r = get("/v3/clusters/" + cluster() + "/topics/missing");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(json_of(r)["error_code"], 404);
    r = request("POST", records_url("missing"), R"({"value":{"type":"STRING","data":"x"}})");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(json_of(r)["error_code"], 40403);
    // Producing never creates the topic.
    EXPECT_EQ(get("/v3/clusters/" + cluster() + "/topics/missing").status, 404);
    r = request("POST", "/v3/clusters/other/topics/missing/records", R"({})");
    EXPECT_EQ(r.status, 404);
}

TEST_F(RestV3Test, ProducesOneRecordAndAnswersItsResult) {
    create_topic("orders", 1);
    auto r = request("POST", records_url("orders"),
                     R"({"key":{"type":"STRING","data":"k1"},
                         "value":{"type":"JSON","data":{"amount":12}},
                         "headers":[{"name":"trace","value":"YWJj"}],
                         "timestamp":"2021-02-05T19:14:42.123Z"})");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body["error_code"], 200);
    EXPECT_EQ(body["cluster_id"], cluster());
    EXPECT_EQ(body["topic_name"], "orders");
    EXPECT_EQ(body["partition_id"], 0);
    EXPECT_EQ(body["offset"], 0);
    EXPECT_EQ(body["timestamp"], "2021-02-05T19:14:42.123Z");
    EXPECT_EQ(body["key"], (json{{"type", "STRING"}, {"size", 2}}));
    EXPECT_EQ(body["value"], (json{{"type", "JSON"}, {"size", 13}}));  // {"amount":12}
    EXPECT_EQ(high_watermark("orders"), 1);
}

TEST_F(RestV3Test, StreamedRecordsAreAnsweredOneByOneInOrder) {
    create_topic("orders", 4);
    std::string body;
    for (int i = 0; i < 6; ++i)
        body += R"({"partition_id":2,"value":{"type":"BINARY","data":"AAEC"}})"
                "\n";
    // A key without a partition goes where Kafka's default partitioner puts it.
    body += R"({"key":{"type":"STRING","data":"foobar"},"value":{"type":"STRING","data":"v"}})";
    auto r = request("POST", records_url("orders"), body);
    ASSERT_EQ(r.status, 200) << r.body;
    auto results = results_of(r);
    ASSERT_EQ(results.size(), 7u);
    for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(results[i]["error_code"], 200);
        EXPECT_EQ(results[i]["partition_id"], 2);
        EXPECT_EQ(results[i]["offset"], i);
        EXPECT_EQ(results[i]["value"]["size"], 3);
    }
    EXPECT_EQ(results[6]["partition_id"], console::partition_for_key("foobar", 4));
    EXPECT_EQ(high_watermark("orders", 2), 6 + (console::partition_for_key("foobar", 4) == 2));
}

TEST_F(RestV3Test, ABadRecordOfAStreamGetsItsOwnErrorAndTheOthersAreStored) {
    create_topic("orders", 1);
    const std::string body = R"({"value":{"type":"STRING","data":"a"}}
{"value":{"type":"BINARY","data":"not base64!"}}
{"partition_id":7,"value":{"type":"STRING","data":"c"}}
{"value":{"type":"AVRO","data":{"f":1}}}
{"value":{"type":"STRING","data":"e"}})";
    auto r = request("POST", records_url("orders"), body);
    ASSERT_EQ(r.status, 200) << r.body;
    auto results = results_of(r);
    ASSERT_EQ(results.size(), 5u);
    EXPECT_EQ(results[0]["error_code"], 200);
    EXPECT_EQ(results[0]["offset"], 0);
    EXPECT_EQ(results[1]["error_code"], 400);
    EXPECT_EQ(results[2]["error_code"], 40402);
    EXPECT_EQ(results[3]["error_code"], 400);
    EXPECT_NE(results[3]["message"].get<std::string>().find("schema registry"), std::string::npos);
    EXPECT_EQ(results[4]["error_code"], 200);
    EXPECT_EQ(results[4]["offset"], 1);
    EXPECT_EQ(high_watermark("orders"), 2);
}

TEST_F(RestV3Test, BadBodiesAre400InRestProxysShapeAndStoreNothing) {
    create_topic("orders", 1);
    for (const std::string body :
         {"", "{", "not json", R"({"value":{"type":"STRING","data":"a"}} {"value":)",
          R"({"value":{"type":"STRING","data":"a"}} [1])", "[]",
          R"({"value":{"type":"STRING","data":5}})", R"({"value":"plain"})",
          R"({"value":{"type":"XML","data":"<a/>"}})", R"({"partition_id":"0"})",
          R"({"partition_id":-1})", R"({"partition_id":99999999999999999999})",
          R"({"headers":{"a":"b"}})", R"({"headers":[{"name":"h","value":"%%%"}]})",
          R"({"timestamp":"yesterday"})", R"({"value":{"schema_id":1,"data":{}}})"}) {
        auto r = request("POST", records_url("orders"), body);
        EXPECT_EQ(r.status, 400) << body << " -> " << r.body;
        const auto answer = json_of(r);
        EXPECT_EQ(answer["error_code"], 400) << body;
        EXPECT_TRUE(answer["message"].is_string());
    }
    EXPECT_EQ(high_watermark("orders"), 0);
}

TEST_F(RestV3Test, ProduceIsAWriteRefusedWhenReadOnly) {
    settings.read_only = true;
    create_topic("orders", 1);
    auto r = request("POST", records_url("orders"), R"({"value":{"type":"STRING","data":"a"}})");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(json_of(r)["error_code"], 403);
    EXPECT_EQ(high_watermark("orders"), 0);
    // Reading stays allowed.
    EXPECT_EQ(get("/v3/clusters/" + cluster() + "/topics").status, 200);
}

// With ACLs on and none for the caller, topics are hidden and producing is refused (40301).
TEST_F(RestV3Test, AclsApplyToTheCaller) {
    config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    create_topic("orders", 1);
    auto r = get("/v3/clusters/" + cluster() + "/topics");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(json_of(r)["data"].empty()) << r.body;
    r = request("POST", records_url("orders"), R"({"value":{"type":"STRING","data":"a"}})");
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_of(r)["error_code"], 40301);
    EXPECT_EQ(high_watermark("orders"), 0);
}

TEST_F(RestV3Test, NullKeysValuesAndHeaderValuesAreStoredAsNull) {
    create_topic("orders", 1);
    auto r = request("POST", records_url("orders"),
                     R"({"key":null,"value":{"type":"BINARY","data":null},
                         "headers":[{"name":"h","value":null}]})");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = json_of(r);
    EXPECT_TRUE(body["key"].is_null());
    EXPECT_TRUE(body["value"].is_null());
    EXPECT_EQ(high_watermark("orders"), 1);
}

}  // namespace
}  // namespace skiff::broker::test
