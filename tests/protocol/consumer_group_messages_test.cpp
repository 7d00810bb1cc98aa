// The consumer group protocol of KIP-848: ConsumerGroupHeartbeat 0-1 and ConsumerGroupDescribe
// 0-1. Round trips at every served version, a v1 heartbeat frame built byte by byte as a client
// sends it, the fields that exist only from v1 (subscribed_topic_regex, member_type), and null
// against empty for the fields where null means "unchanged since the last heartbeat".
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/api_table.h"
#include "protocol/protocol.h"
#include "protocol/request_header.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;
using test::for_each_version;
using test::memory_of;
using test::round_trip;

// Unity builds put this file in a batch with the other tests: its helpers have names of their
// own.
std::vector<std::byte> cg_join(std::initializer_list<std::vector<std::byte>> parts) {
    std::vector<std::byte> out;
    for (const auto& p : parts)
        out.insert(out.end(), p.begin(), p.end());
    return out;
}

Uuid cg_uuid(uint8_t first) {
    Uuid id;
    for (size_t i = 0; i < id.bytes.size(); ++i)
        id.bytes[i] = static_cast<uint8_t>(first + i);
    return id;
}

template <class Msg>
std::vector<std::byte> cg_encode(const Msg& m, int16_t version) {
    OutBuffer out;
    encode_message(m, version, out);
    return memory_of(out);
}

TEST(ConsumerGroupApis, VersionRanges) {
    for (ApiKey key : {ApiKey::consumer_group_heartbeat, ApiKey::consumer_group_describe}) {
        const ApiSupport* api = find_api(key);
        ASSERT_NE(api, nullptr) << api_name(key);
        EXPECT_EQ(api->min_version, 0) << api_name(key);
        EXPECT_EQ(api->max_version, 1) << api_name(key);
        EXPECT_EQ(api->first_flexible_version, 0) << api_name(key);
    }
    EXPECT_EQ(static_cast<int16_t>(ApiKey::consumer_group_heartbeat), 68);
    EXPECT_EQ(static_cast<int16_t>(ApiKey::consumer_group_describe), 69);
    EXPECT_STREQ(api_name(ApiKey::consumer_group_heartbeat), "ConsumerGroupHeartbeat");
    EXPECT_STREQ(api_name(ApiKey::consumer_group_describe), "ConsumerGroupDescribe");
    // Flexible from v0: the request header is v2 and the response header v1.
    EXPECT_EQ(response_header_version(ApiKey::consumer_group_heartbeat, 0), 1);
    EXPECT_EQ(response_header_version(ApiKey::consumer_group_describe, 0), 1);
}

TEST(ConsumerGroupRoundTrip, ConsumerGroupHeartbeat) {
    ConsumerGroupHeartbeatRequest req;
    req.group_id = "orders";
    req.member_id = "m-1";
    req.member_epoch = 12;
    req.instance_id = "inst-1";
    req.rack_id = "rack-a";
    req.rebalance_timeout_ms = 300000;
    req.subscribed_topic_names = std::vector<std::string>{"orders", "audit"};
    req.subscribed_topic_regex = "^pay.*";
    req.server_assignor = "uniform";
    req.topic_partitions =
        std::vector<ConsumerGroupHeartbeatTopicPartitions>{{cg_uuid(1), {0, 2}}, {cg_uuid(9), {}}};
    ConsumerGroupHeartbeatResponse resp;
    resp.throttle_time_ms = 5;
    resp.error_code = ErrorCode::fenced_member_epoch;
    resp.error_message = "epoch 11 is fenced";
    resp.member_id = "m-1";
    resp.member_epoch = 13;
    resp.heartbeat_interval_ms = 5000;
    resp.assignment = ConsumerGroupHeartbeatAssignment{{{cg_uuid(1), {0, 1, 2}}}};
    for_each_version(ApiKey::consumer_group_heartbeat, [&](int16_t v) {
        round_trip(req, v, [&](const ConsumerGroupHeartbeatRequest& d) {
            EXPECT_EQ(d.group_id, "orders");
            EXPECT_EQ(d.member_id, "m-1");
            EXPECT_EQ(d.member_epoch, 12);
            EXPECT_EQ(d.instance_id, "inst-1");
            EXPECT_EQ(d.rack_id, "rack-a");
            EXPECT_EQ(d.rebalance_timeout_ms, 300000);
            EXPECT_EQ(d.subscribed_topic_names, req.subscribed_topic_names);
            EXPECT_EQ(d.subscribed_topic_regex,
                      v >= 1 ? std::optional<std::string>("^pay.*") : std::nullopt);
            EXPECT_EQ(d.server_assignor, "uniform");
            EXPECT_EQ(d.topic_partitions, req.topic_partitions);
        });
        round_trip(resp, v, [&](const ConsumerGroupHeartbeatResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, 5);
            EXPECT_EQ(d.error_code, ErrorCode::fenced_member_epoch);
            EXPECT_EQ(d.error_message, "epoch 11 is fenced");
            EXPECT_EQ(d.member_id, "m-1");
            EXPECT_EQ(d.member_epoch, 13);
            EXPECT_EQ(d.heartbeat_interval_ms, 5000);
            EXPECT_EQ(d.assignment, resp.assignment);
        });
    });
}

