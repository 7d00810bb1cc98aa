// KIP-932 share groups through the GroupCoordinator, with a fake clock: ShareGroupHeartbeat's
// validation, joining with a client-chosen member id, epochs and fencing, leaving, the session
// timeout (and the ShareMembership listener told of it), the group size limit, the simple
// assignor, a group id another type holds, and the other group APIs on a share group; then the
// records in __consumer_offsets and their restore after a restart.
#include "broker/group/share/share_protocol.h"

#include <gtest/gtest.h>

#include "broker/group/share/simple_assignor.h"
#include "tests/broker/group/coordinator_fixture.h"

namespace skiff::broker::group {
namespace {

using protocol::ErrorCode;
using share::Assignment;

struct ShareProtocolTest : GroupCoordinatorTest {
    std::map<std::string, int32_t> topics{{"t", 3}, {"u", 2}};
    std::vector<std::pair<std::string, std::string>> left;
    std::vector<std::string> deleted;

    void SetUp() override {
        GroupCoordinatorTest::SetUp();
        restart(false);
    }
    TopicView view() {
        return {[this](const std::string& name) {
                    auto it = topics.find(name);
                    return it == topics.end() ? std::nullopt : std::optional<int32_t>(it->second);
                },
                [this] {
                    std::vector<std::string> names;
                    for (const auto& [name, n] : topics)
                        names.push_back(name);
                    return names;
                },
                [this](const std::string& name) -> std::optional<protocol::Uuid> {
                    if (!topics.count(name))
                        return std::nullopt;
                    protocol::Uuid id;
                    id.bytes[0] = static_cast<uint8_t>(name[0]);
                    return id;
                },
                [this](const protocol::Uuid& id) -> std::optional<std::string> {
                    for (const auto& [name, n] : topics)
                        if (id.bytes[0] == static_cast<uint8_t>(name[0]))
                            return name;
                    return std::nullopt;
                }};
    }
    // A broker restart (`reopen`: a new store and coordinator over the same log, restored).
    size_t restart(bool reopen = true) {
        if (reopen)
            make(0);
        size_t n = coordinator->restore(view());
        coordinator->set_share_listener(
            {[this](const std::string& g, const std::string& m) { left.emplace_back(g, m); },
             [this](const std::string& g) { deleted.push_back(g); }});
        return n;
    }
    share::HeartbeatResult beat(const share::HeartbeatParams& p) {
        return coordinator->share_heartbeat(p, view());
    }
    static share::HeartbeatParams joining(std::string id, std::vector<std::string> topics = {"t"}) {
        share::HeartbeatParams p;
        p.group_id = "g";
        p.member_id = std::move(id);
        p.member_epoch = 0;
        p.subscribed_topic_names = std::move(topics);
        return p;
    }
    static share::HeartbeatParams steady(std::string id, int32_t epoch) {
        share::HeartbeatParams p;
        p.group_id = "g";
        p.member_id = std::move(id);
        p.member_epoch = epoch;
        return p;
    }
    static size_t count(const Assignment& a) {
        size_t n = 0;
        for (const auto& [t, ps] : a)
            n += ps.size();
        return n;
    }
};

TEST_F(ShareProtocolTest, ABadHeartbeatIsInvalidRequestAndCreatesNothing) {
    auto p = joining("");
    EXPECT_EQ(beat(p).error, ErrorCode::invalid_request);  // v1: the client makes the id
    p = joining("m");
    p.subscribed_topic_names = std::nullopt;
    EXPECT_EQ(beat(p).error, ErrorCode::invalid_request);
    p.subscribed_topic_names = std::vector<std::string>{};
    EXPECT_EQ(beat(p).error, ErrorCode::invalid_request);
    p = joining("m");
    p.member_epoch = -2;  // no static members in share groups
    EXPECT_EQ(beat(p).error, ErrorCode::invalid_request);
    p = joining("m");
    p.group_id = "";
    EXPECT_EQ(beat(p).error, ErrorCode::invalid_request);
    EXPECT_FALSE(coordinator->contains("g"));
}

TEST_F(ShareProtocolTest, AMemberJoinsWithItsOwnIdAndGetsEveryPartitionAlone) {
    auto r = beat(joining("m1"));
    ASSERT_EQ(r.error, ErrorCode::none);
    EXPECT_EQ(r.member_id, "m1");
    EXPECT_EQ(r.member_epoch, 1);
    EXPECT_EQ(r.heartbeat_interval_ms, 5000);
    ASSERT_TRUE(r.assignment);
    EXPECT_EQ(*r.assignment, (Assignment{{"t", {0, 1, 2}}}));
    // An idle heartbeat changes nothing and sends no assignment.
    auto again = beat(steady("m1", 1));
    EXPECT_EQ(again.error, ErrorCode::none);
    EXPECT_EQ(again.member_epoch, 1);
    EXPECT_FALSE(again.assignment);
    auto d = coordinator->share_describe("g");
    EXPECT_EQ(d.state, "Stable");
    EXPECT_EQ(d.group_epoch, 1);
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(coordinator->share_check_member("g", "m1"), ErrorCode::none);
    EXPECT_EQ(coordinator->share_check_member("g", "other"), ErrorCode::unknown_member_id);
    EXPECT_EQ(coordinator->share_check_member("nope", "m1"), ErrorCode::group_id_not_found);
}

TEST_F(ShareProtocolTest, ThreeMembersOnThreePartitionsGetOneEachAndEpochsMoveOn) {
    std::map<std::string, Assignment> held;
    held["a"] = *beat(joining("a")).assignment;
    held["b"] = *beat(joining("b")).assignment;
    auto c = beat(joining("c"));
    EXPECT_EQ(c.member_epoch, 3);
    ASSERT_TRUE(c.assignment);
    held["c"] = *c.assignment;
    // a and b move to the new epoch at their next heartbeat; an assignment comes only to the
    // one whose partitions changed (a gave one up; b keeps its one: the assignor is sticky).
    auto a = beat(steady("a", 1));
    ASSERT_EQ(a.error, ErrorCode::none);
    EXPECT_EQ(a.member_epoch, 3);
    ASSERT_TRUE(a.assignment);
    held["a"] = *a.assignment;
    auto b = beat(steady("b", 2));
    EXPECT_EQ(b.member_epoch, 3);
    EXPECT_FALSE(b.assignment);
    std::set<int32_t> all;
    for (const auto& [id, x] : held) {
        ASSERT_EQ(count(x), 1u) << id;
        all.insert(x.at("t").begin(), x.at("t").end());
    }
    EXPECT_EQ(all, (std::set<int32_t>{0, 1, 2}));
    for (const auto& m : coordinator->share_describe("g").members)
        EXPECT_EQ(m.assigned, held[m.member_id]) << m.member_id;
}

TEST_F(ShareProtocolTest, SimpleAssignorSharesPartitionsWhenMembersOutnumberThem) {
    std::map<std::string, share::SimpleAssignorMember> members;
    for (auto id : {"a", "b", "c", "d", "e", "f"})
        members[id].subscribed_topics = {"t"};
    auto out = share::simple_assign(members, {{"t", 3}});
    std::map<int32_t, int> sharing;
    for (const auto& [id, a] : out) {
        EXPECT_EQ(count(a), 1u) << id;
        for (int32_t p : a.at("t"))
            ++sharing[p];
    }
    EXPECT_EQ(sharing, (std::map<int32_t, int>{{0, 2}, {1, 2}, {2, 2}}));
    // Two members, five partitions: 3 and 2, each partition once.
    std::map<std::string, share::SimpleAssignorMember> two;
    two["a"].subscribed_topics = {"t"};
    two["b"].subscribed_topics = {"t"};
    two["b"].current = {{"t", {4}}};
    auto split = share::simple_assign(two, {{"t", 5}});
    EXPECT_EQ(count(split["a"]) + count(split["b"]), 5u);
    EXPECT_TRUE(split["b"].at("t").count(4));  // sticky
    // A member of another topic only gets that topic.
    two["b"].subscribed_topics = {"u"};
    auto other = share::simple_assign(two, {{"t", 5}, {"u", 2}});
    EXPECT_EQ(other["a"], (Assignment{{"t", {0, 1, 2, 3, 4}}}));
    EXPECT_EQ(other["b"], (Assignment{{"u", {0, 1}}}));
}

TEST_F(ShareProtocolTest, AWrongEpochIsFencedAndAnUnknownMemberIsUnknown) {
    beat(joining("a"));
    EXPECT_EQ(beat(steady("a", 7)).error, ErrorCode::fenced_member_epoch);
    EXPECT_EQ(beat(steady("a", 0 + 2)).error, ErrorCode::fenced_member_epoch);
    EXPECT_EQ(beat(steady("x", 1)).error, ErrorCode::unknown_member_id);
    EXPECT_EQ(beat(steady("x", -1)).error, ErrorCode::unknown_member_id);
    auto p = steady("a", 1);
    p.group_id = "missing";
    EXPECT_EQ(beat(p).error, ErrorCode::unknown_member_id);
    // The fenced member rejoins with epoch 0 and gets its place back.
    auto back = beat(joining("a"));
    EXPECT_EQ(back.error, ErrorCode::none);
    EXPECT_TRUE(back.assignment);
}

TEST_F(ShareProtocolTest, LeavingAndSessionTimeoutRemoveTheMemberAndTellTheListener) {
    beat(joining("a"));
    beat(joining("b"));
    auto bye = beat(steady("a", 1));
    bye = beat(share::HeartbeatParams{.group_id = "g", .member_id = "a", .member_epoch = -1});
    EXPECT_EQ(bye.error, ErrorCode::none);
    EXPECT_EQ(bye.member_epoch, -1);
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0], (std::pair<std::string, std::string>{"g", "a"}));
    EXPECT_EQ(coordinator->share_check_member("g", "a"), ErrorCode::unknown_member_id);
    // b stops heartbeating: fenced after group.share.session.timeout.ms (45 s by default).
    now += 45000;
    coordinator->tick();
    EXPECT_EQ(coordinator->member_count("g"), 1u);
    now += 1;
    coordinator->tick();
    EXPECT_EQ(coordinator->member_count("g"), 0u);
    ASSERT_EQ(left.size(), 2u);
    EXPECT_EQ(left[1].second, "b");
    EXPECT_EQ(coordinator->share_describe("g").state, "Empty");
    EXPECT_EQ(beat(steady("b", 2)).error, ErrorCode::unknown_member_id);
}

