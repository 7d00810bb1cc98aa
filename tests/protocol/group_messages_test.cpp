// Round trips for the consumer group APIs at every served version (FindCoordinator, JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups,
// DeleteGroups): encode, decode, check the fields of that version, re-encode to the same bytes,
// and require every truncation and one extra byte to fail.
#include <gtest/gtest.h>

#include "protocol/api_table.h"
#include "protocol/protocol.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::for_each_version;
using test::round_trip;

std::vector<std::byte> bytes_of(std::string_view s) {
    std::vector<std::byte> out;
    for (char c : s)
        out.push_back(static_cast<std::byte>(c));
    return out;
}

TEST(GroupApis, RangesServeEveryClient) {
    // librdkafka only starts group consumers when FindCoordinator's range contains 0; the other
    // minimums and maximums are those of docs/clients.md.
    struct Want {
        ApiKey key;
        int16_t need_min, need_max, flexible;
    };
    for (auto w : {Want{ApiKey::find_coordinator, 0, 2, 3}, Want{ApiKey::join_group, 0, 5, 6},
                   Want{ApiKey::sync_group, 0, 3, 4}, Want{ApiKey::heartbeat, 0, 3, 4},
                   Want{ApiKey::leave_group, 0, 3, 4}, Want{ApiKey::offset_commit, 1, 7, 8},
                   Want{ApiKey::offset_fetch, 1, 7, 6}, Want{ApiKey::describe_groups, 0, 4, 5},
                   Want{ApiKey::list_groups, 0, 4, 3}, Want{ApiKey::delete_groups, 0, 1, 2}}) {
        const ApiSupport* api = find_api(static_cast<int16_t>(w.key));
        ASSERT_NE(api, nullptr) << api_name(w.key);
        EXPECT_LE(api->min_version, w.need_min) << api_name(w.key);
        EXPECT_GE(api->max_version, w.need_max) << api_name(w.key);
        EXPECT_EQ(api->first_flexible_version, w.flexible) << api_name(w.key);
    }
}

TEST(GroupRoundTrip, FindCoordinator) {
    FindCoordinatorRequest req;
    req.key = "g1";
    req.key_type = 0;
    req.coordinator_keys = {"g1", "g2"};
    FindCoordinatorResponse resp;
    resp.throttle_time_ms = 3;
    resp.error_message = "msg";
    resp.node_id = 7;
    resp.host = "127.0.0.1";
    resp.port = 9092;
    FindCoordinatorCoordinator c;
    c.key = "g1";
    c.node_id = 7;
    c.host = "h";
    c.port = 1;
    resp.coordinators = {c};
    for_each_version(ApiKey::find_coordinator, [&](int16_t v) {
        round_trip(req, v, [&](const FindCoordinatorRequest& d) {
            EXPECT_EQ(d.key, v <= 3 ? "g1" : "");
            EXPECT_EQ(d.coordinator_keys.size(), v >= 4 ? 2u : 0u);
        });
        round_trip(resp, v, [&](const FindCoordinatorResponse& d) {
            EXPECT_EQ(d.node_id, v <= 3 ? 7 : 0);
            EXPECT_EQ(d.host, v <= 3 ? "127.0.0.1" : "");
            EXPECT_EQ(d.throttle_time_ms, v >= 1 ? 3 : 0);
            EXPECT_EQ(d.error_message.has_value(), v >= 1 && v <= 3);
            ASSERT_EQ(d.coordinators.size(), v >= 4 ? 1u : 0u);
            if (v >= 4) {
                EXPECT_EQ(d.coordinators[0].port, 1);
            }
        });
    });
}

