// The ACL checks of the request handlers, with the built-in authorizer and a client
// authenticated as User:alice from 127.0.0.1, who may WRITE and READ topics starting "orders-"
// (except a DENY of WRITE on orders-secret) and READ the group "billing". Each handler answers
// Kafka's error for what she may not do (TOPIC_, GROUP_, CLUSTER_,
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED), nothing of a refused request takes effect, Metadata and
// ListGroups leave out what she may not describe; a super user may do everything.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "broker/net/session.h"
#include "broker/security/acl.h"
#include "handler_fixture.h"
#include "protocol/protocol.h"

namespace skiff::broker::test {
namespace {

using security::AclBinding;
using security::AclOperation;
using security::AclPermission;
using security::PatternType;
using security::ResourceType;

AclBinding allow(ResourceType type, std::string name, PatternType pattern, AclOperation op,
                 std::string principal = "User:alice") {
    return {type, std::move(name), pattern, std::move(principal), "*", op, AclPermission::allow};
}

class AuthorizationTest : public GroupHandlerTest {
  protected:
    AuthorizationTest() {
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        config.super_users = "User:admin";
        alice.principal = "User:alice";
        alice.host = "127.0.0.1";
        session = &alice;
        create_topic("orders-eu");
        create_topic("orders-secret");
        create_topic("payments");
        AclBinding deny =
            allow(ResourceType::topic, "orders-secret", PatternType::literal, AclOperation::write);
        deny.permission = AclPermission::deny;
        auto error = broker().authorizer()->acls().add(
            {allow(ResourceType::topic, "orders-", PatternType::prefixed, AclOperation::write),
             allow(ResourceType::topic, "orders-", PatternType::prefixed, AclOperation::read),
             allow(ResourceType::group, "billing", PatternType::literal, AclOperation::read),
             deny});
        EXPECT_FALSE(error);
    }

    ErrorCode produce_to(const std::string& topic,
                         std::optional<std::string> transactional_id = std::nullopt) {
        auto batch = make_batch(2);
        protocol::ProduceRequest req;
        req.acks = -1;
        req.timeout_ms = 1000;
        req.transactional_id = std::move(transactional_id);
        protocol::TopicProduceData t;
        t.name = topic;
        t.partition_data.push_back({0, std::span<const std::byte>(batch)});
        req.topic_data.push_back(std::move(t));
        return run(handle_produce, req, 9).responses.at(0).partition_responses.at(0).error_code;
    }
    int64_t end_offset(const std::string& topic) {
        return broker().logs().get({topic, 0})->high_watermark();
    }
    ErrorCode fetch_from(const std::string& topic) {
        protocol::FetchRequest req;
        req.max_bytes = 1 << 20;
        protocol::FetchTopic t;
        t.topic = topic;
        protocol::FetchPartition p;
        p.partition_max_bytes = 1 << 20;
        t.partitions.push_back(p);
        req.topics.push_back(std::move(t));
        return run(handle_fetch, req, 12).responses.at(0).partitions.at(0).error_code;
    }
    protocol::MetadataResponse metadata(std::optional<std::vector<std::string>> names) {
        protocol::MetadataRequest req;
        if (names) {
            req.topics.emplace();
            for (auto& n : *names)
                req.topics->push_back({protocol::Uuid{}, n});
        }
        req.allow_auto_topic_creation = true;
        return run(handle_metadata, req, 12);
    }
    ErrorCode commit(const std::string& group, const std::string& topic) {
        protocol::OffsetCommitRequest req;
        req.group_id = group;
        req.generation_id = -1;  // a simple (standalone) consumer's commit
        protocol::OffsetCommitRequestPartition p;
        p.partition_index = 0;
        p.committed_offset = 1;
        req.topics.push_back({topic, protocol::Uuid{}, {p}});
        return run(handle_offset_commit, req, 8).topics.at(0).partitions.at(0).error_code;
    }

