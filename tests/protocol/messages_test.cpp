// Round trips for every message at every supported version: encode a populated message, decode it,
// check the fields that exist in that version (and defaults for those that do not), re-encode and
// require identical bytes, and require every truncated prefix to fail cleanly.
#include <gtest/gtest.h>

#include "protocol/api_table.h"
#include "protocol/protocol.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::for_each_version;
using test::round_trip;

Uuid uuid_of(uint8_t seed) {
    Uuid u;
    for (size_t i = 0; i < 16; ++i)
        u.bytes[i] = static_cast<uint8_t>(seed + i);
    return u;
}

TEST(RoundTrip, ApiVersionsRequest) {
    ApiVersionsRequest m;
    m.client_software_name = "librdkafka";
    m.client_software_version = "2.0.2";
    for_each_version(ApiKey::api_versions, [&](int16_t v) {
        round_trip(m, v, [&](const ApiVersionsRequest& d) {
            EXPECT_EQ(d.client_software_name, v >= 3 ? "librdkafka" : "");
            EXPECT_EQ(d.client_software_version, v >= 3 ? "2.0.2" : "");
        });
    });
}

TEST(RoundTrip, ApiVersionsResponse) {
    ApiVersionsResponse m = make_api_versions_response();
    m.throttle_time_ms = 12;
    m.supported_features.push_back({"metadata.version", 1, 7});
    m.finalized_features_epoch = 3;
    m.finalized_features.push_back({"metadata.version", 7, 1});
    m.zk_migration_ready = true;
    for_each_version(ApiKey::api_versions, [&](int16_t v) {
        round_trip(m, v, [&](const ApiVersionsResponse& d) {
            ASSERT_EQ(d.api_keys.size(), m.api_keys.size());
            EXPECT_EQ(d.api_keys[1].api_key, m.api_keys[1].api_key);
            EXPECT_EQ(d.api_keys[1].max_version, m.api_keys[1].max_version);
            EXPECT_EQ(d.throttle_time_ms, v >= 1 ? 12 : 0);
            EXPECT_EQ(d.supported_features.size(), v >= 3 ? 1u : 0u);
            EXPECT_EQ(d.finalized_features_epoch,
                      v >= 3 ? std::optional<int64_t>(3) : std::nullopt);
            EXPECT_EQ(d.finalized_features.size(), v >= 3 ? 1u : 0u);
            EXPECT_EQ(d.zk_migration_ready, v >= 3 ? std::optional<bool>(true) : std::nullopt);
        });
    });
}

TEST(RoundTrip, MetadataRequest) {
    for_each_version(ApiKey::metadata, [&](int16_t v) {
        MetadataRequest m;
        m.topics = std::vector<MetadataRequestTopic>{{uuid_of(1), "orders"}, {uuid_of(2), "logs"}};
        m.allow_auto_topic_creation = false;
        m.include_cluster_authorized_operations = true;
        m.include_topic_authorized_operations = true;
        round_trip(m, v, [&](const MetadataRequest& d) {
            ASSERT_TRUE(d.topics);
            ASSERT_EQ(d.topics->size(), 2u);
            EXPECT_EQ((*d.topics)[0].name, "orders");
            EXPECT_EQ((*d.topics)[1].topic_id, v >= 10 ? uuid_of(2) : Uuid{});
            EXPECT_EQ(d.allow_auto_topic_creation, v >= 4 ? false : true);
            EXPECT_EQ(d.include_cluster_authorized_operations, v >= 8 && v <= 10);
            EXPECT_EQ(d.include_topic_authorized_operations, v >= 8);
        });
        if (v >= 1) {
            MetadataRequest all;  // null topics: all topics
            round_trip(all, v, [](const MetadataRequest& d) { EXPECT_FALSE(d.topics); });
        }
        MetadataRequest none;
        none.topics.emplace();
        round_trip(none, v, [](const MetadataRequest& d) {
            ASSERT_TRUE(d.topics);
            EXPECT_TRUE(d.topics->empty());
        });
    });
}

TEST(RoundTrip, MetadataRequestV0NullTopicsIsAnError) {
    auto body = test::bytes({0xff, 0xff, 0xff, 0xff});
    auto d = decode_message<MetadataRequest>(body, 0);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().field, "topics");
    EXPECT_TRUE(decode_message<MetadataRequest>(body, 1));
}