TEST(ConsumerGroupRoundTrip, ConsumerGroupDescribe) {
    ConsumerGroupDescribeRequest req;
    req.group_ids = {"g1", "g2"};
    req.include_authorized_operations = true;
    DescribedConsumerGroupMember member;
    member.member_id = "m-1";
    member.instance_id = "inst";
    member.rack_id = "rack-b";
    member.member_epoch = 4;
    member.client_id = "client";
    member.client_host = "/10.0.0.7";
    member.subscribed_topic_names = {"t", "u"};
    member.subscribed_topic_regex = "^t.*";
    member.assignment = {{{cg_uuid(1), "t", {0, 1}}}};
    member.target_assignment = {{{cg_uuid(1), "t", {0}}, {cg_uuid(17), "u", {3}}}};
    member.member_type = DescribedConsumerGroupMember::kMemberTypeConsumer;
    DescribedConsumerGroup group;
    group.group_id = "g1";
    group.group_state = "Reconciling";
    group.group_epoch = 5;
    group.assignment_epoch = 4;
    group.assignor_name = "uniform";
    group.members = {member};
    group.authorized_operations = 0x0f00;
    DescribedConsumerGroup missing;
    missing.error_code = ErrorCode::group_id_not_found;
    missing.error_message = "Group g2 not found.";
    missing.group_id = "g2";
    missing.group_state = "Dead";
    ConsumerGroupDescribeResponse resp;
    resp.throttle_time_ms = 2;
    resp.groups = {group, missing};
    for_each_version(ApiKey::consumer_group_describe, [&](int16_t v) {
        round_trip(req, v, [&](const ConsumerGroupDescribeRequest& d) {
            EXPECT_EQ(d.group_ids, (std::vector<std::string>{"g1", "g2"}));
            EXPECT_TRUE(d.include_authorized_operations);
        });
        round_trip(resp, v, [&](const ConsumerGroupDescribeResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, 2);
            ASSERT_EQ(d.groups.size(), 2u);
            const DescribedConsumerGroup& g = d.groups[0];
            EXPECT_EQ(g.error_code, ErrorCode::none);
            EXPECT_FALSE(g.error_message);
            EXPECT_EQ(g.group_id, "g1");
            EXPECT_EQ(g.group_state, "Reconciling");
            EXPECT_EQ(g.group_epoch, 5);
            EXPECT_EQ(g.assignment_epoch, 4);
            EXPECT_EQ(g.assignor_name, "uniform");
            EXPECT_EQ(g.authorized_operations, 0x0f00);
            ASSERT_EQ(g.members.size(), 1u);
            const DescribedConsumerGroupMember& m = g.members[0];
            EXPECT_EQ(m.member_id, "m-1");
            EXPECT_EQ(m.instance_id, "inst");
            EXPECT_EQ(m.rack_id, "rack-b");
            EXPECT_EQ(m.member_epoch, 4);
            EXPECT_EQ(m.client_id, "client");
            EXPECT_EQ(m.client_host, "/10.0.0.7");
            EXPECT_EQ(m.subscribed_topic_names, (std::vector<std::string>{"t", "u"}));
            EXPECT_EQ(m.subscribed_topic_regex, "^t.*");
            EXPECT_EQ(m.assignment, member.assignment);
            EXPECT_EQ(m.target_assignment, member.target_assignment);
            EXPECT_EQ(m.member_type, v >= 1 ? DescribedConsumerGroupMember::kMemberTypeConsumer
                                            : DescribedConsumerGroupMember::kMemberTypeUnknown);
            const DescribedConsumerGroup& n = d.groups[1];
            EXPECT_EQ(n.error_code, ErrorCode::group_id_not_found);
            EXPECT_EQ(n.error_message, "Group g2 not found.");
            EXPECT_TRUE(n.members.empty());
            EXPECT_EQ(n.authorized_operations, std::numeric_limits<int32_t>::min());
        });
    });
}