TEST_F(ShareProtocolTest, AGroupOwnSessionTimeoutAndIntervalWin) {
    auto p = joining("a");
    p.session_timeout_ms = 50000;
    p.heartbeat_interval_ms = 6000;
    EXPECT_EQ(beat(p).heartbeat_interval_ms, 6000);
    now += 46000;
    coordinator->tick();
    EXPECT_EQ(coordinator->member_count("g"), 1u);
    now += 5000;
    coordinator->tick();
    EXPECT_EQ(coordinator->member_count("g"), 0u);
}

TEST_F(ShareProtocolTest, TheGroupSizeLimitIsGroupMaxSizeReached) {
    CoordinatorConfig config;
    config.share.max_size = 2;
    coordinator = std::make_unique<GroupCoordinator>(config, *store, [this] { return now; });
    coordinator->restore(view());
    EXPECT_EQ(beat(joining("a")).error, ErrorCode::none);
    EXPECT_EQ(beat(joining("b")).error, ErrorCode::none);
    EXPECT_EQ(beat(joining("c")).error, ErrorCode::group_max_size_reached);
    EXPECT_EQ(beat(joining("a")).error, ErrorCode::none);  // a member already in: fine
}

TEST_F(ShareProtocolTest, AnotherTypesGroupIdIsNotAShareGroupAndViceVersa) {
    // A classic group with members: the share heartbeat is GROUP_ID_NOT_FOUND.
    JoinResult joined;
    coordinator->join(params(""), [&](JoinResult r) { joined = std::move(r); });
    auto p = joining("m");
    EXPECT_EQ(beat(p).error, ErrorCode::group_id_not_found);
    // A share group refuses classic joins, consumer heartbeats, commits and DescribeGroups.
    p.group_id = "s";
    ASSERT_EQ(beat(p).error, ErrorCode::none);
    auto j = params("");
    j.group_id = "s";
    JoinResult refused;
    coordinator->join(j, [&](JoinResult r) { refused = std::move(r); });
    EXPECT_EQ(refused.error, ErrorCode::inconsistent_group_protocol);
    consumer::HeartbeatParams c;
    c.api_version = 1;
    c.group_id = "s";
    c.member_id = "c";
    c.rebalance_timeout_ms = 1000;
    c.subscribed_topic_names = std::vector<std::string>{"t"};
    c.owned = consumer::Assignment{};
    EXPECT_EQ(coordinator->consumer_heartbeat(c, view()).error, ErrorCode::group_id_not_found);
    EXPECT_EQ(coordinator->validate_commit("s", -1, "", std::nullopt),
              ErrorCode::group_id_not_found);
    EXPECT_EQ(coordinator->describe("s").error_code, ErrorCode::group_id_not_found);
    // Even once empty, it stays a share group for a consumer heartbeat.
    beat(share::HeartbeatParams{.group_id = "s", .member_id = "m", .member_epoch = -1});
    EXPECT_EQ(coordinator->consumer_heartbeat(c, view()).error, ErrorCode::group_id_not_found);
}

