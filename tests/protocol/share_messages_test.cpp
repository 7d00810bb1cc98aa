// Share groups' fetch and admin APIs (KIP-932): ShareFetch 1-2, ShareAcknowledge 1-2,
// DescribeShareGroupOffsets 0-1, AlterShareGroupOffsets 0, DeleteShareGroupOffsets 0. Round trips
// at every served version (every truncated prefix fails), the fields that exist only from v2, and
// a ShareFetch v1 request built byte by byte as kafka-ts 1.5 writes it (its schema comments), so
// that the field order is checked against a client's, not only against skiff's own encoder.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_table.h"
#include "protocol/protocol.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::for_each_version;
using test::round_trip;

Uuid share_uuid(uint8_t first) {
    Uuid id;
    for (size_t i = 0; i < id.bytes.size(); ++i)
        id.bytes[i] = static_cast<uint8_t>(first + i);
    return id;
}

TEST(ShareApis, VersionRangesAndKeys) {
    struct Expect {
        ApiKey key;
        int number;
        int16_t min;
        int16_t max;
    };
    for (const Expect& e :
         {Expect{ApiKey::share_fetch, 78, 1, 2}, Expect{ApiKey::share_acknowledge, 79, 1, 2},
          Expect{ApiKey::describe_share_group_offsets, 90, 0, 1},
          Expect{ApiKey::alter_share_group_offsets, 91, 0, 0},
          Expect{ApiKey::delete_share_group_offsets, 92, 0, 0}}) {
        const ApiSupport* api = find_api(e.key);
        ASSERT_NE(api, nullptr) << api_name(e.key);
        EXPECT_EQ(static_cast<int>(e.key), e.number);
        EXPECT_EQ(api->min_version, e.min) << api_name(e.key);
        EXPECT_EQ(api->max_version, e.max) << api_name(e.key);
        EXPECT_EQ(api->first_flexible_version, 0) << api_name(e.key);
    }
    EXPECT_EQ(static_cast<int>(ErrorCode::share_session_limit_reached), 133);
    EXPECT_EQ(error_name(ErrorCode::share_session_limit_reached),
              std::string("SHARE_SESSION_LIMIT_REACHED"));
}

ShareFetchRequest share_fetch_request() {
    ShareFetchRequest r;
    r.group_id = "queue";
    r.member_id = "m-1";
    r.share_session_epoch = 3;
    r.max_wait_ms = 500;
    r.min_bytes = 1;
    r.max_bytes = 1 << 20;
    r.max_records = 200;
    r.batch_size = 50;
    r.share_acquire_mode = 1;
    r.is_renew_ack = true;
    ShareFetchTopic t{share_uuid(1), {}};
    t.partitions.push_back({0, {{10, 19, {1}}, {20, 22, {1, 0, 2}}}});
    t.partitions.push_back({2, {}});
    r.topics.push_back(t);
    r.forgotten_topics_data.push_back({share_uuid(40), {1, 3}});
    return r;
}

TEST(ShareApis, ShareFetchRequestRoundTrip) {
    const auto r = share_fetch_request();
    for_each_version(ApiKey::share_fetch, [&](int16_t v) {
        round_trip(r, v, [&](const ShareFetchRequest& d) {
            EXPECT_EQ(d.group_id, r.group_id);
            EXPECT_EQ(d.member_id, r.member_id);
            EXPECT_EQ(d.share_session_epoch, 3);
            EXPECT_EQ(d.max_records, 200);
            EXPECT_EQ(d.batch_size, 50);
            EXPECT_EQ(d.topics, r.topics);
            EXPECT_EQ(d.forgotten_topics_data, r.forgotten_topics_data);
            // v2 only (KIP-1206 / KIP-1222); a v1 request reads the defaults.
            EXPECT_EQ(d.share_acquire_mode, v >= 2 ? 1 : 0);
            EXPECT_EQ(d.is_renew_ack, v >= 2);
        });
    });
    ShareFetchRequest nulls;  // null group and member ids are on the wire (INVALID_REQUEST later)
    for_each_version(ApiKey::share_fetch, [&](int16_t v) {
        round_trip(nulls, v, [](const ShareFetchRequest& d) {
            EXPECT_FALSE(d.group_id);
            EXPECT_FALSE(d.member_id);
        });
    });
}