// A v1 heartbeat frame as a KIP-848 consumer sends it when it subscribes by names and by a regex
// and reports the partitions it owns: size, request header v2, then the body in three parts
// around the v1-only regex.
const std::vector<std::byte> kHeartbeatV1Header = bytes({
    0x00, 0x44,              // api_key 68
    0x00, 0x01,              // api_version 1
    0x00, 0x00, 0x00, 0x2a,  // correlation_id 42
    0x00, 0x0a,              // client_id: int16 length 10, even in header v2
    'c',  'o',  'n',  's',  'u', 'm', 'e', 'r', '-', '1',  // "consumer-1"
    0x00,                                                  // header tags
});
const std::vector<std::byte> kHeartbeatV1BeforeRegex = bytes({
    0x07, 'o',  'r',  'd',  'e', 'r', 's',  // group_id "orders"
    0x04, 'm',  '-',  '1',                  // member_id "m-1"
    0x00, 0x00, 0x00, 0x07,                 // member_epoch 7
    0x00,                                   // instance_id null
    0x07, 'r',  'a',  'c',  'k', '-', 'a',  // rack_id "rack-a"
    0x00, 0x04, 0x93, 0xe0,                 // rebalance_timeout_ms 300000
    0x03,                                   // subscribed_topic_names: 2 names
    0x07, 'o',  'r',  'd',  'e', 'r', 's',  //   "orders"
    0x06, 'a',  'u',  'd',  'i', 't',       //   "audit"
});
const std::vector<std::byte> kHeartbeatV1Regex = bytes({
    0x07, '^', 'p', 'a', 'y', '.', '*',  // subscribed_topic_regex "^pay.*" (v1 only)
});
const std::vector<std::byte> kHeartbeatV1AfterRegex = bytes({
    0x08, 'u',  'n',  'i',  'f',  'o',  'r',  'm',   // server_assignor "uniform"
    0x02,                                            // topic_partitions: 1 topic
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,  //   topic_id
    0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,  //
    0x03,                                            //   partitions: 2
    0x00, 0x00, 0x00, 0x00,                          //     0
    0x00, 0x00, 0x00, 0x03,                          //     3
    0x00,                                            //   topic tags
    0x00,                                            // request tags
});

TEST(ConsumerGroupBytes, HeartbeatV1FromAClient) {
    // 21 bytes of header and 84 of body.
    const auto frame =
        cg_join({bytes({0x00, 0x00, 0x00, 0x69}), kHeartbeatV1Header, kHeartbeatV1BeforeRegex,
                 kHeartbeatV1Regex, kHeartbeatV1AfterRegex});
    auto after_size = std::span(frame).subspan(4);
    auto h = decode_request_header(after_size);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->header.api_key, 68);
    EXPECT_EQ(h->header.api_version, 1);
    EXPECT_EQ(h->header.correlation_id, 42);
    EXPECT_EQ(h->header.client_id, "consumer-1");
    EXPECT_TRUE(h->flexible);
    EXPECT_EQ(h->body_offset, 21u);
    auto d = decode_message<ConsumerGroupHeartbeatRequest>(after_size.subspan(h->body_offset), 1);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->group_id, "orders");
    EXPECT_EQ(d->member_id, "m-1");
    EXPECT_EQ(d->member_epoch, 7);
    EXPECT_FALSE(d->instance_id);
    EXPECT_EQ(d->rack_id, "rack-a");
    EXPECT_EQ(d->rebalance_timeout_ms, 300000);
    EXPECT_EQ(d->subscribed_topic_names, (std::vector<std::string>{"orders", "audit"}));
    EXPECT_EQ(d->subscribed_topic_regex, "^pay.*");
    EXPECT_EQ(d->server_assignor, "uniform");
    ASSERT_TRUE(d->topic_partitions);
    ASSERT_EQ(d->topic_partitions->size(), 1u);
    EXPECT_EQ((*d->topic_partitions)[0].topic_id, cg_uuid(0));
    EXPECT_EQ((*d->topic_partitions)[0].partitions, (std::vector<int32_t>{0, 3}));
    // And skiff writes those same bytes.
    EXPECT_EQ(encode_request(*d, 1, 42, "consumer-1"), frame);
}