TEST_F(ShareProtocolTest, ListedAsShareAndDeletedOnlyWhenEmpty) {
    beat(joining("a"));
    bool found = false;
    for (const auto& g : coordinator->list())
        if (g.group_id == "g") {
            found = true;
            EXPECT_EQ(g.protocol_type, "share");
            EXPECT_EQ(g.group_type, "share");
            EXPECT_EQ(g.group_state, "Stable");
        }
    EXPECT_TRUE(found);
    EXPECT_EQ(coordinator->delete_group("g"), ErrorCode::non_empty_group);
    EXPECT_TRUE(deleted.empty());
    beat(share::HeartbeatParams{.group_id = "g", .member_id = "a", .member_epoch = -1});
    EXPECT_EQ(coordinator->delete_group("g"), ErrorCode::none);
    EXPECT_EQ(deleted, std::vector<std::string>{"g"});
    EXPECT_FALSE(coordinator->contains("g"));
    EXPECT_EQ(coordinator->share_check_member("g", "a"), ErrorCode::group_id_not_found);
}

TEST_F(ShareProtocolTest, ARestartRestoresMembersEpochsAndAssignments) {
    beat(joining("a"));
    auto b = beat(joining("b", {"t", "u"}));
    auto a = beat(steady("a", 1));
    ASSERT_EQ(a.member_epoch, 2);
    EXPECT_EQ(restart(), 1u);
    auto d = coordinator->share_describe("g");
    ASSERT_EQ(d.error, ErrorCode::none);
    EXPECT_EQ(d.group_epoch, 2);
    EXPECT_EQ(d.assignment_epoch, 2);
    ASSERT_EQ(d.members.size(), 2u);
    EXPECT_EQ(d.members[0].member_id, "a");
    EXPECT_EQ(d.members[0].assigned, *a.assignment);
    EXPECT_EQ(d.members[1].subscribed_topic_names, (std::vector<std::string>{"t", "u"}));
    EXPECT_EQ(d.members[1].assigned, *b.assignment);
    // They carry on with their epochs, without a new group epoch.
    auto again = beat(steady("a", 2));
    EXPECT_EQ(again.error, ErrorCode::none);
    EXPECT_EQ(again.member_epoch, 2);
    EXPECT_FALSE(again.assignment);
    // A member that left before the restart stays gone.
    beat(share::HeartbeatParams{.group_id = "g", .member_id = "b", .member_epoch = -1});
    EXPECT_EQ(restart(), 1u);
    EXPECT_EQ(coordinator->member_count("g"), 1u);
    EXPECT_EQ(coordinator->share_describe("g").group_epoch, 3);
    // Deleted: nothing comes back.
    beat(share::HeartbeatParams{.group_id = "g", .member_id = "a", .member_epoch = -1});
    ASSERT_EQ(coordinator->delete_group("g"), ErrorCode::none);
    EXPECT_EQ(restart(), 0u);
    EXPECT_FALSE(coordinator->contains("g"));
}

}  // namespace
}  // namespace skiff::broker::group
