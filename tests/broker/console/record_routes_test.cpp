// GET /api/topics/{topic}/partitions/{p}/records and POST /api/topics/{topic}/records on a real
// Broker: pages from the beginning, the end, an offset and a timestamp, bounded by records and
// bytes; compressed, idempotent and transactional batches; hostile and binary bytes returned
// as data; and test messages produced through the Produce handler, with its errors.
#include "tests/broker/console/console_fixture.h"

#include "broker/console/murmur2.h"
#include "broker/net/session.h"
#include "broker/security/acl.h"
#include "protocol/compression/batch_recompress.h"
#include "protocol/produce.h"
#include "storage/partition_log.h"

namespace skiff::broker::test {
namespace {

using protocol::Compression;
using protocol::RecordSpec;

class RecordRoutesTest : public ConsoleTest {
  protected:
    ErrorCode produce_batch(const std::string& topic, const std::vector<std::byte>& batch,
                            int32_t partition = 0) {
        protocol::ProduceRequest req;
        req.acks = -1;
        req.timeout_ms = 1000;
        req.topic_data.push_back({topic, {}, {{partition, std::span<const std::byte>(batch)}}});
        return run(handle_produce, req, 9).responses.at(0).partition_responses.at(0).error_code;
    }

    // `count` records "v<i>" keyed "k<i>", in one batch of `codec`, timestamps from `ts`.
    void produce_values(const std::string& topic, int count, Compression codec = Compression::none,
                        int64_t ts = 1000) {
        std::vector<RecordSpec> records;
        for (int i = 0; i < count; ++i)
            records.push_back({"k" + std::to_string(i), "v" + std::to_string(i), {}, i});
        protocol::BatchSpec spec;
        spec.base_timestamp = ts;
        auto batch = protocol::build_record_batch(spec, records);
        if (codec != Compression::none) {
            std::vector<std::byte> scratch;
            std::vector<std::byte> out;
            ASSERT_TRUE(
                protocol::compression::recompress_batch(batch, codec, 1 << 30, scratch, out));
            batch = out;
        }
        ASSERT_EQ(produce_batch(topic, batch), ErrorCode::none);
    }

    nlohmann::json page(const std::string& topic, const std::string& query, int partition = 0,
                        int status = 200) {
        auto r = get("/api/topics/" + topic + "/partitions/" + std::to_string(partition) +
                     "/records" + (query.empty() ? "" : "?" + query));
        EXPECT_EQ(r.status, status) << r.body;
        return json_of(r);
    }

    static std::vector<int64_t> offsets(const nlohmann::json& page) {
        std::vector<int64_t> out;
        for (const auto& r : page["records"])
            out.push_back(r["offset"].get<int64_t>());
        return out;
    }

    http::HttpResponse post(const std::string& topic, const nlohmann::json& body) {
        return request("POST", "/api/topics/" + topic + "/records", body.dump());
    }
};

TEST_F(RecordRoutesTest, AnEmptyPartitionHasAnEmptyPage) {
    create_topic("empty");
    auto p = page("empty", "");
    EXPECT_EQ(p["records"].size(), 0u);
    EXPECT_EQ(p["high_watermark"], 0);
    EXPECT_EQ(p["log_start_offset"], 0);
    EXPECT_EQ(p["next_offset"], 0);
    EXPECT_EQ(p["topic"], "empty");
    EXPECT_EQ(p["partition"], 0);
}

TEST_F(RecordRoutesTest, FromEndIsTheLastLimitRecordsAndBeginningTheFirst) {
    create_topic("t");
    produce_values("t", 10);
    auto p = page("t", "limit=3");  // from=end by default
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{7, 8, 9}));
    EXPECT_EQ(p["next_offset"], 10);
    EXPECT_EQ(p["high_watermark"], 10);
    EXPECT_EQ(p["records"][0]["key"]["text"], "k7");
    EXPECT_EQ(p["records"][0]["value"]["text"], "v7");
    EXPECT_EQ(p["records"][0]["value"]["hex"], "7637");
    EXPECT_EQ(p["records"][0]["value"]["size"], 2);
    EXPECT_EQ(p["records"][0]["timestamp"], 1007);
    EXPECT_EQ(p["records"][0]["timestamp_type"], "CreateTime");
    p = page("t", "from=beginning&limit=4");
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{0, 1, 2, 3}));
    EXPECT_EQ(p["next_offset"], 4);
    p = page("t", "from=end&limit=50");
    EXPECT_EQ(p["records"].size(), 10u);
}

