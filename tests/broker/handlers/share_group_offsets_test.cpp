// DescribeShareGroupOffsets (90), AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92)
// over fakes of the share-group seams: the start offsets as the share-partition manager keeps
// them, GROUP_ID_NOT_FOUND for a group that is not a share group, NON_EMPTY_GROUP while it has
// members, unknown topics and partitions, KIP-932's ACLs (DESCRIBE / READ / DELETE on the group,
// DESCRIBE or READ on the topics), and share groups off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/security/acl.h"
#include "handler_fixture.h"
#include "protocol/alter_share_group_offsets.h"
#include "protocol/delete_share_group_offsets.h"
#include "protocol/describe_share_group_offsets.h"
#include "share_fakes.h"

namespace skiff::broker::test {
namespace {

using protocol::AlterShareGroupOffsetsRequest;
using protocol::DeleteShareGroupOffsetsRequest;
using protocol::DescribeShareGroupOffsetsRequest;
using protocol::DescribeShareGroupOffsetsRequestTopic;

class ShareGroupOffsetsTest : public HandlerTest {
  protected:
    void SetUp() override {
        membership.groups["empty"] = {};
        membership.groups["busy"] = {"m1"};
    }
    void wire() {
        broker().set_share_membership(&membership);
        broker().set_share_partitions(&partitions);
        broker().set_share_offsets_admin(&partitions);
    }
    protocol::DescribeShareGroupOffsetsResponseGroup describe(
        const std::string& group,
        std::optional<std::vector<DescribeShareGroupOffsetsRequestTopic>> topics,
        int16_t version = 1) {
        DescribeShareGroupOffsetsRequest req;
        req.groups.push_back({group, std::move(topics)});
        auto r = run(handle_describe_share_group_offsets, req, version);
        EXPECT_EQ(r.groups.size(), 1u);
        return r.groups.at(0);
    }
    protocol::AlterShareGroupOffsetsResponse alter(const std::string& group,
                                                   const std::string& topic, int32_t partition,
                                                   int64_t offset) {
        AlterShareGroupOffsetsRequest req;
        req.group_id = group;
        req.topics.push_back({topic, {{partition, offset}}});
        return run(handle_alter_share_group_offsets, req, 0);
    }
    protocol::DeleteShareGroupOffsetsResponse remove(const std::string& group,
                                                     const std::string& topic) {
        DeleteShareGroupOffsetsRequest req;
        req.group_id = group;
        req.topics.push_back({topic});
        return run(handle_delete_share_group_offsets, req, 0);
    }

    FakeShareMembership membership;
    FakeSharePartitionManager partitions;
};

TEST_F(ShareGroupOffsetsTest, AlterThenDescribeThenDelete) {
    create_topic("t", 2);
    wire();
    auto altered = alter("empty", "t", 1, 42);
    EXPECT_EQ(altered.error_code, ErrorCode::none);
    ASSERT_EQ(altered.responses.size(), 1u);
    EXPECT_EQ(altered.responses[0].partitions.at(0).error_code, ErrorCode::none);
    EXPECT_NE(altered.responses[0].topic_id, protocol::Uuid{});

    auto g = describe("empty", std::vector<DescribeShareGroupOffsetsRequestTopic>{{"t", {0, 1}}});
    EXPECT_EQ(g.error_code, ErrorCode::none);
    const auto& parts = g.topics.at(0).partitions;
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].start_offset, -1);  // no state
    EXPECT_EQ(parts[1].start_offset, 42);
    EXPECT_EQ(parts[1].lag, 0);

    // Topics null: every partition with state.
    auto all = describe("empty", std::nullopt);
    ASSERT_EQ(all.topics.size(), 1u);
    ASSERT_EQ(all.topics[0].partitions.size(), 1u);
    EXPECT_EQ(all.topics[0].partitions[0].partition_index, 1);

    auto deleted = remove("empty", "t");
    EXPECT_EQ(deleted.error_code, ErrorCode::none);
    EXPECT_EQ(deleted.responses.at(0).error_code, ErrorCode::none);
    EXPECT_TRUE(partitions.states.empty());
}

