// OffsetCommit and OffsetFetch: a commit fetched back (offset, leader epoch, metadata), simple
// commits of groups without members, generation and member checks, unknown partitions,
// oversized metadata, partitions never committed, "every partition" fetches (v2+) and several
// groups in one fetch (v8+), topics named by id (v10+).
#include <gtest/gtest.h>

#include "broker/topics/topic_ids.h"
#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

using protocol::OffsetCommitRequest;
using protocol::OffsetFetchRequest;
using protocol::OffsetFetchResponsePartition;

constexpr int16_t kCommitLatest = 10;
constexpr int16_t kFetchLatest = 10;

struct Commit {
    std::string topic;
    int32_t partition = 0;
    int64_t offset = 0;
    std::optional<std::string> metadata = "";
    int32_t leader_epoch = -1;
};

class OffsetCommitTest : public GroupHandlerTest {
  protected:
    // The topic's id; the zero id for a topic that does not exist.
    protocol::Uuid id_of(const std::string& topic) {
        auto id = broker().topics().topic_id(topic);
        return id ? to_uuid(*id) : protocol::Uuid{};
    }
    // Per-partition error codes, in request order.
    std::vector<ErrorCode> commit(const std::string& group, const std::vector<Commit>& commits,
                                  const Member& m = {"", -1}, int16_t version = kCommitLatest) {
        OffsetCommitRequest req;
        req.group_id = group;
        req.generation_id = m.generation;
        req.member_id = m.id;
        for (const auto& c : commits) {
            if (req.topics.empty() || req.topics.back().name != c.topic)
                req.topics.push_back({c.topic, id_of(c.topic), {}});
            protocol::OffsetCommitRequestPartition p;
            p.partition_index = c.partition;
            p.committed_offset = c.offset;
            p.committed_leader_epoch = c.leader_epoch;
            p.committed_metadata = c.metadata;
            req.topics.back().partitions.push_back(p);
        }
        auto resp = run(handle_offset_commit, req, version);
        std::vector<ErrorCode> out;
        for (const auto& t : resp.topics)
            for (const auto& p : t.partitions)
                out.push_back(p.error_code);
        return out;
    }
    OffsetFetchResponsePartition fetch(const std::string& group, const std::string& topic,
                                       int32_t partition, int16_t version = kFetchLatest) {
        OffsetFetchRequest req;
        std::vector<protocol::OffsetFetchRequestTopic> topics{{topic, id_of(topic), {partition}}};
        if (version >= 8) {
            req.groups.push_back({group, "member", 3, topics});
        } else {
            req.group_id = group;
            req.topics = topics;
        }
        auto resp = run(handle_offset_fetch, req, version);
        if (version >= 8) {  // one group answered, its fields in the v0-7 places for the checks
            if (resp.groups.size() != 1)
                throw std::runtime_error("expected one group");
            EXPECT_EQ(resp.groups[0].group_id, group);
            EXPECT_TRUE(resp.topics.empty());
            resp.topics = resp.groups[0].topics;
            resp.error_code = resp.groups[0].error_code;
        }
        EXPECT_EQ(resp.error_code, ErrorCode::none);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1)
            throw std::runtime_error("expected one topic with one partition");
        if (version >= 10)  // named by id only
            EXPECT_EQ(resp.topics[0].topic_id, id_of(topic));
        else
            EXPECT_EQ(resp.topics[0].name, topic);
        EXPECT_EQ(resp.topics[0].partitions[0].partition_index, partition);
        return resp.topics[0].partitions[0];
    }
};

TEST_F(OffsetCommitTest, ASimpleCommitIsFetchedBack) {
    create_topic("t", 2);
    EXPECT_EQ(commit("g", {{"t", 0, 42, "meta", 3}, {"t", 1, 7}}),
              (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::none}));
    auto p0 = fetch("g", "t", 0);
    EXPECT_EQ(p0.error_code, ErrorCode::none);
    EXPECT_EQ(p0.committed_offset, 42);
    EXPECT_EQ(p0.committed_leader_epoch, 3);
    EXPECT_EQ(p0.metadata, "meta");
    EXPECT_EQ(fetch("g", "t", 1).committed_offset, 7);

    // A later commit replaces the earlier one.
    commit("g", {{"t", 0, 50}});
    EXPECT_EQ(fetch("g", "t", 0).committed_offset, 50);
    // Other groups see nothing.
    EXPECT_EQ(fetch("other", "t", 0).committed_offset, -1);
}