TEST(GroupRoundTrip, JoinGroup) {
    JoinGroupRequest req;
    req.group_id = "g";
    req.session_timeout_ms = 10000;
    req.rebalance_timeout_ms = 30000;
    req.member_id = "m-1";
    req.group_instance_id = "inst";
    req.protocol_type = "consumer";
    req.protocols = {{"range", bytes_of("abc")}, {"roundrobin", bytes_of("")}};
    req.reason = "rebalance needed";
    JoinGroupResponse resp;
    resp.skip_assignment = true;
    resp.throttle_time_ms = 1;
    resp.generation_id = 4;
    resp.protocol_type = "consumer";
    resp.protocol_name = "range";
    resp.leader = "m-1";
    resp.member_id = "m-2";
    resp.members = {{"m-1", "inst", bytes_of("xyz")}};
    for_each_version(ApiKey::join_group, [&](int16_t v) {
        round_trip(req, v, [&](const JoinGroupRequest& d) {
            EXPECT_EQ(d.rebalance_timeout_ms, v >= 1 ? 30000 : -1);
            EXPECT_EQ(d.group_instance_id.has_value(), v >= 5);
            ASSERT_EQ(d.protocols.size(), 2u);
            EXPECT_EQ(d.protocols[0].metadata, bytes_of("abc"));
            EXPECT_EQ(d.reason,
                      v >= 8 ? std::optional<std::string>("rebalance needed") : std::nullopt);
        });
        round_trip(resp, v, [&](const JoinGroupResponse& d) {
            EXPECT_EQ(d.generation_id, 4);
            EXPECT_EQ(d.protocol_type.has_value(), v >= 7);
            EXPECT_EQ(d.protocol_name, "range");
            ASSERT_EQ(d.members.size(), 1u);
            EXPECT_EQ(d.members[0].metadata, bytes_of("xyz"));
            EXPECT_EQ(d.members[0].group_instance_id.has_value(), v >= 5);
            EXPECT_EQ(d.skip_assignment, v >= 9);
            EXPECT_EQ(d.leader, "m-1");
            EXPECT_EQ(d.member_id, "m-2");
        });
    });
    // v7+: the protocol name may be null (an error answer).
    JoinGroupResponse error;
    error.error_code = ErrorCode::member_id_required;
    error.member_id = "new-id";
    round_trip(error, 7, [](const JoinGroupResponse& d) {
        EXPECT_FALSE(d.protocol_name);
        EXPECT_EQ(d.error_code, ErrorCode::member_id_required);
        EXPECT_EQ(d.member_id, "new-id");
    });
}

TEST(GroupRoundTrip, SyncGroup) {
    SyncGroupRequest req;
    req.group_id = "g";
    req.generation_id = 2;
    req.member_id = "m";
    req.group_instance_id = "i";
    req.protocol_type = "consumer";
    req.protocol_name = "range";
    req.assignments = {{"m", bytes_of("a1")}, {"n", bytes_of("a2")}};
    SyncGroupResponse resp;
    resp.throttle_time_ms = 2;
    resp.protocol_type = "consumer";
    resp.protocol_name = "range";
    resp.assignment = bytes_of("assigned");
    for_each_version(ApiKey::sync_group, [&](int16_t v) {
        round_trip(req, v, [&](const SyncGroupRequest& d) {
            EXPECT_EQ(d.generation_id, 2);
            EXPECT_EQ(d.group_instance_id.has_value(), v >= 3);
            EXPECT_EQ(d.protocol_name.has_value(), v >= 5);
            ASSERT_EQ(d.assignments.size(), 2u);
            EXPECT_EQ(d.assignments[1].assignment, bytes_of("a2"));
        });
        round_trip(resp, v, [&](const SyncGroupResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 1 ? 2 : 0);
            EXPECT_EQ(d.protocol_type.has_value(), v >= 5);
            EXPECT_EQ(d.assignment, bytes_of("assigned"));
        });
    });
}

