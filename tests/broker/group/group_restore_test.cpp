// Group state in __consumer_offsets across a restart: the coordinator writes a classic group's
// GroupMetadata record and a consumer group's records, a new coordinator over the reopened log
// restores them (members resume with their generation or epoch and assignment), idle heartbeats
// write nothing, and a deleted group's records are gone after the restart.
#include <gtest/gtest.h>

#include "broker/group/classic/classic_records.h"
#include "broker/group/consumer/consumer_records.h"
#include "broker/group/group_configs.h"
#include "tests/broker/group/coordinator_fixture.h"

namespace skiff::broker::group {
namespace {

using consumer::Assignment;
using consumer::HeartbeatParams;
using protocol::ErrorCode;

struct GroupRestoreTest : GroupCoordinatorTest {
    std::map<std::string, int32_t> topics{{"t", 6}, {"u", 2}};

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
    // A broker restart: a new store and coordinator over the same log, restored.
    size_t restart() {
        make(0);
        return coordinator->restore(view());
    }
    consumer::HeartbeatResult beat(const HeartbeatParams& p) {
        return coordinator->consumer_heartbeat(p, view());
    }
    static HeartbeatParams joining(std::string id) { return consumer_joining(std::move(id)); }
    static HeartbeatParams steady(std::string id, int32_t epoch, std::optional<Assignment> owned) {
        HeartbeatParams p;
        p.api_version = 1;
        p.group_id = "g";
        p.member_id = std::move(id);
        p.member_epoch = epoch;
        p.owned = std::move(owned);
        return p;
    }
    // Two members reconciled to a stable split of t's six partitions.
    void form_consumer_group() {
        auto a = beat(joining("a"));
        auto b = beat(joining("b"));
        auto a2 = beat(steady("a", 1, a.assignment));
        beat(steady("a", 1, a2.assignment));
        beat(steady("b", 2, Assignment{}));
        ASSERT_EQ(coordinator->consumer_describe("g").state, "Stable");
    }
};

TEST_F(GroupRestoreTest, ClassicGroupResumesWithItsGenerationAndAssignments) {
    coordinator->restore(view());
    const StaticGroup sg = form_static_group(*this);
    const auto before = coordinator->describe("g");
    ASSERT_EQ(restart(), 1u);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
    EXPECT_EQ(coordinator->generation("g"), sg.generation);
    // Both members carry on with their generation: no rebalance.
    EXPECT_EQ(coordinator->heartbeat("g", sg.generation, sg.s1, std::string("s1")),
              ErrorCode::none);
    EXPECT_EQ(coordinator->heartbeat("g", sg.generation, sg.s2, std::string("s2")),
              ErrorCode::none);
    EXPECT_EQ(coordinator->state("g"), ClassicGroupState::stable);
    const auto after = coordinator->describe("g");
    EXPECT_EQ(after.protocol_data, before.protocol_data);
    ASSERT_EQ(after.members.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(after.members[i].member_id, before.members[i].member_id);
        EXPECT_EQ(after.members[i].member_assignment, before.members[i].member_assignment);
        EXPECT_EQ(after.members[i].member_metadata, before.members[i].member_metadata);
    }
    // A member that does not come back is expired at its session timeout.
    advance(1100);
    EXPECT_NE(coordinator->state("g"), ClassicGroupState::stable);
}

TEST_F(GroupRestoreTest, ConsumerGroupResumesWithEpochsAndAssignments) {
    coordinator->restore(view());
    form_consumer_group();
    const auto before = coordinator->consumer_describe("g");
    ASSERT_EQ(restart(), 1u);
    const auto after = coordinator->consumer_describe("g");
    EXPECT_EQ(after.state, "Stable");
    EXPECT_EQ(after.group_epoch, before.group_epoch);
    EXPECT_EQ(after.assignment_epoch, before.assignment_epoch);
    ASSERT_EQ(after.members.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(after.members[i].member.member_id, before.members[i].member.member_id);
        EXPECT_EQ(after.members[i].member.member_epoch, before.members[i].member.member_epoch);
        EXPECT_EQ(after.members[i].member.assigned, before.members[i].member.assigned);
        EXPECT_EQ(after.members[i].target, before.members[i].target);
        EXPECT_EQ(after.members[i].member.subscribed_topic_names,
                  before.members[i].member.subscribed_topic_names);
    }
    // The members' next heartbeats are accepted with their epochs, and nothing moves.
    const auto& a = after.members[0].member;
    auto r = beat(steady(a.member_id, a.member_epoch, a.assigned));
    ASSERT_EQ(r.error, ErrorCode::none) << r.error_message.value_or("");
    EXPECT_EQ(r.member_epoch, a.member_epoch);
    EXPECT_EQ(coordinator->consumer_describe("g").group_epoch, before.group_epoch);
}

TEST_F(GroupRestoreTest, RestoredMembersSessionsAreTheGroupsOwn) {
    coordinator->restore(view());
    form_consumer_group();
    // The group's consumer.session.timeout.ms, 3 s (the broker's is 45 s).
    config::BrokerConfig broker;
    broker.group_consumer_min_session_timeout_ms = 1000;
    broker.group_consumer_min_heartbeat_interval_ms = 100;
    GroupConfigs configs(dir.path() / kGroupConfigsFile, broker);
    ASSERT_EQ(configs
                  .set("g",
                       {{"consumer.session.timeout.ms", "3000"},
                        {"consumer.heartbeat.interval.ms", "1000"}},
                       false)
                  .error,
              ErrorCode::none);

    // Restored without the group configs: the broker's 45 s.
    ASSERT_EQ(restart(), 1u);
    advance(3100);
    EXPECT_EQ(coordinator->consumer_describe("g").members.size(), 2u);
    // With them: both members, silent since the restart, are gone after 3 s.
    make(0);
    ASSERT_EQ(coordinator->restore(view(), &configs), 1u);
    advance(2900);
    EXPECT_EQ(coordinator->consumer_describe("g").members.size(), 2u);
    advance(200);
    EXPECT_EQ(coordinator->consumer_describe("g").members.size(), 0u);
}

TEST_F(GroupRestoreTest, IdleHeartbeatsWriteNothing) {
    coordinator->restore(view());
    form_consumer_group();
    const auto d = coordinator->consumer_describe("g");
    const int64_t end = log->log_end_offset();
    for (int i = 0; i < 10; ++i)
        for (const auto& m : d.members)
            ASSERT_EQ(
                beat(steady(m.member.member_id, m.member.member_epoch, m.member.assigned)).error,
                ErrorCode::none);
    advance(500);
    EXPECT_EQ(log->log_end_offset(), end);
}

TEST_F(GroupRestoreTest, AMemberThatLeftStaysGoneAfterARestart) {
    coordinator->restore(view());
    form_consumer_group();
    auto leave = steady("b", -1, std::nullopt);
    ASSERT_EQ(beat(leave).error, ErrorCode::none);
    const int32_t epoch = coordinator->consumer_describe("g").group_epoch;
    ASSERT_EQ(restart(), 1u);
    const auto after = coordinator->consumer_describe("g");
    ASSERT_EQ(after.members.size(), 1u);
    EXPECT_EQ(after.members[0].member.member_id, "a");
    EXPECT_EQ(after.group_epoch, epoch);
    EXPECT_EQ(beat(steady("b", 2, Assignment{})).error, ErrorCode::unknown_member_id);
}

TEST_F(GroupRestoreTest, ADeletedGroupIsNotRestored) {
    coordinator->restore(view());
    form_consumer_group();
    for (const auto& id : {"a", "b"})
        ASSERT_EQ(beat(steady(id, -1, std::nullopt)).error, ErrorCode::none);
    ASSERT_EQ(coordinator->delete_group("g"), ErrorCode::none);
    EXPECT_TRUE(store->group_records().empty());
    EXPECT_EQ(restart(), 0u);
    EXPECT_FALSE(coordinator->contains("g"));
    EXPECT_TRUE(store->group_records().empty());
}

TEST_F(GroupRestoreTest, ARegularExpressionsTopicsAreRestored) {
    coordinator->restore(view());
    auto p = joining("a");
    p.subscribed_topic_names.reset();
    p.subscribed_topic_regex = "t|u";
    auto r = beat(p);
    ASSERT_EQ(r.error, ErrorCode::none);
    // Resolved from the next heartbeat on (Kafka resolves a new pattern asynchronously).
    ASSERT_EQ(beat(steady("a", r.member_epoch, r.assignment)).error, ErrorCode::none);
    ASSERT_EQ(restart(), 1u);
    const auto d = coordinator->consumer_describe("g");
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member.subscribed_topic_regex, "t|u");
    EXPECT_EQ(d.members[0].member.assigned, (Assignment{{"t", {0, 1, 2, 3, 4, 5}}, {"u", {0, 1}}}));
    bool regex_record = false;
    const GroupRecordMap records = store->group_records();
    for (const auto& [key, value] : records.at("g"))
        regex_record |= *record_version(record_bytes(key)) == consumer::kConsumerGroupRegexType;
    EXPECT_TRUE(regex_record);
}

TEST(GroupRecordsFormat, GroupMetadataValueReadsKafkasVersionsZeroToFour) {
    GroupMetadataValue v;
    v.protocol_type = "consumer";
    v.generation = 7;
    v.protocol = "range";
    v.leader = "m1";
    v.members.push_back({"m1", "i1", "c", "/127.0.0.1", 300, 100, {std::byte{1}}, {std::byte{2}}});
    for (int16_t version = 0; version <= 4; ++version) {
        auto back = decode_record<GroupMetadataValue>(record_bytes(encode_record(v, version)));
        ASSERT_TRUE(back) << version << ": " << back.error().message;
        EXPECT_EQ(back->generation, 7);
        ASSERT_EQ(back->members.size(), 1u);
        EXPECT_EQ(back->members[0].session_timeout, 100);
        EXPECT_EQ(back->members[0].group_instance_id,
                  version >= 3 ? std::optional<std::string>("i1") : std::nullopt);
    }
    // The key is Kafka's: version 2, then the group id as an int16-length string.
    const std::string key = encode_record(GroupMetadataKey{"g"}, GroupMetadataKey::kVersion);
    EXPECT_EQ(key, std::string("\0\2\0\1g", 5));
    EXPECT_EQ(*record_group_id(record_bytes(key)), "g");
}

}  // namespace
}  // namespace skiff::broker::group