// Durable mode (log.flush.interval.messages=1): the commit is answered once a group-commit
// thread has synced it, so the answer comes with the offsets log synced to its end.
TEST_F(OffsetCommitTest, DurableModeAnswersOnceTheCommitIsSynced) {
    config.log_flush_interval_messages = 1;
    create_topic("t");
    auto* offsets = broker().logs().get({"__consumer_offsets", 0});
    ASSERT_NE(offsets, nullptr);
    ASSERT_TRUE(offsets->durable_mode());
    for (int64_t i = 1; i <= 3; ++i) {
        EXPECT_EQ(commit("g", {{"t", 0, i}}), std::vector<ErrorCode>{ErrorCode::none});
        // high_watermark() of a durable-mode log is the end of what is synced.
        EXPECT_EQ(offsets->high_watermark(), offsets->log_end_offset());
        EXPECT_EQ(fetch("g", "t", 0).committed_offset, i);
    }
}

TEST_F(OffsetCommitTest, NeverCommittedIsMinusOneWithoutError) {
    create_topic("t");
    auto p = fetch("g", "t", 0);
    EXPECT_EQ(p.error_code, ErrorCode::none);
    EXPECT_EQ(p.committed_offset, -1);
    EXPECT_EQ(p.committed_leader_epoch, -1);
    EXPECT_EQ(p.metadata, "");
    // Also for a topic that does not exist.
    EXPECT_EQ(fetch("g", "missing", 0).committed_offset, -1);
}

TEST_F(OffsetCommitTest, AMemberCommitsInItsGeneration) {
    create_topic("t");
    Member m = stable_member("g");
    EXPECT_EQ(commit("g", {{"t", 0, 5}}, m), std::vector<ErrorCode>{ErrorCode::none});
    EXPECT_EQ(fetch("g", "t", 0).committed_offset, 5);

    EXPECT_EQ(commit("g", {{"t", 0, 6}}, {m.id, m.generation + 1}),
              std::vector<ErrorCode>{ErrorCode::illegal_generation});
    EXPECT_EQ(commit("g", {{"t", 0, 6}}, {"made-up", m.generation}),
              std::vector<ErrorCode>{ErrorCode::unknown_member_id});
    // A simple commit while the group has members is not allowed either.
    EXPECT_EQ(commit("g", {{"t", 0, 6}}), std::vector<ErrorCode>{ErrorCode::unknown_member_id});
    EXPECT_EQ(fetch("g", "t", 0).committed_offset, 5);
}

TEST_F(OffsetCommitTest, WhileTheGroupAwaitsItsAssignmentIsRebalanceInProgress) {
    create_topic("t");
    Member m;
    m.id = member_id_for("g");
    m.generation = run(handle_join_group, join_request("g", m.id), kJoinVersion).generation_id;
    ASSERT_EQ(broker().groups().state("g"), group::ClassicGroupState::completing_rebalance);
    EXPECT_EQ(commit("g", {{"t", 0, 5}}, m),
              std::vector<ErrorCode>{ErrorCode::rebalance_in_progress});
    EXPECT_EQ(fetch("g", "t", 0).committed_offset, -1);
}

TEST_F(OffsetCommitTest, AGenerationForAnUnknownGroupIsIllegalGenerationBeforeV9) {
    create_topic("t");
    EXPECT_EQ(commit("new", {{"t", 0, 5}}, {"m", 1}, 8),
              std::vector<ErrorCode>{ErrorCode::illegal_generation});
    EXPECT_EQ(fetch("new", "t", 0).committed_offset, -1);
    EXPECT_FALSE(broker().groups().state("new"));
}

TEST_F(OffsetCommitTest, AGenerationForAnUnknownGroupIsGroupIdNotFoundFromV9) {
    create_topic("t");
    EXPECT_EQ(commit("new", {{"t", 0, 5}}, {"m", 1}, 9),
              std::vector<ErrorCode>{ErrorCode::group_id_not_found});
    EXPECT_EQ(fetch("new", "t", 0).committed_offset, -1);
    // A wrong generation of a group that exists stays ILLEGAL_GENERATION.
    Member m = stable_member("g");
    EXPECT_EQ(commit("g", {{"t", 0, 6}}, {m.id, m.generation + 1}, 9),
              std::vector<ErrorCode>{ErrorCode::illegal_generation});
}

TEST_F(OffsetCommitTest, EmptyGroupIdIsInvalidGroupId) {
    create_topic("t");
    EXPECT_EQ(commit("", {{"t", 0, 5}}), std::vector<ErrorCode>{ErrorCode::invalid_group_id});
}