MetadataResponse populated_metadata_response() {
    MetadataResponse m;
    m.throttle_time_ms = 5;
    m.brokers.push_back({1, "localhost", 9092, "rack-a"});
    m.brokers.push_back({2, "other", 9093, std::nullopt});
    m.cluster_id = "skiff-cluster";
    m.controller_id = 1;
    MetadataResponseTopic t;
    t.error_code = ErrorCode::none;
    t.name = "orders";
    t.topic_id = uuid_of(9);
    t.is_internal = true;
    t.topic_authorized_operations = 0x0f;
    MetadataResponsePartition p;
    p.error_code = ErrorCode::leader_not_available;
    p.partition_index = 3;
    p.leader_id = 1;
    p.leader_epoch = 4;
    p.replica_nodes = {1, 2};
    p.isr_nodes = {1};
    p.offline_replicas = {2};
    t.partitions = {p};
    m.topics = {t};
    m.cluster_authorized_operations = 0x33;
    return m;
}

TEST(RoundTrip, MetadataResponse) {
    MetadataResponse m = populated_metadata_response();
    m.error_code = ErrorCode::rebootstrap_required;
    for_each_version(ApiKey::metadata, [&](int16_t v) {
        round_trip(m, v, [&](const MetadataResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 3 ? 5 : 0);
            // v13 (KIP-1102) carries a top-level error code.
            EXPECT_EQ(d.error_code, v >= 13 ? ErrorCode::rebootstrap_required : ErrorCode::none);
            ASSERT_EQ(d.brokers.size(), 2u);
            EXPECT_EQ(d.brokers[0].host, "localhost");
            EXPECT_EQ(d.brokers[0].port, 9092);
            EXPECT_EQ(d.brokers[0].rack,
                      v >= 1 ? std::optional<std::string>("rack-a") : std::nullopt);
            EXPECT_EQ(d.brokers[1].rack, std::nullopt);
            EXPECT_EQ(d.cluster_id,
                      v >= 2 ? std::optional<std::string>("skiff-cluster") : std::nullopt);
            EXPECT_EQ(d.controller_id, v >= 1 ? 1 : -1);
            ASSERT_EQ(d.topics.size(), 1u);
            const auto& t = d.topics[0];
            EXPECT_EQ(t.name, "orders");
            EXPECT_EQ(t.topic_id, v >= 10 ? uuid_of(9) : Uuid{});
            EXPECT_EQ(t.is_internal, v >= 1);
            EXPECT_EQ(t.topic_authorized_operations, v >= 8 ? 0x0f : kAuthorizedOperationsOmitted);
            ASSERT_EQ(t.partitions.size(), 1u);
            const auto& p = t.partitions[0];
            EXPECT_EQ(p.error_code, ErrorCode::leader_not_available);
            EXPECT_EQ(p.partition_index, 3);
            EXPECT_EQ(p.leader_epoch, v >= 7 ? 4 : -1);
            EXPECT_EQ(p.replica_nodes, (std::vector<int32_t>{1, 2}));
            EXPECT_EQ(p.isr_nodes, std::vector<int32_t>{1});
            EXPECT_EQ(p.offline_replicas,
                      v >= 5 ? std::vector<int32_t>{2} : std::vector<int32_t>{});
            EXPECT_EQ(d.cluster_authorized_operations,
                      v >= 8 && v <= 10 ? 0x33 : kAuthorizedOperationsOmitted);
        });
    });
}

TEST(RoundTrip, ProduceRequest) {
    auto batch = build_record_batch({}, {{"k", "v", {}, 0}, {std::nullopt, "v2", {}, 1}});
    for_each_version(ApiKey::produce, [&](int16_t v) {
        ProduceRequest m;
        m.transactional_id = "txn-1";
        m.acks = -1;
        m.timeout_ms = 30000;
        const Uuid id = uuid_of(7);
        m.topic_data.push_back(
            {"orders", id, {{0, std::span<const std::byte>(batch)}, {1, std::nullopt}}});
        round_trip(m, v, [&](const ProduceRequest& d) {
            EXPECT_EQ(d.transactional_id,
                      v >= 3 ? std::optional<std::string>("txn-1") : std::nullopt);
            EXPECT_EQ(d.acks, -1);
            EXPECT_EQ(d.timeout_ms, 30000);
            ASSERT_EQ(d.topic_data.size(), 1u);
            // v13 (KIP-516) names the topic by id only.
            EXPECT_EQ(d.topic_data[0].name, v <= 12 ? "orders" : "");
            EXPECT_EQ(d.topic_data[0].topic_id, v >= 13 ? id : Uuid{});
            ASSERT_EQ(d.topic_data[0].partition_data.size(), 2u);
            const auto& p = d.topic_data[0].partition_data[0];
            EXPECT_EQ(p.index, 0);
            ASSERT_TRUE(p.records);
            EXPECT_TRUE(
                std::equal(p.records->begin(), p.records->end(), batch.begin(), batch.end()));
            EXPECT_FALSE(d.topic_data[0].partition_data[1].records);
        });
    });
}