    Session alice;
};

TEST_F(AuthorizationTest, ProduceNeedsWriteOnTheTopicAndDenyWins) {
    EXPECT_EQ(produce_to("orders-eu"), ErrorCode::none);
    EXPECT_EQ(produce_to("payments"), ErrorCode::topic_authorization_failed);
    EXPECT_EQ(produce_to("orders-secret"), ErrorCode::topic_authorization_failed);
    EXPECT_EQ(end_offset("orders-eu"), 2);
    EXPECT_EQ(end_offset("payments"), 0);
    EXPECT_EQ(end_offset("orders-secret"), 0);
    // A transactional producer needs WRITE on its transactional id first.
    EXPECT_EQ(produce_to("orders-eu", "tx-1"), ErrorCode::transactional_id_authorization_failed);
    EXPECT_EQ(end_offset("orders-eu"), 2);
}

TEST_F(AuthorizationTest, FetchAndListOffsetsNeedReadAndDescribe) {
    EXPECT_EQ(fetch_from("orders-eu"), ErrorCode::none);
    EXPECT_EQ(fetch_from("payments"), ErrorCode::topic_authorization_failed);
    protocol::ListOffsetsRequest req;
    req.topics.push_back({"payments", {{0, -1, -1, 1}}});
    req.topics.push_back({"orders-eu", {{0, -1, -1, 1}}});
    auto resp = run(handle_list_offsets, req, 7);
    EXPECT_EQ(resp.topics.at(0).partitions.at(0).error_code, ErrorCode::topic_authorization_failed);
    EXPECT_EQ(resp.topics.at(1).partitions.at(0).error_code, ErrorCode::none);
}

TEST_F(AuthorizationTest, MetadataHidesWhatTheClientMayNotDescribe) {
    auto all = metadata(std::nullopt);
    std::vector<std::string> names;
    for (const auto& t : all.topics)
        names.push_back(t.name.value_or(""));
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"orders-eu", "orders-secret"}));

    auto named = metadata(std::vector<std::string>{"payments", "nope", "orders-new"});
    ASSERT_EQ(named.topics.size(), 3u);
    // Existing or not, the same answer for a topic she may not describe.
    EXPECT_EQ(named.topics[0].error_code, ErrorCode::topic_authorization_failed);
    EXPECT_TRUE(named.topics[0].partitions.empty());
    EXPECT_EQ(named.topics[1].error_code, ErrorCode::topic_authorization_failed);
    // She may describe orders-new, but auto-creating it needs CREATE.
    EXPECT_EQ(named.topics[2].error_code, ErrorCode::topic_authorization_failed);
    EXPECT_FALSE(broker().topics().partition_count("orders-new"));
}

TEST_F(AuthorizationTest, GroupRequestsNeedReadOnTheGroup) {
    protocol::FindCoordinatorRequest find;
    find.key = "other";
    EXPECT_EQ(run(handle_find_coordinator, find, 3).error_code,
              ErrorCode::group_authorization_failed);
    find.key = "billing";
    EXPECT_EQ(run(handle_find_coordinator, find, 3).error_code, ErrorCode::none);

    EXPECT_EQ(run(handle_join_group, join_request("other", ""), kJoinVersion).error_code,
              ErrorCode::group_authorization_failed);
    EXPECT_FALSE(broker().groups().state("other"));
    protocol::HeartbeatRequest hb;
    hb.group_id = "other";
    EXPECT_EQ(run(handle_heartbeat, hb, 4).error_code, ErrorCode::group_authorization_failed);
    EXPECT_EQ(run(handle_sync_group, sync_request("other", {"m", 1}), kSyncVersion).error_code,
              ErrorCode::group_authorization_failed);
    protocol::LeaveGroupRequest leave;
    leave.group_id = "other";
    leave.members.push_back({"m", std::nullopt, std::nullopt});
    EXPECT_EQ(run(handle_leave_group, leave, 5).error_code, ErrorCode::group_authorization_failed);

    auto member = stable_member("billing");
    EXPECT_GT(member.generation, 0);
}