TEST(GroupRoundTrip, HeartbeatAndLeaveGroup) {
    HeartbeatRequest hb;
    hb.group_id = "g";
    hb.generation_id = 9;
    hb.member_id = "m";
    hb.group_instance_id = "i";
    HeartbeatResponse hbr;
    hbr.throttle_time_ms = 5;
    hbr.error_code = ErrorCode::rebalance_in_progress;
    for_each_version(ApiKey::heartbeat, [&](int16_t v) {
        round_trip(hb, v, [&](const HeartbeatRequest& d) {
            EXPECT_EQ(d.generation_id, 9);
            EXPECT_EQ(d.group_instance_id.has_value(), v >= 3);
        });
        round_trip(hbr, v, [&](const HeartbeatResponse& d) {
            EXPECT_EQ(d.error_code, ErrorCode::rebalance_in_progress);
        });
    });
    LeaveGroupRequest leave;
    leave.group_id = "g";
    leave.member_id = "m";
    leave.members = {{"m1", std::nullopt, "closing"}, {"", "inst", std::nullopt}};
    LeaveGroupResponse lr;
    lr.throttle_time_ms = 1;
    lr.members = {{"m1", std::nullopt, ErrorCode::unknown_member_id}};
    for_each_version(ApiKey::leave_group, [&](int16_t v) {
        round_trip(leave, v, [&](const LeaveGroupRequest& d) {
            EXPECT_EQ(d.member_id, v <= 2 ? "m" : "");
            ASSERT_EQ(d.members.size(), v >= 3 ? 2u : 0u);
            if (v >= 3) {
                EXPECT_EQ(d.members[1].group_instance_id, "inst");
                EXPECT_EQ(d.members[0].reason,
                          v >= 5 ? std::optional<std::string>("closing") : std::nullopt);
                EXPECT_FALSE(d.members[1].reason);
            }
        });
        round_trip(lr, v, [&](const LeaveGroupResponse& d) {
            ASSERT_EQ(d.members.size(), v >= 3 ? 1u : 0u);
            if (v >= 3) {
                EXPECT_EQ(d.members[0].error_code, ErrorCode::unknown_member_id);
            }
        });
    });
}

TEST(GroupRoundTrip, OffsetCommit) {
    OffsetCommitRequest req;
    req.group_id = "g";
    req.generation_id = 3;
    req.member_id = "m";
    req.group_instance_id = "i";
    req.retention_time_ms = 1000;
    OffsetCommitRequestPartition p;
    p.partition_index = 2;
    p.committed_offset = 42;
    p.committed_leader_epoch = 5;
    p.commit_timestamp = 1700000000000;
    p.committed_metadata = "meta";
    protocol::Uuid id;
    id.bytes[5] = 0x55;
    req.topics = {{"t", id, {p}}};
    OffsetCommitResponse resp;
    resp.throttle_time_ms = 4;
    resp.topics = {{"t", id, {{2, ErrorCode::none}, {3, ErrorCode::unknown_topic_or_partition}}}};
    for_each_version(ApiKey::offset_commit, [&](int16_t v) {
        round_trip(req, v, [&](const OffsetCommitRequest& d) {
            EXPECT_EQ(d.generation_id, v >= 1 ? 3 : -1);
            EXPECT_EQ(d.retention_time_ms, v >= 2 && v <= 4 ? 1000 : -1);
            EXPECT_EQ(d.group_instance_id.has_value(), v >= 7);
            // v10 names topics by id only, in the request and the response.
            EXPECT_EQ(d.topics.at(0).name, v <= 9 ? "t" : "");
            EXPECT_EQ(d.topics.at(0).topic_id, v >= 10 ? id : protocol::Uuid{});
            const auto& dp = d.topics.at(0).partitions.at(0);
            EXPECT_EQ(dp.committed_offset, 42);
            EXPECT_EQ(dp.committed_leader_epoch, v >= 6 ? 5 : -1);
            EXPECT_EQ(dp.commit_timestamp, v == 1 ? 1700000000000 : -1);
            EXPECT_EQ(dp.committed_metadata, "meta");
        });
        round_trip(resp, v, [&](const OffsetCommitResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 3 ? 4 : 0);
            EXPECT_EQ(d.topics.at(0).name, v <= 9 ? "t" : "");
            EXPECT_EQ(d.topics.at(0).topic_id, v >= 10 ? id : protocol::Uuid{});
            EXPECT_EQ(d.topics.at(0).partitions.at(1).error_code,
                      ErrorCode::unknown_topic_or_partition);
        });
    });
}