TEST(RoundTrip, ProduceRecordsAreAViewIntoTheFrame) {
    auto batch = build_record_batch({}, {{"k", "v", {}, 0}});
    ProduceRequest m;
    m.acks = 1;
    m.topic_data.push_back({"t", {}, {{0, std::span<const std::byte>(batch)}}});
    auto frame = encode_request(m, 7, 1, "client");
    auto h = decode_request_header(std::span(frame).subspan(4));
    ASSERT_TRUE(h);
    auto body = std::span(frame).subspan(4 + h->body_offset);
    auto d = decode_message<ProduceRequest>(body, 7);
    ASSERT_TRUE(d);
    const auto& records = *d->topic_data[0].partition_data[0].records;
    EXPECT_GE(records.data(), frame.data());
    EXPECT_LE(records.data() + records.size(), frame.data() + frame.size());
    EXPECT_TRUE(validate_batches(records));
}

TEST(RoundTrip, ProduceResponse) {
    ProduceResponse m;
    m.throttle_time_ms = 7;
    PartitionProduceResponse p;
    p.index = 2;
    p.error_code = ErrorCode::invalid_record;
    p.base_offset = 100;
    p.log_append_time_ms = 1700000000000;
    p.log_start_offset = 10;
    p.record_errors = {{0, "bad"}, {1, std::nullopt}};
    p.error_message = "dropped";
    p.current_leader = ProduceLeaderIdAndEpoch{3, 9};
    const Uuid id = uuid_of(8);
    m.responses.push_back({"orders", id, {p}});
    m.node_endpoints = {{3, "broker3", 9093, std::nullopt}, {4, "broker4", 9094, "rack-a"}};
    for_each_version(ApiKey::produce, [&](int16_t v) {
        round_trip(m, v, [&](const ProduceResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 1 ? 7 : 0);
            ASSERT_EQ(d.responses.size(), 1u);
            EXPECT_EQ(d.responses[0].name, v <= 12 ? "orders" : "");
            EXPECT_EQ(d.responses[0].topic_id, v >= 13 ? id : Uuid{});
            const auto& q = d.responses[0].partition_responses.at(0);
            EXPECT_EQ(q.index, 2);
            EXPECT_EQ(q.error_code, ErrorCode::invalid_record);
            EXPECT_EQ(q.base_offset, 100);
            EXPECT_EQ(q.log_append_time_ms, v >= 2 ? 1700000000000 : -1);
            EXPECT_EQ(q.log_start_offset, v >= 5 ? 10 : -1);
            EXPECT_EQ(q.record_errors.size(), v >= 8 ? 2u : 0u);
            EXPECT_EQ(q.error_message,
                      v >= 8 ? std::optional<std::string>("dropped") : std::nullopt);
            // v10+ tagged fields (KIP-951).
            ASSERT_EQ(q.current_leader.has_value(), v >= 10);
            ASSERT_EQ(d.node_endpoints.size(), v >= 10 ? 2u : 0u);
            if (v >= 10) {
                EXPECT_EQ(q.current_leader->leader_id, 3);
                EXPECT_EQ(q.current_leader->leader_epoch, 9);
                EXPECT_EQ(d.node_endpoints[1].host, "broker4");
                EXPECT_EQ(d.node_endpoints[1].port, 9094);
                EXPECT_EQ(d.node_endpoints[1].rack, "rack-a");
                EXPECT_FALSE(d.node_endpoints[0].rack);
            }
        });
    });
}