TEST_F(AuthorizationTest, OffsetsNeedTheGroupAndTheTopic) {
    EXPECT_EQ(commit("billing", "orders-eu"), ErrorCode::none);
    EXPECT_EQ(commit("billing", "payments"), ErrorCode::topic_authorization_failed);
    EXPECT_EQ(commit("other", "orders-eu"), ErrorCode::group_authorization_failed);
    EXPECT_FALSE(broker().groups().offsets().get("other", {"orders-eu", 0}));

    protocol::OffsetFetchRequest fetch;
    fetch.group_id = "other";
    auto refused = run(handle_offset_fetch, fetch, 7);
    EXPECT_EQ(refused.error_code, ErrorCode::group_authorization_failed);
    fetch.group_id = "billing";
    fetch.topics = std::vector<protocol::OffsetFetchRequestTopic>{
        {"payments", protocol::Uuid{}, {0}}, {"orders-eu", protocol::Uuid{}, {0}}};
    auto resp = run(handle_offset_fetch, fetch, 7);
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    EXPECT_EQ(resp.topics.at(0).partitions.at(0).error_code, ErrorCode::topic_authorization_failed);
    EXPECT_EQ(resp.topics.at(1).partitions.at(0).committed_offset, 1);
}

TEST_F(AuthorizationTest, GroupAdministrationNeedsDescribeAndDelete) {
    stable_member("billing");
    // READ implies DESCRIBE: billing is listed and described, "other" is neither.
    auto listed = run(handle_list_groups, protocol::ListGroupsRequest{}, 4);
    ASSERT_EQ(listed.groups.size(), 1u);
    EXPECT_EQ(listed.groups[0].group_id, "billing");
    protocol::DescribeGroupsRequest describe;
    describe.groups = {"billing", "other"};
    auto described = run(handle_describe_groups, describe, 5);
    EXPECT_EQ(described.groups.at(0).error_code, ErrorCode::none);
    EXPECT_EQ(described.groups.at(1).error_code, ErrorCode::group_authorization_failed);
    // READ does not imply DELETE.
    protocol::DeleteGroupsRequest del;
    del.groups_names = {"billing"};
    EXPECT_EQ(run(handle_delete_groups, del, 2).results.at(0).error_code,
              ErrorCode::group_authorization_failed);
}

TEST_F(AuthorizationTest, TopicAdministrationNeedsItsOperations) {
    protocol::CreateTopicsRequest create;
    create.topics.push_back({"orders-new", 1, 1, {}, {}});
    EXPECT_EQ(run(handle_create_topics, create, 5).topics.at(0).error_code,
              ErrorCode::topic_authorization_failed);
    EXPECT_FALSE(broker().topics().partition_count("orders-new"));

    protocol::DeleteTopicsRequest del;
    del.topic_names = {"orders-eu"};
    EXPECT_EQ(run(handle_delete_topics, del, 5).responses.at(0).error_code,
              ErrorCode::topic_authorization_failed);
    EXPECT_TRUE(broker().topics().partition_count("orders-eu"));

    protocol::DescribeConfigsRequest configs;
    configs.resources.push_back({protocol::kResourceTypeTopic, "orders-eu", std::nullopt});
    configs.resources.push_back({protocol::kResourceTypeBroker, "", std::nullopt});
    auto described = run(handle_describe_configs, configs, 4);
    EXPECT_EQ(described.results.at(0).error_code, ErrorCode::topic_authorization_failed);
    EXPECT_EQ(described.results.at(1).error_code, ErrorCode::cluster_authorization_failed);

    protocol::DescribeLogDirsRequest dirs;
    EXPECT_EQ(run(handle_describe_log_dirs, dirs, 4).error_code,
              ErrorCode::cluster_authorization_failed);
    EXPECT_EQ(run(handle_describe_acls, protocol::DescribeAclsRequest{}, 3).error_code,
              ErrorCode::cluster_authorization_failed);
}

