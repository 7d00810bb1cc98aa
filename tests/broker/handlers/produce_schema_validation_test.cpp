// Produce to a topic with broker-side schema validation (confluent.value.schema.validation,
// confluent.key.schema.validation): records carrying the wire-format header of a schema
// registered under the topic's subject are stored; a batch with any other record is refused
// with INVALID_RECORD, each refused record in record_errors, and nothing of it is stored.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/produce.h"
#include "protocol/record_builder.h"

namespace skiff::broker::test {
namespace {

std::string header(int32_t id) {
    std::string h(1, '\0');
    for (int shift = 24; shift >= 0; shift -= 8)
        h.push_back(static_cast<char>((id >> shift) & 0xff));
    return h;
}

// One batch of (key, value) records.
using KeyValue = std::pair<std::optional<std::string>, std::optional<std::string>>;
std::vector<std::byte> batch_of(const std::vector<KeyValue>& pairs) {
    std::vector<protocol::RecordSpec> records;
    for (const auto& [key, value] : pairs) {
        protocol::RecordSpec r;
        r.key = key;
        r.value = value;
        records.push_back(std::move(r));
    }
    return protocol::build_record_batch({}, records);
}

class SchemaValidationTest : public HandlerTest {
  protected:
    SchemaValidationTest() { config.schema_registry_listeners = "http://127.0.0.1:0"; }

    int32_t register_schema(const std::string& subject, const std::string& schema) {
        schema_registry::RestRequest r;
        r.method = "POST";
        r.path = "/subjects/" + subject + "/versions";
        r.body = "{\"schema\": \"" + schema + "\"}";
        auto answer = broker().schema_registry()->handle(r);
        EXPECT_EQ(answer.status, 200) << answer.body;
        return std::stoi(answer.body.substr(answer.body.find(':') + 1));
    }

    void validate(const std::string& topic, const TopicOverrides& overrides) {
        create_topic(topic);
        ASSERT_EQ(broker().topics().set_overrides(topic, overrides, false).error, ErrorCode::none);
    }

    protocol::PartitionProduceResponse produce(const std::string& topic,
                                               const std::vector<std::byte>& records) {
        auto resp = run(handle_produce, produce_request(topic, 0, records), 9);
        return resp.responses.at(0).partition_responses.at(0);
    }

    int64_t high_watermark(const std::string& topic) {
        return broker().logs().get({topic, 0})->high_watermark();
    }
};

TEST_F(SchemaValidationTest, ValuesMustCarryAnIdRegisteredUnderTheTopicsSubject) {
    validate("orders", {{"confluent.value.schema.validation", "true"}});
    const int32_t id = register_schema("orders-value", "\\\"string\\\"");
    const int32_t other = register_schema("elsewhere-value", "\\\"long\\\"");

    auto ok =
        produce("orders",
                batch_of({{std::nullopt, header(id) + "a"}, {std::string("k"), header(id) + "b"}}));
    EXPECT_EQ(ok.error_code, ErrorCode::none);
    EXPECT_EQ(high_watermark("orders"), 2);

    // Four bad records among good ones: every bad one is listed, nothing is stored.
    auto refused = produce("orders", batch_of({{std::nullopt, header(id) + "fine"},
                                               {std::nullopt, std::string("no header")},
                                               {std::nullopt, header(other) + "x"},
                                               {std::nullopt, header(4242) + "x"},
                                               {std::nullopt, std::nullopt},
                                               {std::nullopt, header(id)}}));
    EXPECT_EQ(refused.error_code, ErrorCode::invalid_record);
    ASSERT_EQ(refused.record_errors.size(), 4u);
    EXPECT_EQ(refused.record_errors[0].batch_index, 1);
    EXPECT_EQ(refused.record_errors[1].batch_index, 2);
    EXPECT_EQ(refused.record_errors[2].batch_index, 3);
    EXPECT_EQ(refused.record_errors[3].batch_index, 4);
    EXPECT_NE(refused.record_errors[1].batch_index_error_message->find("not registered"),
              std::string::npos);
    EXPECT_TRUE(refused.error_message.has_value());
    EXPECT_EQ(high_watermark("orders"), 2);
}

TEST_F(SchemaValidationTest, KeysAreCheckedAgainstTheKeySubject) {
    validate("pay", {{"confluent.key.schema.validation", "true"}});
    const int32_t key_id = register_schema("pay-key", "\\\"string\\\"");
    const int32_t value_id = register_schema("pay-value", "\\\"long\\\"");
    EXPECT_EQ(
        produce("pay", batch_of({{header(key_id) + "k", std::string("any value")}})).error_code,
        ErrorCode::none);
    auto wrong = produce("pay", batch_of({{header(value_id) + "k", std::string("v")}}));
    EXPECT_EQ(wrong.error_code, ErrorCode::invalid_record);
    EXPECT_EQ(high_watermark("pay"), 1);
}

TEST_F(SchemaValidationTest, TopicRecordNameStrategyTakesAnySubjectOfTheTopic) {
    validate("events", {{"confluent.value.schema.validation", "true"},
                        {"confluent.value.subject.name.strategy",
                         "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"}});
    const int32_t id = register_schema("events-shop.Click", "\\\"string\\\"");
    const int32_t foreign = register_schema("other-shop.Click", "\\\"long\\\"");
    EXPECT_EQ(produce("events", batch_of({{std::nullopt, header(id) + "c"}})).error_code,
              ErrorCode::none);
    EXPECT_EQ(produce("events", batch_of({{std::nullopt, header(foreign) + "c"}})).error_code,
              ErrorCode::invalid_record);
}

TEST_F(SchemaValidationTest, WithoutTheConfigsNothingIsChecked) {
    create_topic("free");
    EXPECT_EQ(produce("free", batch_of({{std::nullopt, std::string("anything")}})).error_code,
              ErrorCode::none);
    EXPECT_FALSE(broker().topics().schema_validation("free"));
}

TEST_F(SchemaValidationTest, TheSchemasTopicIsTheRegistrysAlone) {
    broker();
    auto refused = produce("_schemas", batch_of({{std::string("k"), std::string("v")}}));
    EXPECT_EQ(refused.error_code, ErrorCode::invalid_topic_exception);
}

}  // namespace
}  // namespace skiff::broker::test
