// KIP-932's membership APIs: ShareGroupHeartbeat v1 and ShareGroupDescribe v1. Round trips
// (with every truncated prefix refused), a v1 heartbeat built byte by byte as kafka-ts 1.5
// sends it, and null against empty for the heartbeat's "unchanged" fields.
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_table.h"
#include "protocol/protocol.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;
using test::round_trip;

Uuid sg_uuid(uint8_t first) {
    Uuid id;
    id.bytes[0] = first;
    id.bytes[15] = 0x42;
    return id;
}

TEST(ShareGroupApis, OnlyVersionOneIsServed) {
    const ApiSupport* hb = find_api(ApiKey::share_group_heartbeat);
    ASSERT_NE(hb, nullptr);
    EXPECT_EQ(hb->min_version, 1);
    EXPECT_EQ(hb->max_version, 1);
    const ApiSupport* d = find_api(ApiKey::share_group_describe);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->min_version, 1);
    EXPECT_EQ(d->max_version, 1);
    EXPECT_EQ(static_cast<int>(ApiKey::share_group_heartbeat), 76);
    EXPECT_EQ(static_cast<int>(ApiKey::share_group_describe), 77);
}

TEST(ShareGroupRoundTrip, Heartbeat) {
    ShareGroupHeartbeatRequest req;
    req.group_id = "g";
    req.member_id = "m-1";
    req.member_epoch = 0;
    req.rack_id = "r1";
    req.subscribed_topic_names = std::vector<std::string>{"a", "b"};
    round_trip(req, 1, [](const ShareGroupHeartbeatRequest& d) {
        EXPECT_EQ(d.group_id, "g");
        EXPECT_EQ(d.member_id, "m-1");
        EXPECT_EQ(d.rack_id, "r1");
        EXPECT_EQ(d.subscribed_topic_names, (std::vector<std::string>{"a", "b"}));
    });
    req.subscribed_topic_names = std::nullopt;  // unchanged
    req.rack_id = std::nullopt;
    round_trip(req, 1, [](const ShareGroupHeartbeatRequest& d) {
        EXPECT_FALSE(d.subscribed_topic_names);
        EXPECT_FALSE(d.rack_id);
    });
    ShareGroupHeartbeatResponse resp;
    resp.member_id = "m-1";
    resp.member_epoch = 3;
    resp.heartbeat_interval_ms = 5000;
    resp.assignment = ShareGroupHeartbeatAssignment{{{sg_uuid(7), {0, 2}}}};
    round_trip(resp, 1, [](const ShareGroupHeartbeatResponse& d) {
        EXPECT_EQ(d.member_epoch, 3);
        ASSERT_TRUE(d.assignment);
        ASSERT_EQ(d.assignment->topic_partitions.size(), 1u);
        EXPECT_EQ(d.assignment->topic_partitions[0].topic_id, sg_uuid(7));
        EXPECT_EQ(d.assignment->topic_partitions[0].partitions, (std::vector<int32_t>{0, 2}));
    });
    resp.assignment = std::nullopt;
    resp.error_code = ErrorCode::fenced_member_epoch;
    resp.error_message = "fenced";
    round_trip(resp, 1, [](const ShareGroupHeartbeatResponse& d) {
        EXPECT_FALSE(d.assignment);
        EXPECT_EQ(d.error_code, ErrorCode::fenced_member_epoch);
    });
}

TEST(ShareGroupRoundTrip, Describe) {
    ShareGroupDescribeRequest req;
    req.group_ids = {"g", "h"};
    req.include_authorized_operations = true;
    round_trip(req, 1, [](const ShareGroupDescribeRequest& d) {
        EXPECT_EQ(d.group_ids, (std::vector<std::string>{"g", "h"}));
        EXPECT_TRUE(d.include_authorized_operations);
    });
    ShareGroupDescribeResponse resp;
    DescribedShareGroup g;
    g.group_id = "g";
    g.group_state = "Stable";
    g.group_epoch = 4;
    g.assignment_epoch = 4;
    g.assignor_name = "simple";
    DescribedShareGroupMember m;
    m.member_id = "m";
    m.member_epoch = 4;
    m.client_id = "c";
    m.client_host = "/127.0.0.1";
    m.subscribed_topic_names = {"t"};
    m.assignment.topic_partitions = {{sg_uuid(1), "t", {1}}};
    g.members = {m};
    g.authorized_operations = 328;
    resp.groups = {g};
    round_trip(resp, 1, [](const ShareGroupDescribeResponse& d) {
        ASSERT_EQ(d.groups.size(), 1u);
        EXPECT_EQ(d.groups[0].assignor_name, "simple");
        ASSERT_EQ(d.groups[0].members.size(), 1u);
        EXPECT_EQ(d.groups[0].members[0].assignment.topic_partitions[0].topic_name, "t");
        EXPECT_EQ(d.groups[0].authorized_operations, 328);
    });
}

// What kafka-ts 1.5's SHARE_GROUP_HEARTBEAT_V1 encoder writes (request body, after the header):
// compact strings, a nullable rack id, a compact array of names, an empty tag buffer.
TEST(ShareGroupBytes, HeartbeatV1AsKafkaTsSendsIt) {
    auto body = bytes({2, 'g',       // group_id "g"
                       3, 'm', '1',  // member_id "m1"
                       0, 0, 0, 0,   // member_epoch 0
                       0,            // rack_id null
                       2, 2, 't',    // subscribed_topic_names ["t"]
                       0});          // tagged fields
    auto d = decode_message<ShareGroupHeartbeatRequest>(body, 1);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->group_id, "g");
    EXPECT_EQ(d->member_id, "m1");
    EXPECT_EQ(d->member_epoch, 0);
    EXPECT_FALSE(d->rack_id);
    EXPECT_EQ(d->subscribed_topic_names, (std::vector<std::string>{"t"}));
    // A null array (0) is "unchanged", an empty one (1) is "nothing".
    body[10] = std::byte{0};
    body.erase(body.begin() + 11, body.begin() + 13);
    auto unchanged = decode_message<ShareGroupHeartbeatRequest>(body, 1);
    ASSERT_TRUE(unchanged) << unchanged.error().message;
    EXPECT_FALSE(unchanged->subscribed_topic_names);
}

}  // namespace
}  // namespace skiff::protocol