TEST_F(AuthorizationTest, InitProducerIdChecksTheTransactionalIdOrSomeTopicWrite) {
    protocol::InitProducerIdRequest idempotent;
    EXPECT_EQ(run(handle_init_producer_id, idempotent, 4).error_code, ErrorCode::none);
    protocol::InitProducerIdRequest transactional;
    transactional.transactional_id = "tx-1";
    transactional.transaction_timeout_ms = 60000;
    EXPECT_EQ(run(handle_init_producer_id, transactional, 4).error_code,
              ErrorCode::transactional_id_authorization_failed);
    // bob has no ACL at all: not even an idempotent producer id.
    Session bob;
    bob.principal = "User:bob";
    bob.host = "127.0.0.1";
    session = &bob;
    EXPECT_EQ(run(handle_init_producer_id, idempotent, 4).error_code,
              ErrorCode::cluster_authorization_failed);
}

TEST_F(AuthorizationTest, ASuperUserMayDoEverything) {
    Session admin;
    admin.principal = "User:admin";
    admin.host = "127.0.0.1";
    session = &admin;
    EXPECT_EQ(produce_to("payments"), ErrorCode::none);
    EXPECT_EQ(fetch_from("payments"), ErrorCode::none);
    EXPECT_EQ(commit("other", "payments"), ErrorCode::none);
    EXPECT_EQ(metadata(std::nullopt).topics.size(), 5u);  // the two internal topics too
}

// KIP-430 with the authorizer: the bits of the operations the ACLs allow alice, with the
// implied DESCRIBE; nothing on the cluster; a topic she may not describe keeps "not requested".
TEST_F(AuthorizationTest, AuthorizedOperationsFollowTheAcls) {
    constexpr int32_t kRead = 1 << 3, kWrite = 1 << 4, kDescribe = 1 << 8;
    protocol::MetadataRequest req;
    req.topics.emplace();
    for (std::string n : {"orders-eu", "orders-secret", "payments"})
        req.topics->push_back({protocol::Uuid{}, n});
    req.allow_auto_topic_creation = false;
    req.include_topic_authorized_operations = true;
    req.include_cluster_authorized_operations = true;
    auto md = run(handle_metadata, req, 10);
    ASSERT_EQ(md.topics.size(), 3u);
    EXPECT_EQ(md.topics[0].topic_authorized_operations, kRead | kWrite | kDescribe);
    EXPECT_EQ(md.topics[1].topic_authorized_operations, kRead | kDescribe);  // WRITE denied
    EXPECT_EQ(md.topics[2].error_code, ErrorCode::topic_authorization_failed);
    EXPECT_EQ(md.topics[2].topic_authorized_operations, protocol::kAuthorizedOperationsOmitted);
    EXPECT_EQ(md.cluster_authorized_operations, 0);

    protocol::DescribeClusterRequest cluster;
    cluster.include_cluster_authorized_operations = true;
    EXPECT_EQ(run(handle_describe_cluster, cluster, 1).cluster_authorized_operations, 0);

    protocol::DescribeTopicPartitionsRequest dtp;
    dtp.topics = {{"orders-eu"}, {"payments"}};
    dtp.response_partition_limit = 100;
    auto pages = run(handle_describe_topic_partitions, dtp, 0);
    ASSERT_EQ(pages.topics.size(), 2u);
    EXPECT_EQ(pages.topics[0].topic_authorized_operations, kRead | kWrite | kDescribe);
    EXPECT_EQ(pages.topics[1].error_code, ErrorCode::topic_authorization_failed);
    EXPECT_EQ(pages.topics[1].topic_authorized_operations, protocol::kAuthorizedOperationsOmitted);

    stable_member("billing");
    protocol::DescribeGroupsRequest groups;
    groups.groups = {"billing", "other"};
    groups.include_authorized_operations = true;
    auto described = run(handle_describe_groups, groups, 5);
    EXPECT_EQ(described.groups.at(0).authorized_operations, kRead | kDescribe);
    EXPECT_EQ(described.groups.at(1).error_code, ErrorCode::group_authorization_failed);
    EXPECT_EQ(described.groups.at(1).authorized_operations, protocol::kAuthorizedOperationsOmitted);

    // A super user gets every operation of the type.
    Session admin;
    admin.principal = "User:admin";
    session = &admin;
    EXPECT_EQ(run(handle_describe_cluster, cluster, 1).cluster_authorized_operations,
              (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12));
    session = &alice;
}

}  // namespace
}  // namespace skiff::broker::test