TEST_F(RecordRoutesTest, FromAnOffsetClampedToThePartition) {
    create_topic("t");
    produce_values("t", 5);
    produce_values("t", 5);
    auto p = page("t", "from=offset&offset=4&limit=3");  // across the two batches
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{4, 5, 6}));
    EXPECT_EQ(p["next_offset"], 7);
    p = page("t", "from=offset&offset=" + std::to_string(p["next_offset"].get<int64_t>()));
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{7, 8, 9}));
    EXPECT_EQ(p["next_offset"], 10);
    p = page("t", "from=offset&offset=1000");
    EXPECT_TRUE(p["records"].empty());
    EXPECT_EQ(p["next_offset"], 10);
    page("t", "from=offset", 0, 400);
    page("t", "from=offset&offset=-1", 0, 400);
    page("t", "from=offset&offset=99999999999999999999999", 0, 400);
}

TEST_F(RecordRoutesTest, FromATimestampAsListOffsetsFindsIt) {
    create_topic("t");
    produce_values("t", 2, Compression::none, 1000);
    produce_values("t", 2, Compression::none, 2000);
    produce_values("t", 2, Compression::none, 3000);
    auto p = page("t", "from=timestamp&timestamp=1500");
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{2, 3, 4, 5}));
    EXPECT_EQ(p["records"][0]["timestamp"], 2000);
    p = page("t", "from=timestamp&timestamp=0&limit=1");
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{0}));
    p = page("t", "from=timestamp&timestamp=9999999");
    EXPECT_TRUE(p["records"].empty());
    EXPECT_EQ(p["next_offset"], 6);
    page("t", "from=timestamp&timestamp=abc", 0, 400);
}

TEST_F(RecordRoutesTest, CompressedBatchesOfEveryCodecAreRead) {
    create_topic("z");
    const std::vector<Compression> codecs = {Compression::gzip, Compression::snappy,
                                             Compression::lz4, Compression::zstd};
    for (auto codec : codecs)
        produce_values("z", 3, codec);
    auto p = page("z", "from=beginning&limit=500");
    ASSERT_EQ(p["records"].size(), 12u) << p.dump();
    for (size_t i = 0; i < 12; ++i) {
        const auto& r = p["records"][i];
        EXPECT_EQ(r["offset"], i);
        EXPECT_EQ(r["value"]["text"], "v" + std::to_string(i % 3));
        EXPECT_EQ(r["batch"]["compression"], protocol::compression_name(codecs[i / 3]));
        EXPECT_EQ(r["batch"]["base_offset"], (i / 3) * 3);
    }
    // From the middle of a compressed batch: the records before the offset are left out.
    p = page("z", "from=offset&offset=4&limit=2");
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{4, 5}));
}

TEST_F(RecordRoutesTest, ThePageIsBoundedByBytes) {
    create_topic("t");
    std::vector<RecordSpec> records;
    for (int i = 0; i < 10; ++i)
        records.push_back({std::nullopt, std::string(300, static_cast<char>('a' + i)), {}, 0});
    ASSERT_EQ(produce_batch("t", protocol::build_record_batch({}, records)), ErrorCode::none);
    settings.max_record_bytes_per_page = 1000;
    auto p = page("t", "from=beginning&limit=500");
    // About 1000 bytes of values: 4 records of 300 (the one that crosses the budget included).
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{0, 1, 2, 3}));
    EXPECT_EQ(p["next_offset"], 4);
    EXPECT_EQ(p["records"][0]["key"], nullptr);
    p = page("t", "from=offset&offset=4&limit=500");
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{4, 5, 6, 7}));
}

TEST_F(RecordRoutesTest, ThePageIsBoundedByRecords) {
    create_topic("t");
    produce_values("t", 10);
    settings.max_records_per_page = 5;
    auto p = page("t", "from=beginning&limit=500");
    EXPECT_EQ(p["records"].size(), 5u);  // limit clamped to max_records_per_page
    EXPECT_EQ(p["next_offset"], 5);
    page("t", "limit=0", 0, 400);
    page("t", "limit=-3", 0, 400);
    page("t", "limit=ten", 0, 400);
}