TEST(ShareApis, ShareFetchResponseRoundTrip) {
    ShareFetchResponse r;
    r.error_code = ErrorCode::none;
    r.acquisition_lock_timeout_ms = 30000;
    ShareFetchTopicResponse t;
    t.topic_id = share_uuid(7);
    ShareFetchPartitionData p;
    p.partition_index = 1;
    p.acknowledge_error_code = ErrorCode::invalid_record_state;
    p.acknowledge_error_message = "not acquired";
    p.current_leader = {1, 0};
    p.records.inline_bytes = test::bytes({1, 2, 3, 4});
    p.acquired_records = {{100, 149, 1}, {150, 150, 3}};
    t.partitions.push_back(p);
    ShareFetchPartitionData e;
    e.partition_index = 2;
    e.error_code = ErrorCode::unknown_topic_id;
    t.partitions.push_back(e);
    r.responses.push_back(t);
    r.node_endpoints.push_back({1, "localhost", 9092, std::nullopt});
    for_each_version(ApiKey::share_fetch, [&](int16_t v) {
        round_trip(r, v, [&](const ShareFetchResponse& d) {
            EXPECT_EQ(d.acquisition_lock_timeout_ms, 30000);
            ASSERT_EQ(d.responses.size(), 1u);
            ASSERT_EQ(d.responses[0].partitions.size(), 2u);
            const auto& q = d.responses[0].partitions[0];
            EXPECT_EQ(q.acknowledge_error_code, ErrorCode::invalid_record_state);
            EXPECT_EQ(q.acknowledge_error_message, "not acquired");
            EXPECT_EQ(q.current_leader, p.current_leader);
            EXPECT_EQ(q.records.inline_bytes, p.records.inline_bytes);
            EXPECT_EQ(q.acquired_records, p.acquired_records);
            EXPECT_EQ(d.responses[0].partitions[1].error_code, ErrorCode::unknown_topic_id);
            EXPECT_EQ(d.node_endpoints, r.node_endpoints);
        });
    });
}

TEST(ShareApis, ShareAcknowledgeRoundTrip) {
    ShareAcknowledgeRequest r;
    r.group_id = "queue";
    r.member_id = "m-1";
    r.share_session_epoch = -1;
    r.is_renew_ack = true;
    r.topics.push_back({share_uuid(9), {{4, {{0, 9, {3}}}}}});
    for_each_version(ApiKey::share_acknowledge, [&](int16_t v) {
        round_trip(r, v, [&](const ShareAcknowledgeRequest& d) {
            EXPECT_EQ(d.share_session_epoch, -1);
            EXPECT_EQ(d.topics, r.topics);
            EXPECT_EQ(d.is_renew_ack, v >= 2);
        });
    });
    ShareAcknowledgeResponse a;
    a.acquisition_lock_timeout_ms = 15000;
    ShareAcknowledgeTopicResponse t;
    t.topic_id = share_uuid(9);
    ShareAcknowledgePartitionData p;
    p.partition_index = 4;
    p.error_code = ErrorCode::invalid_record_state;
    t.partitions.push_back(p);
    a.responses.push_back(t);
    for_each_version(ApiKey::share_acknowledge, [&](int16_t v) {
        round_trip(a, v, [&](const ShareAcknowledgeResponse& d) {
            EXPECT_EQ(d.acquisition_lock_timeout_ms, v >= 2 ? 15000 : 0);
            ASSERT_EQ(d.responses.size(), 1u);
            EXPECT_EQ(d.responses[0].partitions[0].error_code, ErrorCode::invalid_record_state);
        });
    });
}

