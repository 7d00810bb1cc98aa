// CreateAcls, DescribeAcls and DeleteAcls: round trips at every served version (the pattern type
// exists from v1; v0 reads it as LITERAL), plus requests encoded by hand from Kafka's schemas so
// the field order and the flexible encoding are checked against something other than skiff.
#include <gtest/gtest.h>

#include "protocol/acls.h"
#include "protocol/api_table.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;
using test::for_each_version;
using test::round_trip;

TEST(AclRoundTrip, CreateAclsRequest) {
    CreateAclsRequest m;
    m.creations = {{2, "orders-", 4, "User:alice", "*", 4, 3},
                   {3, "g1", 3, "User:bob", "10.0.0.1", 3, 2}};
    for_each_version(ApiKey::create_acls, [&](int16_t v) {
        round_trip(m, v, [&](const CreateAclsRequest& d) {
            ASSERT_EQ(d.creations.size(), 2u);
            EXPECT_EQ(d.creations[0].resource_type, 2);
            EXPECT_EQ(d.creations[0].resource_name, "orders-");
            EXPECT_EQ(d.creations[0].resource_pattern_type, v >= 1 ? 4 : 3);
            EXPECT_EQ(d.creations[0].principal, "User:alice");
            EXPECT_EQ(d.creations[0].host, "*");
            EXPECT_EQ(d.creations[0].operation, 4);
            EXPECT_EQ(d.creations[0].permission_type, 3);
            EXPECT_EQ(d.creations[1].host, "10.0.0.1");
            EXPECT_EQ(d.creations[1].permission_type, 2);
        });
    });
}

TEST(AclRoundTrip, CreateAclsResponse) {
    CreateAclsResponse m;
    m.throttle_time_ms = 3;
    m.results = {{ErrorCode::none, std::nullopt},
                 {ErrorCode::invalid_request, "Invalid empty resource name"}};
    for_each_version(ApiKey::create_acls, [&](int16_t v) {
        round_trip(m, v, [&](const CreateAclsResponse& d) {
            EXPECT_EQ(d.throttle_time_ms, 3);
            ASSERT_EQ(d.results.size(), 2u);
            EXPECT_EQ(d.results[0].error_code, ErrorCode::none);
            EXPECT_FALSE(d.results[0].error_message);
            EXPECT_EQ(d.results[1].error_code, ErrorCode::invalid_request);
            EXPECT_EQ(d.results[1].error_message, "Invalid empty resource name");
        });
    });
}

TEST(AclRoundTrip, DescribeAclsRequest) {
    DescribeAclsRequest m;
    m.resource_type_filter = 2;
    m.resource_name_filter = "orders";
    m.pattern_type_filter = 2;  // MATCH
    m.principal_filter = std::nullopt;
    m.host_filter = "*";
    m.operation = 1;
    m.permission_type = 1;
    for_each_version(ApiKey::describe_acls, [&](int16_t v) {
        round_trip(m, v, [&](const DescribeAclsRequest& d) {
            EXPECT_EQ(d.resource_type_filter, 2);
            EXPECT_EQ(d.resource_name_filter, "orders");
            EXPECT_EQ(d.pattern_type_filter, v >= 1 ? 2 : 3);
            EXPECT_FALSE(d.principal_filter);
            EXPECT_EQ(d.host_filter, "*");
            EXPECT_EQ(d.operation, 1);
            EXPECT_EQ(d.permission_type, 1);
        });
    });
}

TEST(AclRoundTrip, DescribeAclsResponse) {
    DescribeAclsResponse m;
    m.error_code = ErrorCode::none;
    m.resources = {{2, "orders", 3, {{"User:alice", "*", 3, 3}, {"User:bob", "h", 4, 2}}},
                   {4, "kafka-cluster", 3, {{"User:ops", "*", 2, 3}}}};
    for_each_version(ApiKey::describe_acls, [&](int16_t v) {
        round_trip(m, v, [&](const DescribeAclsResponse& d) {
            EXPECT_EQ(d.error_code, ErrorCode::none);
            EXPECT_FALSE(d.error_message);
            ASSERT_EQ(d.resources.size(), 2u);
            EXPECT_EQ(d.resources[0].resource_name, "orders");
            EXPECT_EQ(d.resources[0].pattern_type, 3);
            ASSERT_EQ(d.resources[0].acls.size(), 2u);
            EXPECT_EQ(d.resources[0].acls[1].principal, "User:bob");
            EXPECT_EQ(d.resources[0].acls[1].host, "h");
            EXPECT_EQ(d.resources[0].acls[1].operation, 4);
            EXPECT_EQ(d.resources[0].acls[1].permission_type, 2);
            EXPECT_EQ(d.resources[1].resource_type, 4);
        });
    });
    DescribeAclsResponse err;
    err.error_code = ErrorCode::security_disabled;
    err.error_message = "No Authorizer is configured.";
    for_each_version(ApiKey::describe_acls, [&](int16_t v) {
        round_trip(err, v, [&](const DescribeAclsResponse& d) {
            EXPECT_EQ(d.error_code, ErrorCode::security_disabled);
            EXPECT_EQ(d.error_message, "No Authorizer is configured.");
        });
    });
}