TEST(RoundTrip, FetchRequest) {
    FetchRequest m;
    m.cluster_id = "cluster";
    m.replica_id = -1;
    m.max_wait_ms = 500;
    m.min_bytes = 1;
    m.max_bytes = 52428800;
    m.isolation_level = 1;
    m.session_id = 11;
    m.session_epoch = 2;
    m.replica_state = ReplicaState{-1, 9};
    FetchTopic t;
    t.topic = "orders";
    t.topic_id.bytes[0] = 0x42;
    t.partitions.push_back({0, 5, 42, 4, 3, 1048576, std::nullopt, 77});
    protocol::Uuid dir_id;
    dir_id.bytes[15] = 3;
    t.partitions[0].replica_directory_id = dir_id;
    m.topics = {t};
    m.forgotten_topics_data.push_back({"old", {}, {1, 2}});
    m.rack_id = "rack-a";
    for_each_version(ApiKey::fetch, [&](int16_t v) {
        round_trip(m, v, [&](const FetchRequest& d) {
            EXPECT_EQ(d.cluster_id, v >= 12 ? std::optional<std::string>("cluster") : std::nullopt);
            EXPECT_EQ(d.max_wait_ms, 500);
            EXPECT_EQ(d.min_bytes, 1);
            EXPECT_EQ(d.max_bytes, v >= 3 ? 52428800 : 0x7fffffff);
            EXPECT_EQ(d.isolation_level, v >= 4 ? 1 : 0);
            EXPECT_EQ(d.session_id, v >= 7 ? 11 : 0);
            EXPECT_EQ(d.session_epoch, v >= 7 ? 2 : -1);
            ASSERT_EQ(d.topics.size(), 1u);
            // v13 names topics by id only.
            EXPECT_EQ(d.topics[0].topic, v <= 12 ? "orders" : "");
            EXPECT_EQ(d.topics[0].topic_id, v >= 13 ? t.topic_id : protocol::Uuid{});
            EXPECT_EQ(d.replica_state.has_value(), v >= 15);
            if (d.replica_state) {
                EXPECT_EQ(d.replica_state->replica_epoch, 9);
            }
            const auto& p = d.topics[0].partitions.at(0);
            EXPECT_EQ(p.replica_directory_id,
                      v >= 17 ? std::optional<protocol::Uuid>(dir_id) : std::nullopt);
            EXPECT_EQ(p.high_watermark, v >= 18 ? std::optional<int64_t>(77) : std::nullopt);
            EXPECT_EQ(p.partition, 0);
            EXPECT_EQ(p.current_leader_epoch, v >= 9 ? 5 : -1);
            EXPECT_EQ(p.fetch_offset, 42);
            EXPECT_EQ(p.last_fetched_epoch, v >= 12 ? 4 : -1);
            EXPECT_EQ(p.log_start_offset, v >= 5 ? 3 : -1);
            EXPECT_EQ(p.partition_max_bytes, 1048576);
            EXPECT_EQ(d.forgotten_topics_data.size(), v >= 7 ? 1u : 0u);
            EXPECT_EQ(d.rack_id, v >= 11 ? "rack-a" : "");
        });
    });
}

TEST(RoundTrip, FetchResponse) {
    auto batch = build_record_batch({}, {{"k", "v", {{"h", "x"}}, 0}});
    FetchResponse m;
    m.throttle_time_ms = 1;
    m.error_code = ErrorCode::none;
    m.session_id = 77;
    PartitionData p;
    p.partition_index = 0;
    p.high_watermark = 10;
    p.last_stable_offset = 9;
    p.log_start_offset = 2;
    p.diverging_epoch = EpochEndOffset{3, 8};
    p.current_leader = LeaderIdAndEpoch{1, 6};
    p.snapshot_id = SnapshotId{5, 2};
    p.aborted_transactions = std::vector<AbortedTransaction>{{1000, 4}};
    p.preferred_read_replica = -1;
    p.records.inline_bytes = batch;
    PartitionData empty;
    empty.partition_index = 1;
    empty.error_code = ErrorCode::offset_out_of_range;
    empty.records.is_null = true;
    protocol::Uuid id;
    id.bytes[1] = 0x99;
    m.responses.push_back({"orders", id, {p, empty}});
    m.node_endpoints.push_back({1, "localhost", 9092, std::nullopt});
    for_each_version(ApiKey::fetch, [&](int16_t v) {
        round_trip(m, v, [&](const FetchResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 1 ? 1 : 0);
            EXPECT_EQ(d.session_id, v >= 7 ? 77 : 0);
            ASSERT_EQ(d.responses.size(), 1u);
            EXPECT_EQ(d.responses[0].topic, v <= 12 ? "orders" : "");
            EXPECT_EQ(d.responses[0].topic_id, v >= 13 ? id : protocol::Uuid{});
            ASSERT_EQ(d.node_endpoints.size(), v >= 16 ? 1u : 0u);
            if (v >= 16) {
                EXPECT_EQ(d.node_endpoints[0].host, "localhost");
            }
            ASSERT_EQ(d.responses[0].partitions.size(), 2u);
            const auto& q = d.responses[0].partitions[0];
            EXPECT_EQ(q.high_watermark, 10);
            EXPECT_EQ(q.last_stable_offset, v >= 4 ? 9 : -1);
            EXPECT_EQ(q.log_start_offset, v >= 5 ? 2 : -1);
            EXPECT_EQ(q.diverging_epoch,
                      v >= 12 ? std::optional(EpochEndOffset{3, 8}) : std::nullopt);
            EXPECT_EQ(q.current_leader,
                      v >= 12 ? std::optional(LeaderIdAndEpoch{1, 6}) : std::nullopt);
            EXPECT_EQ(q.snapshot_id, v >= 12 ? std::optional(SnapshotId{5, 2}) : std::nullopt);
            ASSERT_EQ(q.aborted_transactions.has_value(), v >= 4);
            if (v >= 4)
                EXPECT_EQ(q.aborted_transactions->at(0), (AbortedTransaction{1000, 4}));
            EXPECT_EQ(q.records.inline_bytes, batch);
            EXPECT_FALSE(q.records.is_null);
            const auto& e = d.responses[0].partitions[1];
            EXPECT_EQ(e.error_code, ErrorCode::offset_out_of_range);
            EXPECT_TRUE(e.records.is_null);
            EXPECT_FALSE(e.aborted_transactions);
        });
    });
}