TEST(GroupRoundTrip, OffsetFetch) {
    OffsetFetchRequest req;
    req.group_id = "g";
    protocol::Uuid id;
    id.bytes[0] = 0x77;
    req.topics = std::vector<OffsetFetchRequestTopic>{{"t", id, {0, 1}}};
    req.require_stable = true;
    OffsetFetchResponse resp;
    resp.throttle_time_ms = 6;
    OffsetFetchResponsePartition p;
    p.partition_index = 1;
    p.committed_offset = 99;
    p.committed_leader_epoch = 2;
    p.metadata = "md";
    resp.topics = {{"t", id, {p}}};
    resp.error_code = ErrorCode::group_authorization_failed;
    // v8+: the same, one entry per group, next to a group asking for every partition.
    req.groups = {{"g", "m", 5, req.topics}, {"all", std::nullopt, -1, std::nullopt}};
    resp.groups = {{"g", resp.topics, ErrorCode::group_authorization_failed},
                   {"all", {}, ErrorCode::none}};
    for_each_version(ApiKey::offset_fetch, [&](int16_t v) {
        round_trip(req, v, [&](const OffsetFetchRequest& d) {
            EXPECT_EQ(d.require_stable, v >= 7);
            if (v >= 8) {
                EXPECT_EQ(d.group_id, "");
                EXPECT_FALSE(d.topics);
                ASSERT_EQ(d.groups.size(), 2u);
                EXPECT_EQ(d.groups[0].group_id, "g");
                EXPECT_EQ(d.groups[0].member_id,
                          v >= 9 ? std::optional<std::string>("m") : std::nullopt);
                EXPECT_EQ(d.groups[0].member_epoch, v >= 9 ? 5 : -1);
                ASSERT_TRUE(d.groups[0].topics);
                // v10 names topics by id only.
                EXPECT_EQ(d.groups[0].topics->at(0).name, v <= 9 ? "t" : "");
                EXPECT_EQ(d.groups[0].topics->at(0).topic_id, v >= 10 ? id : protocol::Uuid{});
                EXPECT_EQ(d.groups[0].topics->at(0).partition_indexes,
                          (std::vector<int32_t>{0, 1}));
                EXPECT_FALSE(d.groups[1].topics);
                return;
            }
            EXPECT_TRUE(d.groups.empty());
            ASSERT_TRUE(d.topics);
            EXPECT_EQ(d.topics->at(0).partition_indexes, (std::vector<int32_t>{0, 1}));
        });
        round_trip(resp, v, [&](const OffsetFetchResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, v >= 3 ? 6 : 0);
            if (v >= 8) {
                EXPECT_TRUE(d.topics.empty());
                EXPECT_EQ(d.error_code, ErrorCode::none);
                ASSERT_EQ(d.groups.size(), 2u);
                EXPECT_EQ(d.groups[0].topics.at(0).name, v <= 9 ? "t" : "");
                EXPECT_EQ(d.groups[0].topics.at(0).topic_id, v >= 10 ? id : protocol::Uuid{});
                const auto& dp = d.groups[0].topics.at(0).partitions.at(0);
                EXPECT_EQ(dp.committed_offset, 99);
                EXPECT_EQ(dp.committed_leader_epoch, 2);
                EXPECT_EQ(d.groups[0].error_code, ErrorCode::group_authorization_failed);
                EXPECT_EQ(d.groups[1].group_id, "all");
                return;
            }
            EXPECT_TRUE(d.groups.empty());
            const auto& dp = d.topics.at(0).partitions.at(0);
            EXPECT_EQ(dp.committed_offset, 99);
            EXPECT_EQ(dp.committed_leader_epoch, v >= 5 ? 2 : -1);
            EXPECT_EQ(dp.metadata, "md");
            EXPECT_EQ(d.error_code,
                      v >= 2 ? ErrorCode::group_authorization_failed : ErrorCode::none);
        });
        if (v >= 2 && v <= 7) {  // null topics: every committed partition of the group
            OffsetFetchRequest all;
            all.group_id = "g";
            round_trip(all, v, [](const OffsetFetchRequest& d) { EXPECT_FALSE(d.topics); });
        }
    });
}