TEST_F(RecordRoutesTest, BinaryAndHostileBytesAreReturnedAsData) {
    create_topic("h");
    const std::string script = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    const std::string binary("\xff\x00\x01\xfe", 4);
    const std::string control = "a\x01\x1b[31m\n\"b\\";
    const std::string bad_utf8 = "ok\xc3\x28";
    std::vector<RecordSpec> records = {
        {script, script, {{script, script}}, 0},
        {binary, binary, {{"bin", binary}, {"null", std::nullopt}}, 0},
        {control, control, {}, 0},
        {bad_utf8, bad_utf8, {{bad_utf8, bad_utf8}}, 0},
        {std::nullopt, std::nullopt, {}, 0},
    };
    ASSERT_EQ(produce_batch("h", protocol::build_record_batch({}, records)), ErrorCode::none);
    auto r = get("/api/topics/h/partitions/0/records?from=beginning");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.content_type, "application/json");
    const auto p = json_of(r);
    ASSERT_EQ(p["records"].size(), 5u);
    // Text is text: the page shows it with textContent, never as markup.
    EXPECT_EQ(p["records"][0]["value"]["text"], script);
    EXPECT_EQ(p["records"][0]["headers"][0]["key"], script);
    EXPECT_EQ(p["records"][0]["headers"][0]["value"]["text"], script);
    EXPECT_FALSE(p["records"][0]["value"].contains("json"));
    // Binary: hex only, no text.
    EXPECT_EQ(p["records"][1]["value"]["hex"], "ff0001fe");
    EXPECT_FALSE(p["records"][1]["value"].contains("text"));
    EXPECT_EQ(p["records"][1]["key"]["hex"], "ff0001fe");
    EXPECT_EQ(p["records"][1]["headers"][0]["value"]["hex"], "ff0001fe");
    EXPECT_EQ(p["records"][1]["headers"][1]["value"], nullptr);
    // Control characters are valid UTF-8: text, escaped by JSON in the body.
    EXPECT_EQ(p["records"][2]["value"]["text"], control);
    EXPECT_NE(r.body.find("\\u0001"), std::string::npos);
    EXPECT_EQ(r.body.find('\x1b'), std::string::npos);
    // Invalid UTF-8: no text; a header key (a string in Kafka) is replaced, never raw.
    EXPECT_FALSE(p["records"][3]["value"].contains("text"));
    EXPECT_EQ(p["records"][3]["value"]["hex"], "6f6bc328");
    EXPECT_EQ(p["records"][4]["key"], nullptr);
    EXPECT_EQ(p["records"][4]["value"], nullptr);
}

TEST_F(RecordRoutesTest, JsonValuesAreMarkedAndLargeValuesCut) {
    create_topic("j");
    const std::string big(70000, 'x');
    std::vector<RecordSpec> records = {{std::nullopt, R"({"a": [1, 2]})", {}, 0},
                                       {std::nullopt, "not { json", {}, 0},
                                       {std::nullopt, big, {}, 0}};
    ASSERT_EQ(produce_batch("j", protocol::build_record_batch({}, records)), ErrorCode::none);
    const auto p = page("j", "from=beginning");
    EXPECT_EQ(p["records"][0]["value"]["json"], true);
    EXPECT_FALSE(p["records"][1]["value"].contains("json"));
    const auto& cut = p["records"][2]["value"];
    EXPECT_EQ(cut["size"], 70000);
    EXPECT_EQ(cut["truncated"], true);
    EXPECT_EQ(cut["hex"].get<std::string>().size(), size_t{65536} * 2);
    EXPECT_EQ(cut["text"].get<std::string>().size(), 65536u);
    EXPECT_FALSE(p["records"][0]["value"].contains("truncated"));
}

