// Per-record refusals (KIP-467) as Kafka's LogValidator makes them, and the message.timestamp.*
// topic configs: keyless records on a compacted topic, CreateTime timestamps outside
// message.timestamp.before/after.max.ms (INVALID_TIMESTAMP with each record's index), a batch
// a producer marked LogAppendTime, LogAppendTime topics stamped on append (the response's
// log_append_time_ms, the stored header), and the topic config audit (supported keys,
// no-op replication keys, refused ones with the reason).
#include <gtest/gtest.h>

#include "broker/topics/topic_config.h"
#include "handler_fixture.h"
#include "protocol/compression/batch_recompress.h"
#include "protocol/list_offsets.h"
#include "protocol/produce.h"
#include "storage/log_config.h"

namespace skiff::broker::test {
namespace {

constexpr int64_t kHour = 3'600'000;

// `timestamps.size()` records; record i has timestamps[i] and a key unless i is in `keyless`.
std::vector<std::byte> batch_at(const std::vector<int64_t>& timestamps,
                                const std::vector<int>& keyless = {}, int16_t attributes = 0) {
    protocol::BatchSpec spec;
    spec.base_timestamp = timestamps.at(0);
    spec.attributes = attributes;
    std::vector<protocol::RecordSpec> records;
    for (size_t i = 0; i < timestamps.size(); ++i) {
        protocol::RecordSpec r;
        if (std::find(keyless.begin(), keyless.end(), static_cast<int>(i)) == keyless.end())
            r.key = "k" + std::to_string(i);
        r.value = "v" + std::to_string(i);
        r.timestamp_delta = timestamps[i] - spec.base_timestamp;
        records.push_back(std::move(r));
    }
    return protocol::build_record_batch(spec, records);
}

class RecordErrorsTest : public HandlerTest {
  protected:
    protocol::PartitionProduceResponse produce(const std::string& topic,
                                               const std::vector<std::byte>& batch,
                                               int16_t version = 9) {
        protocol::ProduceRequest req;
        req.acks = -1;
        req.timeout_ms = 1000;
        req.topic_data.push_back({topic, {}, {{0, std::span<const std::byte>(batch)}}});
        return run(handle_produce, req, version).responses.at(0).partition_responses.at(0);
    }
    int64_t end_offset(const std::string& topic) {
        return broker().logs().get({topic, 0})->log_end_offset();
    }
    static int64_t now() { return storage::wall_clock_ms(); }
    std::vector<int32_t> indexes(const protocol::PartitionProduceResponse& r) {
        std::vector<int32_t> out;
        for (const auto& e : r.record_errors)
            out.push_back(e.batch_index);
        return out;
    }
    protocol::CreatableTopicResult create(const std::string& topic,
                                          std::vector<protocol::CreatableTopicConfig> configs) {
        protocol::CreateTopicsRequest req;
        protocol::CreatableTopic t;
        t.name = topic;
        t.num_partitions = 1;
        t.replication_factor = 1;
        t.configs = std::move(configs);
        req.topics.push_back(std::move(t));
        req.timeout_ms = 1000;
        return run(handle_create_topics, req, 7).topics.at(0);
    }
    protocol::AlterConfigsResourceResponse incremental(
        const std::string& topic, std::vector<protocol::AlterableConfigOp> ops) {
        protocol::IncrementalAlterConfigsRequest req;
        req.resources.push_back({protocol::kResourceTypeTopic, topic, std::move(ops)});
        return run(handle_incremental_alter_configs, req, 1).responses.at(0);
    }
    std::optional<protocol::DescribeConfigsResourceResult> describe(const std::string& topic,
                                                                    const std::string& key) {
        protocol::DescribeConfigsRequest req;
        req.resources.push_back(
            {protocol::kResourceTypeTopic, topic, std::vector<std::string>{key}});
        auto resp = run(handle_describe_configs, req, 4);
        const auto& result = resp.results.at(0);
        if (result.configs.size() != 1)
            return std::nullopt;
        return result.configs[0];
    }
};

// ---- keyless records on a compacted topic ----------------------------------------------------

TEST_F(RecordErrorsTest, OnlyTheKeylessRecordsAreListedAndNothingIsStored) {
    create_topic("c", 1, {{"cleanup.policy", "compact,delete"}});
    std::vector<int64_t> ts(100, now());
    std::vector<int> keyless;
    for (int i = 0; i < 100; i += 10)
        keyless.push_back(i);
    auto r = produce("c", batch_at(ts, keyless));
    EXPECT_EQ(r.error_code, ErrorCode::invalid_record);
    EXPECT_EQ(indexes(r), (std::vector<int32_t>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}));
    for (const auto& e : r.record_errors)
        EXPECT_EQ(e.batch_index_error_message,
                  "Compacted topic cannot accept message without key in topic partition c-0.");
    ASSERT_TRUE(r.error_message);
    EXPECT_EQ(r.error_message->rfind("One or more records have been rejected due to 10 record "
                                     "errors in total, and only showing the first three errors "
                                     "at most: [RecordError(batchIndex=0, message='Compacted",
                                     0),
              0u)
        << *r.error_message;
    EXPECT_EQ(end_offset("c"), 0);
    EXPECT_EQ(r.base_offset, -1);
}

// ---- timestamp bounds (KIP-937) --------------------------------------------------------------

TEST_F(RecordErrorsTest, RecordsTooOldOrTooNewAreInvalidTimestampWithTheirIndexes) {
    create_topic("t", 1,
                 {{"message.timestamp.before.max.ms", std::to_string(kHour)},
                  {"message.timestamp.after.max.ms", std::to_string(kHour)}});
    const int64_t t = now();
    auto r = produce("t", batch_at({t, t - 3 * kHour, t + 60'000, t + 3 * kHour, t}));
    EXPECT_EQ(r.error_code, ErrorCode::invalid_timestamp);
    EXPECT_EQ(r.error_message, "One or more records have been rejected due to invalid timestamp");
    EXPECT_EQ(indexes(r), (std::vector<int32_t>{1, 3}));
    ASSERT_TRUE(r.record_errors[0].batch_index_error_message);
    EXPECT_EQ(r.record_errors[0].batch_index_error_message->rfind(
                  "Timestamp " + std::to_string(t - 3 * kHour) +
                      " of message with offset 1 is out of range. The timestamp should be within [",
                  0),
              0u);
    EXPECT_EQ(end_offset("t"), 0);

    EXPECT_EQ(produce("t", batch_at({t, t + 60'000, t - 60'000})).error_code, ErrorCode::none);
    EXPECT_EQ(end_offset("t"), 3);
}

TEST_F(RecordErrorsTest, CompressedBatchesAreCheckedRecordByRecord) {
    create_topic("z", 1, {{"message.timestamp.before.max.ms", std::to_string(kHour)}});
    const int64_t t = now();
    std::vector<int64_t> ts(40, t);
    ts[17] = t - 2 * kHour;
    std::vector<std::byte> scratch, zstd;
    ASSERT_TRUE(protocol::compression::recompress_batch(batch_at(ts), protocol::Compression::zstd,
                                                        1 << 30, scratch, zstd));
    auto r = produce("z", zstd);
    EXPECT_EQ(r.error_code, ErrorCode::invalid_timestamp);
    EXPECT_EQ(indexes(r), (std::vector<int32_t>{17}));
    EXPECT_EQ(end_offset("z"), 0);
}

TEST_F(RecordErrorsTest, DefaultsRefuseOnlyMoreThanAnHourAhead) {
    create_topic("d");
    const int64_t t = now();
    EXPECT_EQ(produce("d", batch_at({1000, t - 100 * kHour, t})).error_code, ErrorCode::none);
    auto r = produce("d", batch_at({t, t + 2 * kHour}));
    EXPECT_EQ(r.error_code, ErrorCode::invalid_timestamp);
    EXPECT_EQ(indexes(r), (std::vector<int32_t>{1}));
    // -1 is "no timestamp": never out of range.
    EXPECT_EQ(produce("d", batch_at({-1})).error_code, ErrorCode::none);
}

TEST_F(RecordErrorsTest, TheBrokerDefaultsApply) {
    config.log_message_timestamp_before_max_ms = kHour;
    create_topic("b");
    const int64_t t = now();
    EXPECT_EQ(produce("b", batch_at({t - 2 * kHour})).error_code, ErrorCode::invalid_timestamp);
    EXPECT_EQ(produce("b", batch_at({t - kHour / 2})).error_code, ErrorCode::none);
}

TEST_F(RecordErrorsTest, TheDeprecatedDifferenceBoundsBothSidesLeftAtTheirDefaults) {
    create_topic("x", 1, {{"message.timestamp.difference.max.ms", "60000"}});
    const int64_t t = now();
    EXPECT_EQ(produce("x", batch_at({t - 120'000})).error_code, ErrorCode::invalid_timestamp);
    EXPECT_EQ(produce("x", batch_at({t + 120'000})).error_code, ErrorCode::invalid_timestamp);
    EXPECT_EQ(produce("x", batch_at({t})).error_code, ErrorCode::none);
    // An explicit before/after wins over it.
    create_topic("y", 1,
                 {{"message.timestamp.difference.max.ms", "60000"},
                  {"message.timestamp.before.max.ms", std::to_string(10 * kHour)}});
    EXPECT_EQ(produce("y", batch_at({t - 120'000})).error_code, ErrorCode::none);
}

TEST_F(RecordErrorsTest, KeyErrorsComeFirstAndTimestampErrorsMakeItInvalidTimestamp) {
    create_topic("ck", 1,
                 {{"cleanup.policy", "compact"}, {"message.timestamp.after.max.ms", "1000"}});
    const int64_t t = now();
    // Only keys wrong: INVALID_RECORD.
    auto keys = produce("ck", batch_at({t, t, t}, {1, 2}));
    EXPECT_EQ(keys.error_code, ErrorCode::invalid_record);
    EXPECT_EQ(indexes(keys), (std::vector<int32_t>{1, 2}));
    // Record 2 has no key and a bad timestamp: Kafka reports the key. Record 3's timestamp
    // makes the partition's error INVALID_TIMESTAMP.
    auto r = produce("ck", batch_at({t, t, t + kHour, t + kHour}, {1, 2}));
    EXPECT_EQ(r.error_code, ErrorCode::invalid_timestamp);
    EXPECT_EQ(indexes(r), (std::vector<int32_t>{1, 2, 3}));
    EXPECT_NE(r.record_errors[1].batch_index_error_message->find("without key"), std::string::npos);
    EXPECT_NE(r.record_errors[2].batch_index_error_message->find("out of range"),
              std::string::npos);
    EXPECT_EQ(end_offset("ck"), 0);
}

TEST_F(RecordErrorsTest, AProducerCannotSendLogAppendTimeBatches) {
    create_topic("p");
    const int64_t t = now();
    auto r = produce("p", batch_at({t, t, t}, {}, /*attributes=*/0x08));
    EXPECT_EQ(r.error_code, ErrorCode::invalid_timestamp);
    EXPECT_EQ(indexes(r), (std::vector<int32_t>{0, 1, 2}));
    EXPECT_EQ(end_offset("p"), 0);
}

// ---- message.timestamp.type ------------------------------------------------------------------

TEST_F(RecordErrorsTest, LogAppendTimeTopicsAreStampedAndAnsweredWithTheTime) {
    create_topic("lat", 1, {{"message.timestamp.type", "LogAppendTime"}});
    create_topic("ct");
    const int64_t before = now();
    // Out of any bound: LogAppendTime topics do not check the producer's timestamps.
    auto r = produce("lat", batch_at({1000, 2000}));
    const int64_t after = now();
    ASSERT_EQ(r.error_code, ErrorCode::none);
    EXPECT_GE(r.log_append_time_ms, before);
    EXPECT_LE(r.log_append_time_ms, after);
    EXPECT_EQ(produce("ct", batch_at({before})).log_append_time_ms, -1);

    auto* log = broker().logs().get({"lat", 0});
    auto max = log->max_timestamp();
    ASSERT_TRUE(max);
    EXPECT_EQ(max->timestamp, r.log_append_time_ms);
    EXPECT_EQ(log->offset_for_timestamp(before)->offset, 0);
}

TEST_F(RecordErrorsTest, MaxTimestampOfALogAppendTimeTopicIsItsBatchsFirstOffset) {
    create_topic("lat", 1, {{"message.timestamp.type", "LogAppendTime"}});
    const int64_t first = produce("lat", batch_at({1000, 1001, 1002})).log_append_time_ms;
    const int64_t second = produce("lat", batch_at({5, 6, 7})).log_append_time_ms;
    protocol::ListOffsetsRequest req;
    req.topics.push_back({"lat", {{0, -1, protocol::kListOffsetsMaxTimestamp, 1}}});
    auto max = run(handle_list_offsets, req, 7).topics.at(0).partitions.at(0);
    EXPECT_EQ(max.timestamp, second);
    // Every record of a LogAppendTime batch carries its time: the earliest record with the
    // max is the first of the first batch stamped with it, as Kafka answers.
    EXPECT_EQ(max.offset, first == second ? 0 : 3);
}

TEST_F(RecordErrorsTest, TheBrokerDefaultTimestampTypeApplies) {
    config.log_message_timestamp_type = "LogAppendTime";
    create_topic("all");
    EXPECT_GE(produce("all", batch_at({1000})).log_append_time_ms, 0);
    create_topic("own", 1, {{"message.timestamp.type", "CreateTime"}});
    EXPECT_EQ(produce("own", batch_at({now()})).log_append_time_ms, -1);
}

TEST_F(RecordErrorsTest, AlteringTheTypeReachesTheOpenPartition) {
    create_topic("alt");
    EXPECT_EQ(produce("alt", batch_at({now()})).log_append_time_ms, -1);
    auto a = incremental(
        "alt", {{"message.timestamp.type", protocol::kConfigOpSet, std::string("LogAppendTime")}});
    ASSERT_EQ(a.error_code, ErrorCode::none) << a.error_message.value_or("");
    EXPECT_GE(produce("alt", batch_at({now()})).log_append_time_ms, 0);
    auto d = describe("alt", "message.timestamp.type");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->value, "LogAppendTime");
}

// ---- topic config audit ----------------------------------------------------------------------

TEST_F(RecordErrorsTest, TimestampConfigsAreValidated) {
    EXPECT_NE(create("bad1", {{"message.timestamp.type", std::string("Wallclock")}}).error_code,
              ErrorCode::none);
    EXPECT_NE(create("bad2", {{"message.timestamp.before.max.ms", std::string("-1")}}).error_code,
              ErrorCode::none);
    EXPECT_EQ(create("good", {{"message.timestamp.type", std::string("LogAppendTime")},
                              {"message.timestamp.after.max.ms", std::string("0")}})
                  .error_code,
              ErrorCode::none);
}

TEST_F(RecordErrorsTest, ReplicationKeysAreAcceptedAsNoOps) {
    auto r = create("rep", {{"min.insync.replicas", std::string("2")},
                            {"unclean.leader.election.enable", std::string("true")},
                            {"leader.replication.throttled.replicas", std::string("0:1,1:1")},
                            {"follower.replication.throttled.replicas", std::string("*")}});
    ASSERT_EQ(r.error_code, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(describe("rep", "min.insync.replicas")->value, "2");
    EXPECT_NE(create("rep2", {{"min.insync.replicas", std::string("0")}}).error_code,
              ErrorCode::none);
    EXPECT_NE(
        create("rep3", {{"leader.replication.throttled.replicas", std::string("x")}}).error_code,
        ErrorCode::none);
}

TEST_F(RecordErrorsTest, UnsupportedKafkaKeysAreRefusedSayingWhy) {
    for (const char* key :
         {"remote.storage.enable", "local.retention.ms", "local.retention.bytes",
          "remote.log.copy.disable", "remote.log.delete.on.disable", "compression.gzip.level",
          "compression.lz4.level", "compression.zstd.level", "preallocate", "segment.jitter.ms",
          "message.downconversion.enable"}) {
        auto r = create("u", {{key, std::string("1")}});
        EXPECT_EQ(r.error_code, ErrorCode::invalid_config) << key;
        ASSERT_TRUE(r.error_message) << key;
        EXPECT_NE(r.error_message->find("not supported by skiff"), std::string::npos)
            << *r.error_message;
    }
    // Kafka's defaults of those keys are what skiff does: accepted, stored and shown, so tools
    // that send every key with its default work.
    auto defaults = create("defaults", {{"remote.storage.enable", std::string("false")},
                                        {"local.retention.ms", std::string("-2")},
                                        {"compression.zstd.level", std::string("3")},
                                        {"preallocate", std::string("false")},
                                        {"segment.jitter.ms", std::string("0")},
                                        {"message.downconversion.enable", std::string("true")}});
    ASSERT_EQ(defaults.error_code, ErrorCode::none) << defaults.error_message.value_or("");
    EXPECT_EQ(describe("defaults", "preallocate")->value, "false");
    EXPECT_EQ(describe("defaults", "compression.gzip.level")->value, "-1");
    create_topic("existing");
    auto a = incremental("existing",
                         {{"remote.storage.enable", protocol::kConfigOpSet, std::string("true")}});
    EXPECT_EQ(a.error_code, ErrorCode::invalid_config);
    EXPECT_NE(a.error_message.value_or("").find("tiered storage"), std::string::npos);
    auto unknown = create("u2", {{"no.such.key", std::string("1")}});
    EXPECT_EQ(unknown.error_code, ErrorCode::invalid_config);
}

TEST_F(RecordErrorsTest, EveryKafkaTopicConfigIsSupportedOrRefused) {
    // Kafka 3.9's TopicConfig, LogConfig and QuotaConfig topic keys.
    const char* kafka_keys[] = {"cleanup.policy",
                                "compression.gzip.level",
                                "compression.lz4.level",
                                "compression.type",
                                "compression.zstd.level",
                                "delete.retention.ms",
                                "file.delete.delay.ms",
                                "flush.messages",
                                "flush.ms",
                                "follower.replication.throttled.replicas",
                                "index.interval.bytes",
                                "leader.replication.throttled.replicas",
                                "local.retention.bytes",
                                "local.retention.ms",
                                "max.compaction.lag.ms",
                                "max.message.bytes",
                                "message.downconversion.enable",
                                "message.format.version",
                                "message.timestamp.after.max.ms",
                                "message.timestamp.before.max.ms",
                                "message.timestamp.difference.max.ms",
                                "message.timestamp.type",
                                "min.cleanable.dirty.ratio",
                                "min.compaction.lag.ms",
                                "min.insync.replicas",
                                "preallocate",
                                "remote.log.copy.disable",
                                "remote.log.delete.on.disable",
                                "remote.storage.enable",
                                "retention.bytes",
                                "retention.ms",
                                "segment.bytes",
                                "segment.index.bytes",
                                "segment.jitter.ms",
                                "segment.ms",
                                "unclean.leader.election.enable"};
    create_topic("all");
    for (const char* key : kafka_keys) {
        const bool supported = std::any_of(topic_config_keys().begin(), topic_config_keys().end(),
                                           [&](const TopicConfigKey& k) { return k.name == key; });
        if (supported) {
            auto d = describe("all", key);
            ASSERT_TRUE(d) << key;
            EXPECT_FALSE(d->value.value_or("").empty() &&
                         std::string_view(key).find("throttled") == std::string::npos)
                << key << " has no default";
        } else {
            auto why = invalid_topic_config(key, "1");
            ASSERT_TRUE(why) << key;
            EXPECT_NE(why->find("not supported by skiff"), std::string::npos) << *why;
        }
    }
}

}  // namespace
}  // namespace skiff::broker::test
