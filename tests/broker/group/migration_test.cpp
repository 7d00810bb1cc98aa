// Online migration through the GroupCoordinator (migration.h): a classic group of "consumer"
// members upgraded by a consumer-protocol join, its classic members served from the consumer
// group (rejoin on REBALANCE_IN_PROGRESS, generation = member epoch, the assignment in
// SyncGroup), and the downgrade when the consumer-protocol member leaves; the embedded
// consumer protocol's messages.
#include <gtest/gtest.h>

#include "broker/group/embedded_consumer_protocol.h"
#include "tests/broker/group/coordinator_fixture.h"

namespace skiff::broker::group {
namespace {

using consumer::Assignment;
using consumer::HeartbeatParams;
using protocol::ErrorCode;

// A ConsumerProtocolSubscription v0 of `topics`, as a classic client writes it.
std::vector<std::byte> subscription_v0(const std::vector<std::string>& topics) {
    std::vector<std::byte> out;
    auto put = [&](uint64_t v, int width) {
        for (int i = width - 1; i >= 0; --i)
            out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
    };
    put(0, 2);
    put(topics.size(), 4);
    for (const auto& t : topics) {
        put(t.size(), 2);
        for (char c : t)
            out.push_back(static_cast<std::byte>(c));
    }
    put(0xffffffff, 4);  // user_data: null
    return out;
}

struct MigrationTest : GroupCoordinatorTest {
    std::map<std::string, int32_t> topics{{"t", 4}};
    TopicView view() {
        return {[this](const std::string& name) {
                    auto it = topics.find(name);
                    return it == topics.end() ? std::nullopt : std::optional<int32_t>(it->second);
                },
                [this] { return std::vector<std::string>{"t"}; },
                {},
                {}};
    }
    void SetUp() override {
        GroupCoordinatorTest::SetUp();
        coordinator->restore(view());
    }
    JoinParams classic_params(std::string member_id) {
        JoinParams p = params(std::move(member_id));
        p.protocols = {{"range", subscription_v0({"t"})}};
        return p;
    }
    // Two classic members, Stable at generation 2 with two partitions each.
    std::pair<std::string, std::string> form_classic_group() {
        const std::string a = new_member();
        auto alone = join(classic_params(a));
        EXPECT_TRUE(alone->has_value());
        sync(a, (*alone)->generation_id, {{a, encode_assignment({{"t", {0, 1, 2, 3}}}, 0)}});
        auto first = join(classic_params(""));
        const std::string b = (*first)->member_id;
        auto jb = join(classic_params(b));
        auto ja = join(classic_params(a));
        EXPECT_TRUE(ja->has_value() && jb->has_value());
        const int32_t generation = (*ja)->generation_id;
        sync(b, generation);
        sync(a, generation,
             {{a, encode_assignment({{"t", {0, 1}}}, 0)},
              {b, encode_assignment({{"t", {2, 3}}}, 0)}});
        EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
        return {a, b};
    }
    consumer::HeartbeatResult beat(const HeartbeatParams& p) {
        return coordinator->consumer_heartbeat(p, view());
    }
};

TEST_F(MigrationTest, AConsumerProtocolJoinUpgradesAndTheLastLeaveDowngrades) {
    auto [a, b] = form_classic_group();
    const int32_t generation = coordinator->generation("g");
    auto c = beat(consumer_joining("c"));
    ASSERT_EQ(c.error, ErrorCode::none) << c.error_message.value_or("");
    auto d = coordinator->consumer_describe("g");
    ASSERT_EQ(d.error, ErrorCode::none);
    ASSERT_EQ(d.members.size(), 3u);
    EXPECT_EQ(d.group_epoch, generation + 1);
    // The classic members keep their partitions at a member epoch equal to their generation,
    // and are told to join again.
    EXPECT_EQ(coordinator->heartbeat("g", generation, a, std::nullopt),
              ErrorCode::rebalance_in_progress);
    auto rejoin = join(classic_params(a));
    ASSERT_TRUE(rejoin->has_value());
    ASSERT_EQ((*rejoin)->error, ErrorCode::none);
    EXPECT_TRUE((*rejoin)->leader.empty()) << "a classic member of a consumer group never leads";
    const int32_t epoch_a = (*rejoin)->generation_id;
    auto s = sync(a, epoch_a);
    ASSERT_TRUE(s->has_value());
    ASSERT_EQ((*s)->error, ErrorCode::none);
    auto assigned = decode_assignment((*s)->assignment);
    ASSERT_TRUE(assigned);
    // A stale generation is refused; an OffsetCommit with the member epoch is accepted.
    EXPECT_EQ(coordinator->heartbeat("g", epoch_a + 7, a, std::nullopt),
              ErrorCode::illegal_generation);
    EXPECT_EQ(coordinator->validate_commit("g", epoch_a, a, std::nullopt, 2), ErrorCode::none);
    // A consumer-protocol member's id is not a classic member's.
    EXPECT_EQ(coordinator->heartbeat("g", c.member_epoch, "c", std::nullopt),
              ErrorCode::unknown_member_id);

    // c leaves: only classic members remain, and the group is classic again, rebalancing.
    HeartbeatParams leave;
    leave.api_version = 1;
    leave.group_id = "g";
    leave.member_id = "c";
    leave.member_epoch = -1;
    ASSERT_EQ(beat(leave).error, ErrorCode::none);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::preparing_rebalance);
    EXPECT_EQ(coordinator->consumer_describe("g").error, ErrorCode::group_id_not_found);
    EXPECT_EQ(coordinator->heartbeat("g", coordinator->generation("g"), b, std::nullopt),
              ErrorCode::rebalance_in_progress);
}

TEST_F(MigrationTest, ADisabledPolicyKeepsTheClassicGroup) {
    coordinator.reset();
    CoordinatorConfig config;
    config.initial_rebalance_delay_ms = 0;
    config.migration = parse_migration_policy("disabled");
    coordinator = std::make_unique<GroupCoordinator>(config, *store, [this] { return now; });
    form_classic_group();
    EXPECT_EQ(beat(consumer_joining("c")).error, ErrorCode::group_id_not_found);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
}

// Classic members of a consumer group are held to their rebalance timeout as in Kafka: one that
// joins and never syncs, and one told to rejoin that never does, are removed after it, although
// their sessions (30 s here) are alive.
struct ClassicTimeoutsTest : MigrationTest {
    static HeartbeatParams consumer_join(std::string id) {
        return consumer_joining(std::move(id), {"t"}, 60000);
    }
    JoinParams slow_classic(std::string member_id) {
        JoinParams p = classic_params(std::move(member_id));
        p.session_timeout_ms = 30000;
        p.rebalance_timeout_ms = 3000;
        return p;
    }
    // A consumer group of one consumer-protocol member, "c".
    void SetUp() override {
        MigrationTest::SetUp();
        ASSERT_EQ(beat(consumer_join("c")).error, ErrorCode::none);
    }
    // A new classic member joined: its id and generation.
    std::pair<std::string, int32_t> join_classic() {
        auto first = join(slow_classic(""));
        EXPECT_EQ((*first)->error, ErrorCode::member_id_required);
        const std::string x = (*first)->member_id;
        auto joined = join(slow_classic(x));
        EXPECT_TRUE(joined->has_value());
        EXPECT_EQ((*joined)->error, ErrorCode::none);
        return {x, (*joined)->generation_id};
    }
    size_t members() { return coordinator->consumer_describe("g").members.size(); }
};

TEST_F(ClassicTimeoutsTest, AClassicMemberThatNeverSyncsIsRemovedAfterItsRebalanceTimeout) {
    auto [x, generation] = join_classic();
    ASSERT_EQ(members(), 2u);
    for (int i = 0; i < 5; ++i) {  // heartbeats alone do not keep it
        advance(580);
        coordinator->heartbeat("g", generation, x, std::nullopt);
    }
    EXPECT_EQ(members(), 2u) << "2.9 s after its JoinGroup";
    advance(200);
    EXPECT_EQ(members(), 1u) << "3.1 s after its JoinGroup without a SyncGroup";
    EXPECT_EQ(coordinator->heartbeat("g", generation, x, std::nullopt),
              ErrorCode::unknown_member_id);

    // One that syncs in time stays.
    auto [y, y_generation] = join_classic();
    auto synced = sync(y, y_generation);
    ASSERT_EQ((*synced)->error, ErrorCode::none);
    for (int i = 0; i < 10; ++i) {
        advance(500);
        coordinator->heartbeat("g", y_generation, y, std::nullopt);
    }
    EXPECT_EQ(members(), 2u);
}

TEST_F(ClassicTimeoutsTest, AClassicMemberToldToRejoinMustWithinItsRebalanceTimeout) {
    auto [x, generation] = join_classic();
    ASSERT_EQ((*sync(x, generation))->error, ErrorCode::none);
    ASSERT_EQ(coordinator->heartbeat("g", generation, x, std::nullopt), ErrorCode::none);
    // A new consumer-protocol member moves the group on: x is told to rejoin, and keeps
    // heartbeating without doing so. The deadline runs from the first time it was told.
    ASSERT_EQ(beat(consumer_join("d")).error, ErrorCode::none);
    ASSERT_EQ(coordinator->heartbeat("g", generation, x, std::nullopt),
              ErrorCode::rebalance_in_progress);
    for (int i = 0; i < 5; ++i) {
        advance(580);
        EXPECT_EQ(coordinator->heartbeat("g", generation, x, std::nullopt),
                  ErrorCode::rebalance_in_progress);
    }
    EXPECT_EQ(members(), 3u);
    advance(200);
    EXPECT_EQ(members(), 2u) << "3.1 s after it was first told to rejoin";

    // One that rejoins in time (and syncs) stays.
    auto [y, y_generation] = join_classic();
    ASSERT_EQ((*sync(y, y_generation))->error, ErrorCode::none);
    ASSERT_EQ(beat(consumer_join("e")).error, ErrorCode::none);
    ASSERT_EQ(coordinator->heartbeat("g", y_generation, y, std::nullopt),
              ErrorCode::rebalance_in_progress);
    advance(1000);
    auto rejoined = join(slow_classic(y));
    ASSERT_EQ((*rejoined)->error, ErrorCode::none);
    ASSERT_EQ((*sync(y, (*rejoined)->generation_id))->error, ErrorCode::none);
    advance(3000);
    bool y_there = false;
    for (const auto& m : coordinator->consumer_describe("g").members)
        y_there |= m.member.member_id == y;
    EXPECT_TRUE(y_there);
}

TEST(EmbeddedConsumerProtocol, SubscriptionAndAssignmentVersions) {
    auto s = decode_subscription(subscription_v0({"a", "b"}));
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->topics, (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(s->owned_partitions.empty());
    for (int16_t v : {0, 1, 5}) {
        auto bytes = encode_assignment({{"t", {1, 3}}}, v);
        auto back = decode_assignment(bytes);
        ASSERT_TRUE(back) << v;
        EXPECT_EQ(*back, (TopicPartitionSets{{"t", {1, 3}}}));
    }
    EXPECT_TRUE(decode_assignment({})->empty());
    std::vector<std::byte> truncated = subscription_v0({"a"});
    truncated.resize(5);
    EXPECT_FALSE(decode_subscription(truncated));
    EXPECT_EQ(parse_migration_policy("UPGRADE").downgrade, false);
}

}  // namespace
}  // namespace skiff::broker::group