TEST_F(ShareGroupOffsetsTest, NotAShareGroup) {
    create_topic("t");
    wire();
    auto g = describe("nobody", std::nullopt);
    EXPECT_EQ(g.error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(alter("nobody", "t", 0, 1).error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(remove("nobody", "t").error_code, ErrorCode::group_id_not_found);
    EXPECT_TRUE(partitions.states.empty());
}

TEST_F(ShareGroupOffsetsTest, AGroupWithMembersIsNotAltered) {
    create_topic("t");
    wire();
    EXPECT_EQ(alter("busy", "t", 0, 5).error_code, ErrorCode::non_empty_group);
    EXPECT_EQ(remove("busy", "t").error_code, ErrorCode::non_empty_group);
    EXPECT_TRUE(partitions.states.empty());
}

TEST_F(ShareGroupOffsetsTest, UnknownTopicsPartitionsAndBadOffsets) {
    create_topic("t");
    wire();
    auto r = alter("empty", "missing", 0, 5);
    EXPECT_EQ(r.responses.at(0).partitions.at(0).error_code, ErrorCode::unknown_topic_or_partition);
    r = alter("empty", "t", 9, 5);
    EXPECT_EQ(r.responses.at(0).partitions.at(0).error_code, ErrorCode::unknown_topic_or_partition);
    r = alter("empty", "t", 0, -5);
    EXPECT_EQ(r.responses.at(0).partitions.at(0).error_code, ErrorCode::invalid_request);
    EXPECT_TRUE(partitions.states.empty());
    auto g =
        describe("empty", std::vector<DescribeShareGroupOffsetsRequestTopic>{{"missing", {0}}});
    EXPECT_EQ(g.topics.at(0).partitions.at(0).error_code, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(remove("empty", "missing").responses.at(0).error_code,
              ErrorCode::unknown_topic_or_partition);
}

TEST_F(ShareGroupOffsetsTest, DescribeV0HasNoLag) {
    create_topic("t");
    wire();
    alter("empty", "t", 0, 3);
    auto g = describe("empty", std::nullopt, 0);
    EXPECT_EQ(g.topics.at(0).partitions.at(0).start_offset, 3);
    EXPECT_EQ(g.topics.at(0).partitions.at(0).lag, -1);
}

TEST_F(ShareGroupOffsetsTest, WithoutTheShareGroupSeamsTheyAreUnsupported) {
    create_topic("t");
    EXPECT_EQ(describe("empty", std::nullopt).error_code, ErrorCode::unsupported_version);
    EXPECT_EQ(alter("empty", "t", 0, 1).error_code, ErrorCode::unsupported_version);
    EXPECT_EQ(remove("empty", "t").error_code, ErrorCode::unsupported_version);
}

class ShareGroupOffsetsAuthorizationTest : public ShareGroupOffsetsTest {
  protected:
    void SetUp() override {
        ShareGroupOffsetsTest::SetUp();
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        alice.principal = "User:alice";
        alice.host = "127.0.0.1";
        session = &alice;
    }
    void allow(security::ResourceType type, const std::string& name, security::AclOperation op) {
        auto error = broker().authorizer()->acls().add(
            {{type, name, security::PatternType::literal, "User:alice", "*", op,
              security::AclPermission::allow}});
        EXPECT_FALSE(error);
    }
    Session alice;
};

// KIP-932: Describe needs DESCRIBE on the group and the topic, Alter READ on both, Delete
// DELETE on the group and READ on the topic.
TEST_F(ShareGroupOffsetsAuthorizationTest, KafkasAcls) {
    create_topic("t");
    wire();
    using security::AclOperation;
    using security::ResourceType;
    EXPECT_EQ(describe("empty", std::nullopt).error_code, ErrorCode::group_authorization_failed);
    EXPECT_EQ(alter("empty", "t", 0, 1).error_code, ErrorCode::group_authorization_failed);
    EXPECT_EQ(remove("empty", "t").error_code, ErrorCode::group_authorization_failed);

    allow(ResourceType::group, "empty", AclOperation::read);
    auto altered = alter("empty", "t", 0, 1);
    EXPECT_EQ(altered.error_code, ErrorCode::none);
    EXPECT_EQ(altered.responses.at(0).partitions.at(0).error_code,
              ErrorCode::topic_authorization_failed);
    EXPECT_TRUE(partitions.states.empty());
    allow(ResourceType::topic, "t", AclOperation::read);
    EXPECT_EQ(alter("empty", "t", 0, 1).responses.at(0).partitions.at(0).error_code,
              ErrorCode::none);

    // READ implies DESCRIBE (Kafka's rule): the describe is allowed now. DELETE on the group is
    // still missing.
    EXPECT_EQ(describe("empty", std::vector<DescribeShareGroupOffsetsRequestTopic>{{"t", {0}}})
                  .topics.at(0)
                  .partitions.at(0)
                  .start_offset,
              1);
    EXPECT_EQ(remove("empty", "t").error_code, ErrorCode::group_authorization_failed);
    allow(ResourceType::group, "empty", AclOperation::remove);
    EXPECT_EQ(remove("empty", "t").responses.at(0).error_code, ErrorCode::none);
}

}  // namespace
}  // namespace skiff::broker::test