TEST_F(OffsetCommitTest, UnknownPartitionsAreRefusedTheRestCommitted) {
    create_topic("t", 1);
    // By name (v9); from v10 a topic that does not exist has no id to send (see below).
    EXPECT_EQ(commit("g", {{"t", 0, 1}, {"t", 1, 1}, {"missing", 0, 1}}, {"", -1}, 9),
              (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::unknown_topic_or_partition,
                                      ErrorCode::unknown_topic_or_partition}));
    EXPECT_EQ(commit("g", {{"t", 1, 1}}, {"", -1}, 10),
              (std::vector<ErrorCode>{ErrorCode::unknown_topic_or_partition}));
    EXPECT_EQ(fetch("g", "t", 0).committed_offset, 1);
    EXPECT_EQ(fetch("g", "t", 1).committed_offset, -1);
}

TEST_F(OffsetCommitTest, MetadataOverTheLimitIsRefused) {
    config.offset_metadata_max_bytes = 8;
    create_topic("t", 2);
    EXPECT_EQ(commit("g", {{"t", 0, 1, std::string(8, 'm')}, {"t", 1, 1, std::string(9, 'm')}}),
              (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::offset_metadata_too_large}));
    EXPECT_EQ(fetch("g", "t", 1).committed_offset, -1);
}

TEST_F(OffsetCommitTest, FetchingEveryCommittedPartition) {
    create_topic("a", 2);
    create_topic("b");
    commit("g", {{"a", 1, 11}, {"b", 0, 20}, {"a", 0, 10}});
    OffsetFetchRequest req;
    req.group_id = "g";
    req.topics = std::nullopt;
    auto resp = run(handle_offset_fetch, req, 7);
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].name, "a");
    ASSERT_EQ(resp.topics[0].partitions.size(), 2u);
    EXPECT_EQ(resp.topics[0].partitions[0].partition_index, 0);
    EXPECT_EQ(resp.topics[0].partitions[0].committed_offset, 10);
    EXPECT_EQ(resp.topics[0].partitions[1].committed_offset, 11);
    EXPECT_EQ(resp.topics[1].name, "b");
    EXPECT_EQ(resp.topics[1].partitions[0].committed_offset, 20);
}

TEST_F(OffsetCommitTest, V8FetchesSeveralGroupsEachInItsOwnEntry) {
    create_topic("a", 2);
    commit("g1", {{"a", 0, 10}, {"a", 1, 11}});
    commit("g2", {{"a", 1, 21}});
    OffsetFetchRequest req;
    req.groups.push_back({"g1", std::nullopt, -1, std::nullopt});  // every committed partition
    req.groups.push_back(
        {"g2", std::nullopt, -1,
         std::vector<protocol::OffsetFetchRequestTopic>{{"a", id_of("a"), {0, 1}}}});
    req.groups.push_back({"unknown", std::nullopt, -1, std::nullopt});
    for (int16_t v : {8, 9, 10}) {
        auto resp = run(handle_offset_fetch, req, v);
        EXPECT_TRUE(resp.topics.empty());
        ASSERT_EQ(resp.groups.size(), 3u) << "v" << v;
        const auto& g1 = resp.groups[0];
        EXPECT_EQ(g1.group_id, "g1");
        EXPECT_EQ(g1.error_code, ErrorCode::none);
        ASSERT_EQ(g1.topics.size(), 1u);
        EXPECT_EQ(g1.topics[0].topic_id, v >= 10 ? id_of("a") : protocol::Uuid{});
        ASSERT_EQ(g1.topics[0].partitions.size(), 2u);
        EXPECT_EQ(g1.topics[0].partitions[0].committed_offset, 10);
        EXPECT_EQ(g1.topics[0].partitions[1].committed_offset, 11);
        const auto& g2 = resp.groups[1];
        EXPECT_EQ(g2.group_id, "g2");
        ASSERT_EQ(g2.topics.size(), 1u);
        ASSERT_EQ(g2.topics[0].partitions.size(), 2u);
        EXPECT_EQ(g2.topics[0].partitions[0].committed_offset, -1);
        EXPECT_EQ(g2.topics[0].partitions[1].committed_offset, 21);
        // A group without offsets answers nothing and no error, as Kafka does.
        EXPECT_EQ(resp.groups[2].group_id, "unknown");
        EXPECT_EQ(resp.groups[2].error_code, ErrorCode::none);
        EXPECT_TRUE(resp.groups[2].topics.empty());
    }
}