TEST_F(RecordRoutesTest, IdempotentAndTransactionalBatchesShowTheirFieldsAndSkipMarkers) {
    create_topic("tx");
    protocol::BatchSpec spec;
    spec.producer_id = 4242;
    spec.producer_epoch = 3;
    spec.base_sequence = 0;
    spec.attributes = 0x10;  // transactional
    auto batch = protocol::build_record_batch(spec, {{"k", "in-txn", {}, 0}, {"k", "two", {}, 0}});
    auto log = broker().logs().get({"tx", 0});
    ASSERT_TRUE(log);
    auto summaries = protocol::validate_batches(batch);
    ASSERT_TRUE(summaries);
    ASSERT_TRUE(log->append(batch, *summaries, storage::AppendOrigin::coordinator));
    ASSERT_TRUE(log->append_marker({4242, 3, 0, true, -1}));
    produce_values("tx", 1);
    auto p = page("tx", "from=beginning");
    ASSERT_EQ(offsets(p), (std::vector<int64_t>{0, 1, 3})) << p.dump();  // 2 is the marker
    const auto& b = p["records"][0]["batch"];
    EXPECT_EQ(b["producer_id"], 4242);
    EXPECT_EQ(b["producer_epoch"], 3);
    EXPECT_EQ(b["base_sequence"], 0);
    EXPECT_EQ(b["transactional"], true);
    EXPECT_EQ(b["control"], false);
    EXPECT_EQ(p["records"][2]["batch"]["transactional"], false);
    EXPECT_EQ(p["records"][2]["batch"]["producer_id"], -1);
    EXPECT_EQ(p["next_offset"], 4);
    // A page that holds only the marker moves past it.
    p = page("tx", "from=offset&offset=2&limit=1");
    EXPECT_EQ(offsets(p), (std::vector<int64_t>{3}));
}

TEST_F(RecordRoutesTest, BadRequestsGetClearErrors) {
    create_topic("t", 2);
    page("t", "from=somewhere", 0, 400);
    auto r = get("/api/topics/t/partitions/x/records");
    EXPECT_EQ(r.status, 400);
    r = get("/api/topics/t/partitions/-1/records");
    EXPECT_EQ(r.status, 400);
    r = get("/api/topics/t/partitions/99999999999/records");
    EXPECT_EQ(r.status, 400);
    r = get("/api/topics/t/partitions/7/records");
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "UNKNOWN_TOPIC_OR_PARTITION");
    r = get("/api/topics/nope/partitions/0/records");
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "UNKNOWN_TOPIC_OR_PARTITION");
    EXPECT_FALSE(broker().logs().get({"nope", 0}));  // reading never creates a topic
    r = get("/api/topics/..%2F..%2Fetc/partitions/0/records");
    EXPECT_NE(r.status, 200);
}

TEST_F(RecordRoutesTest, ProducesATestMessageWithHeaders) {
    create_topic("out");
    auto r = post("out",
                  {{"key", "k"},
                   {"value", "hello <b>world</b>"},
                   {"headers",
                    {{{"key", "trace"}, {"value", "ab"}}, {{"key", "none"}, {"value", nullptr}}}}});
    ASSERT_EQ(r.status, 200) << r.body;
    auto answer = json_of(r);
    EXPECT_EQ(answer["partition"], 0);
    EXPECT_EQ(answer["offset"], 0);
    EXPECT_GT(answer["timestamp"].get<int64_t>(), 1700000000000);
    r = post("out", {{"partition", 0}, {"key", nullptr}, {"value", nullptr}});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r)["offset"], 1);
    const auto p = page("out", "from=beginning");
    ASSERT_EQ(p["records"].size(), 2u);
    EXPECT_EQ(p["records"][0]["key"]["text"], "k");
    EXPECT_EQ(p["records"][0]["value"]["text"], "hello <b>world</b>");
    EXPECT_EQ(p["records"][0]["headers"][0]["key"], "trace");
    EXPECT_EQ(p["records"][0]["headers"][0]["value"]["text"], "ab");
    EXPECT_EQ(p["records"][0]["headers"][1]["value"], nullptr);
    EXPECT_EQ(p["records"][0]["timestamp"], answer["timestamp"]);
    EXPECT_EQ(p["records"][1]["key"], nullptr);
    EXPECT_EQ(p["records"][1]["value"], nullptr);
}

