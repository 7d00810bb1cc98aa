// The ACLs of share group membership: ShareGroupHeartbeat needs READ on the group and DESCRIBE
// on each subscribed topic, ShareGroupDescribe DESCRIBE on the group, and the GROUP config
// resource ALTER_CONFIGS / DESCRIBE_CONFIGS on the group (GROUP_ / TOPIC_AUTHORIZATION_FAILED
// otherwise, and a refused request changes nothing).
#include <gtest/gtest.h>

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

AclBinding grant(ResourceType type, std::string name, AclOperation op) {
    return {type, std::move(name), PatternType::literal, "User:bob", "*", op, AclPermission::allow};
}

class ShareGroupAuthorizationTest : public HandlerTest {
  protected:
    ShareGroupAuthorizationTest() {
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        bob.principal = "User:bob";
        bob.host = "127.0.0.1";
        session = &bob;
        create_topic("jobs", 2);
        create_topic("hidden", 1);
        auto error = broker().authorizer()->acls().add(
            {grant(ResourceType::group, "workers", AclOperation::read),
             grant(ResourceType::topic, "jobs", AclOperation::describe),
             grant(ResourceType::group, "watched", AclOperation::describe)});
        EXPECT_FALSE(error);
    }
    protocol::ShareGroupHeartbeatResponse join(const std::string& group, const std::string& topic) {
        protocol::ShareGroupHeartbeatRequest req;
        req.group_id = group;
        req.member_id = "m";
        req.subscribed_topic_names = std::vector<std::string>{topic};
        return run(handle_share_group_heartbeat, req, 1);
    }
    Session bob;
};

TEST_F(ShareGroupAuthorizationTest, HeartbeatNeedsReadOnTheGroupAndDescribeOnTheTopics) {
    EXPECT_EQ(join("other", "jobs").error_code, ErrorCode::group_authorization_failed);
    EXPECT_EQ(join("workers", "hidden").error_code, ErrorCode::topic_authorization_failed);
    EXPECT_FALSE(broker().groups().contains("other"));
    EXPECT_FALSE(broker().groups().contains("workers"));
    EXPECT_EQ(join("workers", "jobs").error_code, ErrorCode::none);
}

TEST_F(ShareGroupAuthorizationTest, DescribeAndGroupConfigsNeedTheirOperations) {
    protocol::ShareGroupDescribeRequest d;
    d.group_ids = {"other", "watched", "workers"};
    auto described = run(handle_share_group_describe, d, 1);
    ASSERT_EQ(described.groups.size(), 3u);
    EXPECT_EQ(described.groups[0].error_code, ErrorCode::group_authorization_failed);
    // Allowed (DESCRIBE, or READ that implies it, as in Kafka), and absent.
    EXPECT_EQ(described.groups[1].error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(described.groups[2].error_code, ErrorCode::group_id_not_found);

    protocol::IncrementalAlterConfigsRequest alter;
    protocol::IncrementalAlterConfigsResource res;
    res.resource_type = protocol::kResourceTypeGroup;
    res.resource_name = "workers";
    res.configs.push_back({"share.auto.offset.reset", protocol::kConfigOpSet, "earliest"});
    alter.resources.push_back(res);
    EXPECT_EQ(run(handle_incremental_alter_configs, alter, 1).responses.at(0).error_code,
              ErrorCode::group_authorization_failed);
    EXPECT_TRUE(broker().group_configs().values("workers").empty());

    protocol::DescribeConfigsRequest dc;
    dc.resources.push_back({protocol::kResourceTypeGroup, "workers", std::nullopt});
    EXPECT_EQ(run(handle_describe_configs, dc, 4).results.at(0).error_code,
              ErrorCode::group_authorization_failed);
}

}  // namespace
}  // namespace skiff::broker::test