TEST_F(OffsetCommitTest, V10AnUnknownTopicIdIsUnknownTopicIdAndNothingIsCommitted) {
    create_topic("t");
    protocol::Uuid unknown;
    unknown.bytes[9] = 0x99;
    OffsetCommitRequest req;
    req.group_id = "g";
    req.topics.push_back({"", unknown, {{0, 5, -1, -1, ""}, {1, 6, -1, -1, ""}}});
    req.topics.push_back({"", id_of("t"), {{0, 7, -1, -1, ""}}});
    auto resp = run(handle_offset_commit, req, 10);
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].topic_id, unknown);
    for (const auto& p : resp.topics[0].partitions)
        EXPECT_EQ(p.error_code, ErrorCode::unknown_topic_id);
    EXPECT_EQ(resp.topics[1].topic_id, id_of("t"));
    EXPECT_EQ(resp.topics[1].partitions.at(0).error_code, ErrorCode::none);
    EXPECT_EQ(fetch("g", "t", 0, 9).committed_offset, 7);
    // Only t's offset was stored.
    OffsetFetchRequest all;
    all.groups.push_back({"g", std::nullopt, -1, std::nullopt});
    auto every = run(handle_offset_fetch, all, 9);
    ASSERT_EQ(every.groups.at(0).topics.size(), 1u);
    EXPECT_EQ(every.groups[0].topics[0].name, "t");
}

TEST_F(OffsetCommitTest, V10FetchByIdUnknownIdsAndTopicsDeletedSinceTheCommit) {
    create_topic("kept");
    create_topic("gone");
    commit("g", {{"gone", 0, 3}, {"kept", 0, 4}});
    const auto gone_id = id_of("gone");
    ASSERT_EQ(broker().topics().remove("gone"), ErrorCode::none);
    // By id: the deleted topic's id is no topic's any more.
    OffsetFetchRequest req;
    req.groups.push_back({"g", std::nullopt, -1,
                          std::vector<protocol::OffsetFetchRequestTopic>{
                              {"", gone_id, {0}}, {"", id_of("kept"), {0}}}});
    auto resp = run(handle_offset_fetch, req, 10);
    const auto& topics = resp.groups.at(0).topics;
    ASSERT_EQ(topics.size(), 2u);
    EXPECT_EQ(topics[0].topic_id, gone_id);
    EXPECT_EQ(topics[0].partitions.at(0).error_code, ErrorCode::unknown_topic_id);
    EXPECT_EQ(topics[0].partitions.at(0).committed_offset, -1);
    EXPECT_EQ(topics[1].partitions.at(0).error_code, ErrorCode::none);
    EXPECT_EQ(topics[1].partitions.at(0).committed_offset, 4);
    // Every committed partition: a topic without an id is left out, the rest carry theirs.
    OffsetFetchRequest all;
    all.groups.push_back({"g", std::nullopt, -1, std::nullopt});
    auto every = run(handle_offset_fetch, all, 10);
    ASSERT_EQ(every.groups.at(0).topics.size(), 1u);
    EXPECT_EQ(every.groups[0].topics[0].topic_id, id_of("kept"));
    EXPECT_EQ(every.groups[0].topics[0].partitions.at(0).committed_offset, 4);
}

TEST_F(OffsetCommitTest, CommitsSurviveARestart) {
    create_topic("t");
    commit("g", {{"t", 0, 42, "meta", 3}});
    restart();
    auto p = fetch("g", "t", 0);
    EXPECT_EQ(p.committed_offset, 42);
    EXPECT_EQ(p.committed_leader_epoch, 3);
    EXPECT_EQ(p.metadata, "meta");
}

TEST_F(OffsetCommitTest, EverySupportedVersionRoundTrips) {
    create_topic("t");
    for (int16_t v = 0; v <= kCommitLatest; ++v) {
        EXPECT_EQ(commit("g", {{"t", 0, 100 + v}}, {"", -1}, v),
                  std::vector<ErrorCode>{ErrorCode::none})
            << "commit v" << v;
        EXPECT_EQ(fetch("g", "t", 0).committed_offset, 100 + v) << "commit v" << v;
    }
    for (int16_t v = 0; v <= kFetchLatest; ++v)
        EXPECT_EQ(fetch("g", "t", 0, v).committed_offset, 100 + kCommitLatest) << "fetch v" << v;
}

}  // namespace
}  // namespace skiff::broker::test