TEST_F(RecordRoutesTest, AKeyPicksThePartitionAsKafkasDefaultPartitioner) {
    // Kafka's own vectors for Utils.murmur2 (UtilsTest).
    EXPECT_EQ(console::murmur2("21"), -973932308);
    EXPECT_EQ(console::murmur2("foobar"), -790332482);
    EXPECT_EQ(console::murmur2("a-little-bit-long-string"), -985981536);
    EXPECT_EQ(console::murmur2("a-little-bit-longer-string"), -1486304829);
    EXPECT_EQ(console::murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971);
    EXPECT_EQ(console::murmur2("abc"), 479470107);
    create_topic("keyed", 6);
    for (const std::string key : {"a", "orders-17", "21", "foobar"}) {
        auto r = post("keyed", {{"key", key}, {"value", "v"}});
        ASSERT_EQ(r.status, 200) << r.body;
        EXPECT_EQ(json_of(r)["partition"], console::partition_for_key(key, 6)) << key;
    }
    auto r = post("keyed", {{"value", "no key"}});
    EXPECT_EQ(json_of(r)["partition"], 0);
}

TEST_F(RecordRoutesTest, ProduceErrorsStoreNothing) {
    create_topic("out", 2);
    auto r = request("POST", "/api/topics/out/records", "{not json");
    EXPECT_EQ(r.status, 400);
    r = request("POST", "/api/topics/out/records", "[1, 2]");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(post("out", {{"value", 5}}).status, 400);
    EXPECT_EQ(post("out", {{"key", {{"a", 1}}}}).status, 400);
    EXPECT_EQ(post("out", {{"headers", "x"}}).status, 400);
    EXPECT_EQ(post("out", {{"headers", {{{"value", "no key"}}}}}).status, 400);
    EXPECT_EQ(post("out", {{"headers", {{{"key", "h"}, {"value", 1}}}}}).status, 400);
    EXPECT_EQ(post("out", {{"partition", -1}, {"value", "v"}}).status, 400);
    EXPECT_EQ(post("out", {{"partition", "0"}, {"value", "v"}}).status, 400);
    EXPECT_EQ(post("out", {{"partition", 1e30}, {"value", "v"}}).status, 400);
    r = post("out", {{"partition", 5}, {"value", "v"}});
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "UNKNOWN_TOPIC_OR_PARTITION");
    r = post("missing", {{"value", "v"}});
    EXPECT_EQ(r.status, 404) << r.body;
    r = post("missing", {{"key", "k"}, {"value", "v"}});
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_FALSE(broker().logs().get({"missing", 0}));
    EXPECT_EQ(page("out", "from=beginning")["high_watermark"], 0);
    EXPECT_EQ(page("out", "from=beginning", 1)["high_watermark"], 0);
}

TEST_F(RecordRoutesTest, ProduceIsAWriteRefusedWhenReadOnly) {
    create_topic("out");
    settings.read_only = true;
    auto r = post("out", {{"value", "v"}});
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(page("out", "")["high_watermark"], 0);  // reading still works
}

// With an authorizer, the page is a ListOffsets and a Fetch as the console's caller (here
// User:ANONYMOUS, no basic auth), and the produce a Produce: Kafka's ACLs decide each.
class RecordRoutesAclTest : public RecordRoutesTest {
  protected:
    RecordRoutesAclTest() {
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        config.super_users = "User:admin";
    }
};

TEST_F(RecordRoutesAclTest, ReadingAndProducingAreAuthorizedForTheCaller) {
    create_topic("open");
    create_topic("closed");
    Session admin;  // the records are written by a super user, through the Produce handler
    admin.principal = "User:admin";
    admin.host = "127.0.0.1";
    session = &admin;
    produce_values("open", 2);
    produce_values("closed", 2);
    session = nullptr;
    using security::AclOperation;
    auto error = broker().authorizer()->acls().add(
        {{security::ResourceType::topic, "open", security::PatternType::literal, "User:ANONYMOUS",
          "*", AclOperation::read, security::AclPermission::allow}});
    ASSERT_FALSE(error);
    EXPECT_EQ(page("open", "from=beginning")["records"].size(), 2u);
    auto r = get("/api/topics/closed/partitions/0/records");
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "TOPIC_AUTHORIZATION_FAILED");
    r = post("open", {{"value", "not allowed"}});
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_of(r)["kafka_error"], "TOPIC_AUTHORIZATION_FAILED");
    EXPECT_EQ(page("open", "from=beginning")["high_watermark"], 2);
}

}  // namespace
}  // namespace skiff::broker::test