TEST(GroupRoundTrip, DescribeListDeleteGroups) {
    DescribeGroupsRequest dreq;
    dreq.groups = {"a", "b"};
    dreq.include_authorized_operations = true;
    DescribeGroupsResponse dresp;
    DescribedGroup g;
    g.group_id = "a";
    g.group_state = "Stable";
    g.protocol_type = "consumer";
    g.protocol_data = "range";
    g.members = {{"m", "inst", "client", "/127.0.0.1", bytes_of("md"), bytes_of("as")}};
    g.authorized_operations = 12;
    g.error_message = "not quite";
    dresp.groups = {g};
    for_each_version(ApiKey::describe_groups, [&](int16_t v) {
        round_trip(dreq, v, [&](const DescribeGroupsRequest& d) {
            EXPECT_EQ(d.groups.size(), 2u);
            EXPECT_EQ(d.include_authorized_operations, v >= 3);
        });
        round_trip(dresp, v, [&](const DescribeGroupsResponse& d) {
            const auto& dg = d.groups.at(0);
            EXPECT_EQ(dg.group_state, "Stable");
            EXPECT_EQ(dg.members.at(0).member_assignment, bytes_of("as"));
            EXPECT_EQ(dg.members.at(0).group_instance_id.has_value(), v >= 4);
            EXPECT_EQ(dg.authorized_operations, v >= 3 ? 12 : INT32_MIN);
            EXPECT_EQ(dg.error_message,
                      v >= 6 ? std::optional<std::string>("not quite") : std::nullopt);
        });
    });
    ListGroupsRequest lreq;
    lreq.states_filter = {"Stable"};
    lreq.types_filter = {"classic", "consumer"};
    ListGroupsResponse lresp;
    lresp.groups = {{"a", "consumer", "Stable", "classic"}};
    for_each_version(ApiKey::list_groups, [&](int16_t v) {
        round_trip(lreq, v, [&](const ListGroupsRequest& d) {
            EXPECT_EQ(d.states_filter.size(), v >= 4 ? 1u : 0u);
            EXPECT_EQ(d.types_filter.size(), v >= 5 ? 2u : 0u);
        });
        round_trip(lresp, v, [&](const ListGroupsResponse& d) {
            EXPECT_EQ(d.groups.at(0).protocol_type, "consumer");
            EXPECT_EQ(d.groups.at(0).group_state, v >= 4 ? "Stable" : "");
            EXPECT_EQ(d.groups.at(0).group_type, v >= 5 ? "classic" : "");
        });
    });
    DeleteGroupsRequest xreq;
    xreq.groups_names = {"a"};
    DeleteGroupsResponse xresp;
    xresp.results = {{"a", ErrorCode::non_empty_group}};
    for_each_version(ApiKey::delete_groups, [&](int16_t v) {
        round_trip(xreq, v,
                   [](const DeleteGroupsRequest& d) { EXPECT_EQ(d.groups_names.size(), 1u); });
        round_trip(xresp, v, [](const DeleteGroupsResponse& d) {
            EXPECT_EQ(d.results.at(0).error_code, ErrorCode::non_empty_group);
        });
    });
}

}  // namespace
}  // namespace skiff::protocol
