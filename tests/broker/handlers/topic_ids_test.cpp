// Topic ids in the handlers: Fetch v13+ names topics by id (UNKNOWN_TOPIC_ID for an id no topic
// holds, the response keyed by id), DeleteTopics v6 deletes by id, CreateTopics v5+ answers with
// the partition count, replication factor and configs, v7 with the new topic's id.
#include <gtest/gtest.h>

#include "broker/topics/topic_ids.h"
#include "handler_fixture.h"
#include "protocol/create_topics.h"
#include "protocol/delete_topics.h"
#include "protocol/fetch.h"
#include "protocol/produce.h"

namespace skiff::broker::test {
namespace {

class TopicIdsTest : public HandlerTest {
  protected:
    protocol::Uuid id_of(const std::string& topic) {
        auto id = broker().topics().topic_id(topic);
        if (!id)
            throw std::runtime_error("no id for " + topic);
        return to_uuid(*id);
    }
    void produce(const std::string& topic, int records) {
        auto batch = make_batch(records);
        protocol::ProduceRequest req;
        req.acks = -1;
        req.topic_data.push_back({topic, {}, {{0, std::span<const std::byte>(batch)}}});
        auto resp = run(handle_produce, req, 9);
        ASSERT_EQ(resp.responses[0].partition_responses[0].error_code, ErrorCode::none);
    }
    protocol::FetchResponse fetch_by_id(const protocol::Uuid& id, int16_t version) {
        protocol::FetchRequest req;
        req.max_bytes = 1 << 20;
        protocol::FetchTopic t;
        t.topic_id = id;
        protocol::FetchPartition p;
        p.partition = 0;
        p.partition_max_bytes = 1 << 20;
        t.partitions.push_back(p);
        req.topics.push_back(t);
        return run(handle_fetch, req, version);
    }
};

TEST_F(TopicIdsTest, FetchByIdReadsTheTopicAtEveryIdVersion) {
    create_topic("t");
    produce("t", 3);
    for (int16_t v = 13; v <= 17; ++v) {
        auto resp = fetch_by_id(id_of("t"), v);
        ASSERT_EQ(resp.responses.size(), 1u) << v;
        EXPECT_EQ(resp.responses[0].topic_id, id_of("t")) << v;
        ASSERT_EQ(resp.responses[0].partitions.size(), 1u);
        const auto& p = resp.responses[0].partitions[0];
        EXPECT_EQ(p.error_code, ErrorCode::none) << v;
        EXPECT_EQ(p.high_watermark, 3);
        auto batches = batches_in(p.records);
        ASSERT_EQ(batches.size(), 1u);
        EXPECT_EQ(batches[0].last_offset_delta, 2);
    }
}

TEST_F(TopicIdsTest, FetchByAnUnknownIdIsUnknownTopicIdPerPartition) {
    create_topic("t");
    protocol::Uuid unknown;
    unknown.bytes[0] = 0x11;
    for (const auto& id : {unknown, protocol::Uuid{}}) {
        auto resp = fetch_by_id(id, 13);
        ASSERT_EQ(resp.responses.size(), 1u);
        EXPECT_EQ(resp.responses[0].topic_id, id);
        EXPECT_EQ(resp.responses[0].partitions.at(0).error_code, ErrorCode::unknown_topic_id);
    }
}

TEST_F(TopicIdsTest, DeletedAndCreatedAgainTheOldIdIsUnknown) {
    create_topic("t");
    const auto old = id_of("t");
    ASSERT_EQ(broker().topics().remove("t"), ErrorCode::none);
    create_topic("t");
    EXPECT_NE(id_of("t"), old);
    EXPECT_EQ(fetch_by_id(old, 13).responses[0].partitions[0].error_code,
              ErrorCode::unknown_topic_id);
    EXPECT_EQ(fetch_by_id(id_of("t"), 13).responses[0].partitions[0].error_code, ErrorCode::none);
}

TEST_F(TopicIdsTest, ProduceV13WritesByIdAndAnUnknownIdStoresNothing) {
    create_topic("t");
    const auto batch = make_batch(2);
    protocol::Uuid unknown;
    unknown.bytes[3] = 0x42;
    protocol::ProduceRequest req;
    req.acks = -1;
    req.topic_data.push_back({"", id_of("t"), {{0, std::span<const std::byte>(batch)}}});
    req.topic_data.push_back({"", unknown, {{0, std::span<const std::byte>(batch)}}});
    req.topic_data.push_back({"", protocol::Uuid{}, {{0, std::span<const std::byte>(batch)}}});
    auto resp = run(handle_produce, req, 13);
    ASSERT_EQ(resp.responses.size(), 3u);
    EXPECT_EQ(resp.responses[0].topic_id, id_of("t"));
    EXPECT_EQ(resp.responses[0].partition_responses.at(0).error_code, ErrorCode::none);
    EXPECT_EQ(resp.responses[0].partition_responses.at(0).base_offset, 0);
    for (size_t i : {1u, 2u}) {
        EXPECT_EQ(resp.responses[i].topic_id, req.topic_data[i].topic_id);
        EXPECT_EQ(resp.responses[i].partition_responses.at(0).error_code,
                  ErrorCode::unknown_topic_id);
    }
    // Only the batch sent by the right id was stored, and a fetch by id reads it back.
    EXPECT_EQ(broker().logs().get({"t", 0})->high_watermark(), 2);
    EXPECT_EQ(batches_in(fetch_by_id(id_of("t"), 13).responses[0].partitions[0].records).size(),
              1u);
}

TEST_F(TopicIdsTest, DeleteTopicsV6ByIdAndByName) {
    create_topic("a");
    create_topic("b");
    const auto id_a = id_of("a");
    const auto id_b = id_of("b");
    protocol::DeleteTopicsRequest req;
    protocol::DeleteTopicState by_id;
    by_id.topic_id = id_a;
    protocol::DeleteTopicState by_name;
    by_name.name = "b";
    protocol::DeleteTopicState both;
    both.name = "c";
    both.topic_id.bytes[4] = 1;  // any non-zero id
    protocol::DeleteTopicState neither;
    protocol::DeleteTopicState unknown;
    unknown.topic_id.bytes[2] = 9;
    req.topics = {by_id, by_name, both, neither, unknown};
    auto resp = run(handle_delete_topics, req, 6);
    ASSERT_EQ(resp.responses.size(), 5u);
    EXPECT_EQ(resp.responses[0].error_code, ErrorCode::none);
    EXPECT_EQ(resp.responses[0].name, std::optional<std::string>("a"));
    EXPECT_EQ(resp.responses[0].topic_id, id_a);
    EXPECT_EQ(resp.responses[1].error_code, ErrorCode::none);
    EXPECT_EQ(resp.responses[1].topic_id, id_b);
    EXPECT_EQ(resp.responses[2].error_code, ErrorCode::invalid_request);
    EXPECT_EQ(resp.responses[3].error_code, ErrorCode::invalid_request);
    EXPECT_EQ(resp.responses[4].error_code, ErrorCode::unknown_topic_id);
    EXPECT_FALSE(broker().topics().partition_count("a"));
    EXPECT_FALSE(broker().topics().partition_count("b"));
}

TEST_F(TopicIdsTest, DeleteTopicsV6RefusesAnIdListedTwice) {
    create_topic("a");
    protocol::DeleteTopicsRequest req;
    protocol::DeleteTopicState by_id;
    by_id.topic_id = id_of("a");
    req.topics = {by_id, by_id};
    auto resp = run(handle_delete_topics, req, 6);
    ASSERT_EQ(resp.responses.size(), 2u);
    EXPECT_EQ(resp.responses[0].error_code, ErrorCode::invalid_request);
    EXPECT_EQ(resp.responses[1].error_code, ErrorCode::invalid_request);
    EXPECT_TRUE(broker().topics().partition_count("a"));
}

TEST_F(TopicIdsTest, CreateTopicsAnswersWithCountsConfigsAndId) {
    protocol::CreateTopicsRequest req;
    protocol::CreatableTopic t;
    t.name = "n";
    t.num_partitions = 3;
    t.configs.push_back({"retention.ms", "1000"});
    req.topics.push_back(t);
    auto resp = run(handle_create_topics, req, 7);
    ASSERT_EQ(resp.topics.size(), 1u);
    const auto& r = resp.topics[0];
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.num_partitions, 3);
    EXPECT_EQ(r.replication_factor, 1);
    EXPECT_EQ(r.topic_id, id_of("n"));
    EXPECT_NE(r.topic_id, protocol::Uuid{});
    ASSERT_TRUE(r.configs);
    bool found = false;
    for (const auto& c : *r.configs) {
        if (c.name != "retention.ms")
            continue;
        found = true;
        EXPECT_EQ(c.value, std::optional<std::string>("1000"));
        EXPECT_EQ(c.config_source, 1);  // DYNAMIC_TOPIC_CONFIG
    }
    EXPECT_TRUE(found);
    // The same name again: the error, no id, an empty config list.
    resp = run(handle_create_topics, req, 7);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::topic_already_exists);
    EXPECT_EQ(resp.topics[0].topic_id, protocol::Uuid{});
    EXPECT_EQ(resp.topics[0].num_partitions, -1);
}

}  // namespace
}  // namespace skiff::broker::test