TEST(RoundTrip, DescribeTopicPartitions) {
    DescribeTopicPartitionsRequest m;
    m.topics.push_back({"a"});
    m.response_partition_limit = 7;
    for (bool with_cursor : {false, true}) {
        m.cursor = with_cursor ? std::optional(protocol::DescribeTopicPartitionsCursor{"a", 3})
                               : std::nullopt;
        for_each_version(ApiKey::describe_topic_partitions, [&](int16_t v) {
            round_trip(m, v, [&](const DescribeTopicPartitionsRequest& d) {
                ASSERT_EQ(d.topics.size(), 1u);
                EXPECT_EQ(d.topics[0].name, "a");
                EXPECT_EQ(d.response_partition_limit, 7);
                EXPECT_EQ(d.cursor, m.cursor);
            });
        });
    }
    DescribeTopicPartitionsResponse r;
    protocol::DescribeTopicPartitionsResponseTopic t;
    t.name = "a";
    t.topic_id.bytes[5] = 1;
    protocol::DescribeTopicPartitionsResponsePartition p;
    p.partition_index = 2;
    p.replica_nodes = {1};
    p.eligible_leader_replicas.emplace();
    t.partitions = {p};
    r.topics = {t};
    r.next_cursor = protocol::DescribeTopicPartitionsCursor{"b", 0};
    for_each_version(ApiKey::describe_topic_partitions, [&](int16_t v) {
        round_trip(r, v, [&](const DescribeTopicPartitionsResponse& d) {
            ASSERT_EQ(d.topics.size(), 1u);
            EXPECT_EQ(d.topics[0].topic_id, t.topic_id);
            ASSERT_EQ(d.topics[0].partitions.size(), 1u);
            EXPECT_EQ(d.topics[0].partitions[0].partition_index, 2);
            EXPECT_TRUE(d.topics[0].partitions[0].eligible_leader_replicas.has_value());
            EXPECT_FALSE(d.topics[0].partitions[0].last_known_elr.has_value());
            EXPECT_EQ(d.next_cursor, r.next_cursor);
        });
    });
}

TEST(RoundTrip, ListOffsets) {
    ListOffsetsRequest req;
    req.replica_id = -1;
    req.isolation_level = 1;
    req.topics.push_back({"orders", {{0, 3, kListOffsetsMaxTimestamp, 1}}});
    ListOffsetsResponse resp;
    resp.throttle_time_ms = 4;
    ListOffsetsPartitionResponse p;
    p.partition_index = 0;
    p.old_style_offsets = {5};
    p.timestamp = 1234;
    p.offset = 5;
    p.leader_epoch = 2;
    resp.topics.push_back({"orders", {p}});
    for (int16_t v = 0; v <= find_api(ApiKey::list_offsets)->max_version; ++v) {
        round_trip(req, v, [&](const ListOffsetsRequest& d) {
            EXPECT_EQ(d.isolation_level, v >= 2 ? 1 : 0);
            const auto& q = d.topics.at(0).partitions.at(0);
            EXPECT_EQ(q.current_leader_epoch, v >= 4 ? 3 : -1);
            EXPECT_EQ(q.timestamp, kListOffsetsMaxTimestamp);
        });
        round_trip(resp, v, [&](const ListOffsetsResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 2 ? 4 : 0);
            const auto& q = d.topics.at(0).partitions.at(0);
            EXPECT_EQ(q.old_style_offsets,
                      v == 0 ? std::vector<int64_t>{5} : std::vector<int64_t>{});
            EXPECT_EQ(q.timestamp, v >= 1 ? 1234 : -1);
            EXPECT_EQ(q.offset, v >= 1 ? 5 : -1);
            EXPECT_EQ(q.leader_epoch, v >= 4 ? 2 : -1);
        });
    }
}