TEST(ConsumerGroupBytes, SubscribedTopicRegexIsOnTheWireFromV1Only) {
    const auto body_v1 =
        cg_join({kHeartbeatV1BeforeRegex, kHeartbeatV1Regex, kHeartbeatV1AfterRegex});
    auto d = decode_message<ConsumerGroupHeartbeatRequest>(body_v1, 1);
    ASSERT_TRUE(d) << d.error().message;
    ASSERT_EQ(d->subscribed_topic_regex, "^pay.*");
    EXPECT_EQ(cg_encode(*d, 1), body_v1);
    // v0 drops the regex and nothing else; a v0 body read as v0 has none.
    const auto body_v0 = cg_join({kHeartbeatV1BeforeRegex, kHeartbeatV1AfterRegex});
    EXPECT_EQ(cg_encode(*d, 0), body_v0);
    auto v0 = decode_message<ConsumerGroupHeartbeatRequest>(body_v0, 0);
    ASSERT_TRUE(v0) << v0.error().message;
    EXPECT_FALSE(v0->subscribed_topic_regex);
    EXPECT_EQ(v0->server_assignor, "uniform");
    // A null regex in v1 is one byte (compact null), not nothing.
    ConsumerGroupHeartbeatRequest no_regex = *d;
    no_regex.subscribed_topic_regex.reset();
    EXPECT_EQ(cg_encode(no_regex, 1).size(), body_v0.size() + 1);
}

TEST(ConsumerGroupBytes, HeartbeatRequestNullAndEmptyListsDiffer) {
    // Null: unchanged since the last heartbeat; empty: subscribed to nothing / owns nothing.
    ConsumerGroupHeartbeatRequest unchanged;
    ConsumerGroupHeartbeatRequest empty;
    empty.subscribed_topic_names = std::vector<std::string>{};
    empty.topic_partitions = std::vector<ConsumerGroupHeartbeatTopicPartitions>{};
    auto fields = [](int names, int partitions) {
        return bytes({
            0x01,                    // group_id ""
            0x01,                    // member_id ""
            0x00, 0x00, 0x00, 0x00,  // member_epoch 0
            0x00,                    // instance_id null
            0x00,                    // rack_id null
            0xff, 0xff, 0xff, 0xff,  // rebalance_timeout_ms -1 (the default: unchanged)
            names,                   // subscribed_topic_names
            0x00,                    // subscribed_topic_regex null
            0x00,                    // server_assignor null
            partitions,              // topic_partitions
            0x00,                    // tags
        });
    };
    EXPECT_EQ(cg_encode(unchanged, 1), fields(0x00, 0x00));
    EXPECT_EQ(cg_encode(empty, 1), fields(0x01, 0x01));
    for_each_version(ApiKey::consumer_group_heartbeat, [&](int16_t v) {
        round_trip(unchanged, v, [](const ConsumerGroupHeartbeatRequest& d) {
            EXPECT_FALSE(d.subscribed_topic_names);
            EXPECT_FALSE(d.topic_partitions);
        });
        round_trip(empty, v, [](const ConsumerGroupHeartbeatRequest& d) {
            ASSERT_TRUE(d.subscribed_topic_names);
            EXPECT_TRUE(d.subscribed_topic_names->empty());
            ASSERT_TRUE(d.topic_partitions);
            EXPECT_TRUE(d.topic_partitions->empty());
        });
    });
}

TEST(ConsumerGroupBytes, HeartbeatResponseNullAndEmptyAssignmentDiffer) {
    // Null: keep the assignment you have; empty: you have nothing now.
    ConsumerGroupHeartbeatResponse unchanged;
    unchanged.member_epoch = 3;
    unchanged.heartbeat_interval_ms = 5000;
    ConsumerGroupHeartbeatResponse revoked = unchanged;
    revoked.assignment = ConsumerGroupHeartbeatAssignment{};
    const auto head = bytes({
        0x00, 0x00, 0x00, 0x00,  // throttle_time_ms
        0x00, 0x00,              // error_code
        0x00,                    // error_message null
        0x00,                    // member_id null
        0x00, 0x00, 0x00, 0x03,  // member_epoch 3
        0x00, 0x00, 0x13, 0x88,  // heartbeat_interval_ms 5000
    });
    EXPECT_EQ(cg_encode(unchanged, 1), cg_join({head, bytes({
                                                          0xff,  // assignment null (int8 -1)
                                                          0x00,  // tags
                                                      })}));
    EXPECT_EQ(cg_encode(revoked, 1), cg_join({head, bytes({
                                                        0x01,  // assignment present
                                                        0x01,  //   topic_partitions: none
                                                        0x00,  //   assignment tags
                                                        0x00,  // tags
                                                    })}));
    for_each_version(ApiKey::consumer_group_heartbeat, [&](int16_t v) {
        round_trip(unchanged, v, [](const ConsumerGroupHeartbeatResponse& d) {
            EXPECT_FALSE(d.assignment);
            EXPECT_FALSE(d.member_id);
        });
        round_trip(revoked, v, [](const ConsumerGroupHeartbeatResponse& d) {
            ASSERT_TRUE(d.assignment);
            EXPECT_TRUE(d.assignment->topic_partitions.empty());
        });
    });
    // Any negative int8 means null, as Kafka reads it; a positive one means present.
    auto null_as_minus_two = cg_join({head, bytes({0xfe, 0x00})});
    auto d = decode_message<ConsumerGroupHeartbeatResponse>(null_as_minus_two, 0);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_FALSE(d->assignment);
}