TEST(ShareApis, AdminApisRoundTrip) {
    DescribeShareGroupOffsetsRequest dr;
    dr.groups.push_back({"g1", std::vector<DescribeShareGroupOffsetsRequestTopic>{{"t", {0, 1}}}});
    dr.groups.push_back({"g2", std::nullopt});  // every partition with state
    for_each_version(ApiKey::describe_share_group_offsets, [&](int16_t v) {
        round_trip(dr, v, [&](const DescribeShareGroupOffsetsRequest& d) {
            ASSERT_EQ(d.groups.size(), 2u);
            EXPECT_EQ(d.groups[0], dr.groups[0]);
            EXPECT_FALSE(d.groups[1].topics);
        });
    });
    DescribeShareGroupOffsetsResponse ds;
    DescribeShareGroupOffsetsResponseGroup g;
    g.group_id = "g1";
    DescribeShareGroupOffsetsResponseTopic t;
    t.topic_name = "t";
    t.topic_id = share_uuid(3);
    DescribeShareGroupOffsetsResponsePartition p;
    p.partition_index = 0;
    p.start_offset = 42;
    p.lag = 7;
    t.partitions.push_back(p);
    g.topics.push_back(t);
    ds.groups.push_back(g);
    for_each_version(ApiKey::describe_share_group_offsets, [&](int16_t v) {
        round_trip(ds, v, [&](const DescribeShareGroupOffsetsResponse& d) {
            const auto& q = d.groups.at(0).topics.at(0).partitions.at(0);
            EXPECT_EQ(q.start_offset, 42);
            EXPECT_EQ(q.lag, v >= 1 ? 7 : -1);  // v1 (KIP-1226)
        });
    });

    AlterShareGroupOffsetsRequest ar;
    ar.group_id = "g1";
    ar.topics.push_back({"t", {{0, 5}, {1, 0}}});
    round_trip(ar, 0, [&](const AlterShareGroupOffsetsRequest& d) {
        EXPECT_EQ(d.group_id, "g1");
        EXPECT_EQ(d.topics, ar.topics);
    });
    AlterShareGroupOffsetsResponse as;
    as.error_code = ErrorCode::non_empty_group;
    as.responses.push_back({"t", share_uuid(3), {{0, ErrorCode::none, std::nullopt}}});
    round_trip(as, 0, [&](const AlterShareGroupOffsetsResponse& d) {
        EXPECT_EQ(d.error_code, ErrorCode::non_empty_group);
        EXPECT_EQ(d.responses.at(0).topic_id, share_uuid(3));
    });

    DeleteShareGroupOffsetsRequest xr;
    xr.group_id = "g1";
    xr.topics.push_back({"t"});
    round_trip(xr, 0,
               [&](const DeleteShareGroupOffsetsRequest& d) { EXPECT_EQ(d.topics, xr.topics); });
    DeleteShareGroupOffsetsResponse xs;
    xs.responses.push_back({"t", share_uuid(3), ErrorCode::topic_authorization_failed, "no"});
    round_trip(xs, 0, [&](const DeleteShareGroupOffsetsResponse& d) {
        EXPECT_EQ(d.responses.at(0).error_code, ErrorCode::topic_authorization_failed);
    });
}

// kafka-ts 1.5's SHARE_FETCH_V1 writes: group_id, member_id (compact strings), epoch, max_wait,
// min_bytes, max_bytes, max_records, batch_size (int32), topics [topic_id, partitions
// [partition_index, acknowledgement_batches [first, last, types int8[]]]], forgotten topics.
TEST(ShareApis, ShareFetchV1AsAClientWritesIt) {
    std::vector<std::byte> b;
    auto put = [&](std::initializer_list<int> v) {
        for (int x : v)
            b.push_back(static_cast<std::byte>(x));
    };
    put({2, 'g', 4, 'm', 'e', 'm'});  // "g", "mem"
    put({0, 0, 0, 1});                // share_session_epoch 1
    put({0, 0, 1, 0xf4});             // max_wait_ms 500
    put({0, 0, 0, 1});                // min_bytes
    put({0, 0x10, 0, 0});             // max_bytes 1 MiB
    put({0, 0, 0, 10});               // max_records
    put({0, 0, 0, 5});                // batch_size
    put({2});                         // one topic
    for (int i = 0; i < 16; ++i)
        put({i + 1});                                                   // topic_id 01..10
    put({2, 0, 0, 0, 7});                                               // one partition: 7
    put({2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 2, 1, 0});  // [3..4] ACCEPT
    put({0, 0});  // partition and topic tagged fields
    put({1, 0});  // no forgotten topics; request tagged fields
    auto d = decode_message<ShareFetchRequest>(b, 1);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->group_id, "g");
    EXPECT_EQ(d->member_id, "mem");
    EXPECT_EQ(d->share_session_epoch, 1);
    EXPECT_EQ(d->max_wait_ms, 500);
    EXPECT_EQ(d->max_bytes, 1 << 20);
    EXPECT_EQ(d->max_records, 10);
    EXPECT_EQ(d->batch_size, 5);
    ASSERT_EQ(d->topics.size(), 1u);
    EXPECT_EQ(d->topics[0].topic_id, share_uuid(1));
    ASSERT_EQ(d->topics[0].partitions.size(), 1u);
    EXPECT_EQ(d->topics[0].partitions[0].partition_index, 7);
    const auto& ack = d->topics[0].partitions[0].acknowledgement_batches;
    ASSERT_EQ(ack.size(), 1u);
    EXPECT_EQ(ack[0].first_offset, 3);
    EXPECT_EQ(ack[0].last_offset, 4);
    EXPECT_EQ(ack[0].acknowledge_types, std::vector<int8_t>{1});
}

}  // namespace
}  // namespace skiff::protocol