TEST(Response, FrameSizeCountsFileRangesAndHeaderV1) {
    FetchResponse m;
    PartitionData p;
    p.records.inline_bytes = test::bytes({1, 2, 3});
    p.records.file_ranges.push_back(FileRange{5, 0, 1000, nullptr});
    p.records.file_ranges.push_back(FileRange{5, 4096, 24, nullptr});
    m.responses.push_back({"t", {}, {p}});
    OutBuffer out;
    out.put_int<int8_t>(9);  // an earlier frame's tail: encode_response appends
    encode_response(m, 12, 99, out);
    ASSERT_EQ(out.splices().size(), 2u);
    EXPECT_EQ(out.total_size(), static_cast<int64_t>(out.memory_size()) + 1024);
    auto frame = out.bytes().subspan(1);
    EXPECT_EQ(wire::load_be<int32_t>(frame.data()), out.total_size() - 1 - 4);
    EXPECT_EQ(wire::load_be<int32_t>(frame.data() + 4), 99);
    EXPECT_EQ(static_cast<uint8_t>(frame[8]), 0u);  // header v1: empty tag buffer
    // The records' length prefix counts the file bytes; memory ends where the splices go.
    EXPECT_EQ(out.splices()[0].memory_offset, out.splices()[1].memory_offset);

    OutBuffer v11;
    encode_response(m, 11, 99, v11);
    // Header v0: throttle_time_ms (0) right after the correlation id.
    EXPECT_EQ(wire::load_be<int32_t>(v11.bytes().data() + 8), 0);
}

TEST(Request, EncodeRequestHeaderVersionFollowsTheTable) {
    ApiVersionsRequest m;
    m.client_software_name = "skiff-test";
    m.client_software_version = "1";
    auto frame = encode_request(m, 3, 17, "cid");
    auto parsed = parse_frame(frame, kDefaultMaxFrameSize);
    ASSERT_EQ(parsed.status, FrameParse::Status::complete);
    auto body_frame = std::span(frame).subspan(4);
    auto h = decode_request_header(body_frame);
    ASSERT_TRUE(h);
    EXPECT_TRUE(h->flexible);
    EXPECT_EQ(h->header.client_id, "cid");
    auto d = decode_message<ApiVersionsRequest>(body_frame.subspan(h->body_offset), 3);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->client_software_name, "skiff-test");
}

// ---- topic administration and InitProducerId ------------------------------------------------

TEST(RoundTrip, CreateTopicsRequestAndResponse) {
    CreateTopicsRequest m;
    CreatableTopic t;
    t.name = "orders";
    t.num_partitions = 3;
    t.replication_factor = 1;
    t.assignments.push_back({0, {1}});
    t.configs.push_back({"segment.bytes", "16384"});
    t.configs.push_back({"retention.ms", std::nullopt});
    m.topics.push_back(t);
    m.timeout_ms = 5000;
    m.validate_only = true;
    for_each_version(ApiKey::create_topics, [&](int16_t v) {
        round_trip(m, v, [&](const CreateTopicsRequest& d) {
            ASSERT_EQ(d.topics.size(), 1u);
            EXPECT_EQ(d.topics[0].name, "orders");
            EXPECT_EQ(d.topics[0].num_partitions, 3);
            EXPECT_EQ(d.topics[0].assignments.at(0).broker_ids, std::vector<int32_t>{1});
            EXPECT_EQ(d.topics[0].configs.at(0).value, "16384");
            EXPECT_EQ(d.topics[0].configs.at(1).value, std::nullopt);
            EXPECT_EQ(d.timeout_ms, 5000);
            EXPECT_EQ(d.validate_only, v >= 1);
        });
    });
    CreateTopicsResponse r;
    r.throttle_time_ms = 7;
    {
        protocol::CreatableTopicResult result;
        result.name = "orders";
        result.error_code = ErrorCode::topic_already_exists;
        result.error_message = "exists";
        r.topics.push_back(result);
    }
    for_each_version(ApiKey::create_topics, [&](int16_t v) {
        round_trip(r, v, [&](const CreateTopicsResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 2 ? 7 : 0);
            EXPECT_EQ(d.topics.at(0).error_code, ErrorCode::topic_already_exists);
            EXPECT_EQ(d.topics.at(0).error_message,
                      v >= 1 ? std::optional<std::string>("exists") : std::nullopt);
        });
    });
}