TEST(ConsumerGroupBytes, DescribeMemberTypeIsOnTheWireFromV1Only) {
    DescribedConsumerGroupMember member;
    member.member_id = "m";
    member.member_epoch = 3;
    member.client_id = "c";
    member.client_host = "/h";
    member.subscribed_topic_names = {"t"};
    member.assignment = {{{cg_uuid(0x11), "t", {0}}}};
    member.member_type = DescribedConsumerGroupMember::kMemberTypeClassic;
    DescribedConsumerGroup group;
    group.group_id = "g";
    group.group_state = "Stable";
    group.group_epoch = 3;
    group.assignment_epoch = 3;
    group.assignor_name = "uniform";
    group.members = {member};
    ConsumerGroupDescribeResponse resp;
    resp.groups = {group};
    const auto before_type = bytes({
        0x00, 0x00, 0x00, 0x00,                          // throttle_time_ms
        0x02,                                            // groups: 1
        0x00, 0x00,                                      //   error_code
        0x00,                                            //   error_message null
        0x02, 'g',                                       //   group_id
        0x07, 'S',  't',  'a',  'b',  'l',  'e',         //   group_state
        0x00, 0x00, 0x00, 0x03,                          //   group_epoch
        0x00, 0x00, 0x00, 0x03,                          //   assignment_epoch
        0x08, 'u',  'n',  'i',  'f',  'o',  'r',  'm',   //   assignor_name
        0x02,                                            //   members: 1
        0x02, 'm',                                       //     member_id
        0x00,                                            //     instance_id null
        0x00,                                            //     rack_id null
        0x00, 0x00, 0x00, 0x03,                          //     member_epoch
        0x02, 'c',                                       //     client_id
        0x03, '/',  'h',                                 //     client_host
        0x02, 0x02, 't',                                 //     subscribed_topic_names ["t"]
        0x00,                                            //     subscribed_topic_regex null
        0x02,                                            //     assignment: 1 topic
        0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,  //       topic_id
        0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20,  //
        0x02, 't',                                       //       topic_name
        0x02, 0x00, 0x00, 0x00, 0x00,                    //       partitions [0]
        0x00,                                            //       topic tags
        0x00,                                            //       assignment tags
        0x01,                                            //     target_assignment: none
        0x00,                                            //       assignment tags
    });
    const auto after_type = bytes({
        0x00,                    //     member tags
        0x80, 0x00, 0x00, 0x00,  //   authorized_operations INT32_MIN
        0x00,                    //   group tags
        0x00,                    // tags
    });
    EXPECT_EQ(cg_encode(resp, 1), cg_join({before_type, bytes({0x00}), after_type}));
    EXPECT_EQ(cg_encode(resp, 0), cg_join({before_type, after_type}));
    // A v1 answer from Kafka: a consumer-protocol member.
    auto d = decode_message<ConsumerGroupDescribeResponse>(
        cg_join({before_type, bytes({0x01}), after_type}), 1);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->groups.at(0).members.at(0).member_type,
              DescribedConsumerGroupMember::kMemberTypeConsumer);
    EXPECT_EQ(d->groups.at(0).members.at(0).assignment, member.assignment);
    // A v0 answer has no member type: it stays unknown.
    auto v0 = decode_message<ConsumerGroupDescribeResponse>(cg_join({before_type, after_type}), 0);
    ASSERT_TRUE(v0) << v0.error().message;
    EXPECT_EQ(v0->groups.at(0).members.at(0).member_type,
              DescribedConsumerGroupMember::kMemberTypeUnknown);
    EXPECT_TRUE(v0->groups.at(0).members.at(0).target_assignment.topic_partitions.empty());
}

}  // namespace
}  // namespace skiff::protocol