TEST(AclRoundTrip, DeleteAclsRequest) {
    DeleteAclsRequest m;
    AclFilter f;
    f.resource_type_filter = 1;
    f.pattern_type_filter = 1;
    f.principal_filter = "User:alice";
    f.operation = 1;
    f.permission_type = 1;
    m.filters = {f, f};
    m.filters[1].resource_name_filter = "t";
    for_each_version(ApiKey::delete_acls, [&](int16_t v) {
        round_trip(m, v, [&](const DeleteAclsRequest& d) {
            ASSERT_EQ(d.filters.size(), 2u);
            EXPECT_EQ(d.filters[0].resource_type_filter, 1);
            EXPECT_FALSE(d.filters[0].resource_name_filter);
            EXPECT_EQ(d.filters[0].pattern_type_filter, v >= 1 ? 1 : 3);
            EXPECT_EQ(d.filters[0].principal_filter, "User:alice");
            EXPECT_FALSE(d.filters[0].host_filter);
            EXPECT_EQ(d.filters[1].resource_name_filter, "t");
        });
    });
}

TEST(AclRoundTrip, DeleteAclsResponse) {
    DeleteAclsResponse m;
    DeleteAclsMatchingAcl a;
    a.resource_type = 2;
    a.resource_name = "orders-";
    a.pattern_type = 4;
    a.principal = "User:alice";
    a.host = "*";
    a.operation = 4;
    a.permission_type = 3;
    m.filter_results = {{ErrorCode::none, std::nullopt, {a}},
                        {ErrorCode::invalid_request, "Unknown patternFilter.", {}}};
    for_each_version(ApiKey::delete_acls, [&](int16_t v) {
        round_trip(m, v, [&](const DeleteAclsResponse& d) {
            ASSERT_EQ(d.filter_results.size(), 2u);
            ASSERT_EQ(d.filter_results[0].matching_acls.size(), 1u);
            const auto& got = d.filter_results[0].matching_acls[0];
            EXPECT_EQ(got.error_code, ErrorCode::none);
            EXPECT_EQ(got.resource_name, "orders-");
            EXPECT_EQ(got.pattern_type, v >= 1 ? 4 : 3);
            EXPECT_EQ(got.principal, "User:alice");
            EXPECT_EQ(got.operation, 4);
            EXPECT_EQ(d.filter_results[1].error_message, "Unknown patternFilter.");
        });
    });
}

TEST(AclRoundTrip, ServedVersions) {
    for (ApiKey key : {ApiKey::describe_acls, ApiKey::create_acls, ApiKey::delete_acls}) {
        const ApiSupport* api = find_api(key);
        ASSERT_NE(api, nullptr);
        EXPECT_EQ(api->min_version, 0);
        EXPECT_EQ(api->max_version, 3);
    }
}

// CreateAcls v0 (no pattern type, classic strings) as Kafka's CreateAclsRequest.json lays it out.
TEST(AclWire, CreateAclsV0ByHand) {
    auto wire = bytes({0, 0, 0,   1,                        // creations: 1
                       2,                                   // resource_type TOPIC
                       0, 1, 't',                           // resource_name
                       0, 6, 'U', 's', 'e', 'r', ':', 'a',  // principal
                       0, 1, '*',                           // host
                       3,                                   // operation READ
                       3});                                 // permission ALLOW
    auto d = decode_message<CreateAclsRequest>(wire, 0);
    ASSERT_TRUE(d) << d.error().message;
    ASSERT_EQ(d->creations.size(), 1u);
    EXPECT_EQ(d->creations[0].resource_name, "t");
    EXPECT_EQ(d->creations[0].resource_pattern_type, 3);  // LITERAL implied
    EXPECT_EQ(d->creations[0].principal, "User:a");
    EXPECT_EQ(d->creations[0].operation, 3);
}

// DescribeAcls v2 (flexible): compact nullable strings (length + 1, 0 = null) and a tag buffer.
TEST(AclWire, DescribeAclsV2ByHand) {
    auto wire = bytes({1,            // resource_type_filter ANY
                       0,            // resource_name_filter null
                       4,            // pattern_type_filter PREFIXED
                       3, 'U', ':',  // principal_filter "U:"
                       0,            // host_filter null
                       1,            // operation ANY
                       1,            // permission ANY
                       0});          // no tagged fields
    auto d = decode_message<DescribeAclsRequest>(wire, 2);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->resource_type_filter, 1);
    EXPECT_FALSE(d->resource_name_filter);
    EXPECT_EQ(d->pattern_type_filter, 4);
    EXPECT_EQ(d->principal_filter, "U:");
    EXPECT_FALSE(d->host_filter);
}

}  // namespace
}  // namespace skiff::protocol