TEST(RoundTrip, DeleteTopicsRequestAndResponse) {
    DeleteTopicsRequest m;
    m.topic_names = {"a", "b"};
    protocol::DeleteTopicState by_id;
    by_id.topic_id.bytes[3] = 7;
    m.topics = {by_id};
    m.timeout_ms = 3000;
    for_each_version(ApiKey::delete_topics, [&](int16_t v) {
        round_trip(m, v, [&](const DeleteTopicsRequest& d) {
            // v6 names topics in `topics` (by name or id); topic_names is gone.
            EXPECT_EQ(d.topic_names,
                      v < 6 ? (std::vector<std::string>{"a", "b"}) : std::vector<std::string>{});
            EXPECT_EQ(d.topics.size(), v >= 6 ? 1u : 0u);
            if (v >= 6) {
                EXPECT_EQ(d.topics[0].topic_id, by_id.topic_id);
                EXPECT_FALSE(d.topics[0].name.has_value());
            }
            EXPECT_EQ(d.timeout_ms, 3000);
        });
    });
    DeleteTopicsResponse r;
    r.throttle_time_ms = 4;
    protocol::DeletableTopicResult result;
    result.name = "a";
    result.topic_id = by_id.topic_id;
    result.error_code = ErrorCode::unknown_topic_or_partition;
    result.error_message = "gone";
    r.responses.push_back(result);
    for_each_version(ApiKey::delete_topics, [&](int16_t v) {
        round_trip(r, v, [&](const DeleteTopicsResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 1 ? 4 : 0);
            EXPECT_EQ(d.responses.at(0).error_code, ErrorCode::unknown_topic_or_partition);
            EXPECT_EQ(d.responses.at(0).name, std::optional<std::string>("a"));
            EXPECT_EQ(d.responses.at(0).topic_id, v >= 6 ? by_id.topic_id : protocol::Uuid{});
            EXPECT_EQ(d.responses.at(0).error_message,
                      v >= 5 ? std::optional<std::string>("gone") : std::nullopt);
        });
    });
}

TEST(RoundTrip, CreatePartitionsRequestAndResponse) {
    CreatePartitionsRequest m;
    m.topics.push_back({"orders", 5, std::nullopt});
    m.topics.push_back({"other", 2, std::vector<CreatePartitionsAssignment>{{{1}}}});
    m.timeout_ms = 100;
    m.validate_only = true;
    for_each_version(ApiKey::create_partitions, [&](int16_t v) {
        round_trip(m, v, [&](const CreatePartitionsRequest& d) {
            EXPECT_EQ(d.topics.at(0).count, 5);
            EXPECT_FALSE(d.topics.at(0).assignments.has_value());
            EXPECT_EQ(d.topics.at(1).assignments->at(0).broker_ids, std::vector<int32_t>{1});
            EXPECT_TRUE(d.validate_only);
        });
    });
    CreatePartitionsResponse r;
    r.results.push_back({"orders", ErrorCode::invalid_partitions, "too few"});
    for_each_version(ApiKey::create_partitions, [&](int16_t v) {
        round_trip(r, v, [&](const CreatePartitionsResponse& d) {
            EXPECT_EQ(d.results.at(0).error_message, "too few");
        });
    });
}

TEST(RoundTrip, DescribeConfigsRequestAndResponse) {
    DescribeConfigsRequest m;
    m.resources.push_back({kResourceTypeTopic, "orders", std::vector<std::string>{"segment.ms"}});
    m.resources.push_back({kResourceTypeBroker, "1", std::nullopt});
    m.include_synonyms = true;
    m.include_documentation = true;
    for_each_version(ApiKey::describe_configs, [&](int16_t v) {
        round_trip(m, v, [&](const DescribeConfigsRequest& d) {
            EXPECT_EQ(d.resources.at(0).configuration_keys->at(0), "segment.ms");
            EXPECT_FALSE(d.resources.at(1).configuration_keys.has_value());
            EXPECT_EQ(d.include_synonyms, v >= 1);
            EXPECT_EQ(d.include_documentation, v >= 3);
        });
    });
    DescribeConfigsResponse r;
    DescribeConfigsResult res;
    res.resource_type = kResourceTypeTopic;
    res.resource_name = "orders";
    DescribeConfigsResourceResult e;
    e.name = "segment.bytes";
    e.value = "16384";
    e.is_default = true;
    e.config_source = static_cast<int8_t>(ConfigSource::dynamic_topic_config);
    e.synonyms.push_back({"log.segment.bytes", "1073741824", 5});
    e.config_type = static_cast<int8_t>(ConfigType::int_type);
    e.documentation = "Size at which a segment file is closed.";
    res.configs.push_back(e);
    r.results.push_back(res);
    for_each_version(ApiKey::describe_configs, [&](int16_t v) {
        round_trip(r, v, [&](const DescribeConfigsResponse& d) {
            const auto& c = d.results.at(0).configs.at(0);
            EXPECT_EQ(c.value, "16384");
            EXPECT_EQ(c.is_default, v == 0);
            EXPECT_EQ(c.config_source, v >= 1 ? 1 : -1);
            EXPECT_EQ(c.synonyms.size(), v >= 1 ? 1u : 0u);
            EXPECT_EQ(c.config_type, v >= 3 ? 3 : 0);
            EXPECT_EQ(c.documentation.has_value(), v >= 3);
        });
    });
}

TEST(RoundTrip, AlterConfigsAndIncrementalAlterConfigs) {
    AlterConfigsRequest m;
    m.resources.push_back({kResourceTypeTopic, "orders", {{"retention.ms", "1000"}}});
    m.validate_only = true;
    for_each_version(ApiKey::alter_configs, [&](int16_t v) {
        round_trip(m, v, [&](const AlterConfigsRequest& d) {
            EXPECT_EQ(d.resources.at(0).configs.at(0).value, "1000");
            EXPECT_TRUE(d.validate_only);
        });
    });
    AlterConfigsResponse r;
    r.responses.push_back({ErrorCode::invalid_config, "bad", kResourceTypeTopic, "orders"});
    for_each_version(ApiKey::alter_configs, [&](int16_t v) {
        round_trip(r, v, [&](const AlterConfigsResponse& d) {
            EXPECT_EQ(d.responses.at(0).error_code, ErrorCode::invalid_config);
        });
    });
    IncrementalAlterConfigsRequest im;
    im.resources.push_back(
        {kResourceTypeTopic, "orders", {{"retention.ms", kConfigOpDelete, std::nullopt}}});
    for_each_version(ApiKey::incremental_alter_configs, [&](int16_t v) {
        round_trip(im, v, [&](const IncrementalAlterConfigsRequest& d) {
            EXPECT_EQ(d.resources.at(0).configs.at(0).config_operation, kConfigOpDelete);
        });
    });
    IncrementalAlterConfigsResponse ir;
    ir.responses.push_back({ErrorCode::none, std::nullopt, kResourceTypeTopic, "orders"});
    for_each_version(ApiKey::incremental_alter_configs, [&](int16_t v) {
        round_trip(ir, v, [&](const IncrementalAlterConfigsResponse& d) {
            EXPECT_EQ(d.responses.at(0).resource_name, "orders");
        });
    });
}

TEST(RoundTrip, InitProducerIdRequestAndResponse) {
    InitProducerIdRequest m;
    m.transactional_id = "txn";
    m.transaction_timeout_ms = 60000;
    m.producer_id = 42;
    m.producer_epoch = 3;
    m.enable_2pc = true;
    m.keep_prepared_txn = true;
    for_each_version(ApiKey::init_producer_id, [&](int16_t v) {
        round_trip(m, v, [&](const InitProducerIdRequest& d) {
            EXPECT_EQ(d.transactional_id, "txn");
            EXPECT_EQ(d.producer_id, v >= 3 ? 42 : -1);
            EXPECT_EQ(d.producer_epoch, v >= 3 ? 3 : -1);
            // v6: KIP-939 two-phase commit.
            EXPECT_EQ(d.enable_2pc, v >= 6);
            EXPECT_EQ(d.keep_prepared_txn, v >= 6);
        });
    });
    InitProducerIdResponse r;
    r.producer_id = 1000;
    r.producer_epoch = 1;
    r.ongoing_txn_producer_id = 77;
    r.ongoing_txn_producer_epoch = 4;
    for_each_version(ApiKey::init_producer_id, [&](int16_t v) {
        round_trip(r, v, [&](const InitProducerIdResponse& d) {
            EXPECT_EQ(d.producer_id, 1000);
            EXPECT_EQ(d.producer_epoch, 1);
            EXPECT_EQ(d.ongoing_txn_producer_id, v >= 6 ? 77 : -1);
            EXPECT_EQ(d.ongoing_txn_producer_epoch, v >= 6 ? 4 : -1);
        });
    });
}

}  // namespace
}  // namespace skiff::protocol
