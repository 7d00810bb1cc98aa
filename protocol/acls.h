// DescribeAcls (key 29), CreateAcls (30) and DeleteAcls (31), versions 0-3, flexible from 2, as
// in Kafka's DescribeAclsRequest.json, CreateAclsRequest.json and DeleteAclsRequest.json (and
// their responses). The resource type, pattern type, operation and permission type are Kafka's
// enum codes (ResourceType, PatternType, AclOperation, AclPermissionType; broker/security/acl.h
// names them). v0 has no pattern type on the wire: it is LITERAL (3), the default below. v1 adds
// it; v2 is v1 flexible; v3 adds the USER resource type (no new field).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

inline constexpr int8_t kAclPatternTypeLiteral = 3;

// A filter over ACL bindings: a DescribeAcls request is one, a DeleteAcls request a list of
// them, with the same fields in the same order (Kafka's DescribeAclsRequest.json and the
// DeleteAclsFilter of DeleteAclsRequest.json).
struct AclFilter {
    int8_t resource_type_filter = 0;
    std::optional<std::string> resource_name_filter;
    int8_t pattern_type_filter = kAclPatternTypeLiteral;
    std::optional<std::string> principal_filter;
    std::optional<std::string> host_filter;
    int8_t operation = 0;
    int8_t permission_type = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resource_type_filter", m.resource_type_filter, since(0));
        v.field("resource_name_filter", m.resource_name_filter, since(0), nullable(since(0)));
        v.field("pattern_type_filter", m.pattern_type_filter, since(1));
        v.field("principal_filter", m.principal_filter, since(0), nullable(since(0)));
        v.field("host_filter", m.host_filter, since(0), nullable(since(0)));
        v.field("operation", m.operation, since(0));
        v.field("permission_type", m.permission_type, since(0));
    }
};

// --- DescribeAcls (29) ---

// The filter's fields are the request's own (not a nested struct, which would carry its own
// tagged fields in the flexible versions): AclFilter::describe is inherited.
struct DescribeAclsRequest : AclFilter {
    static constexpr ApiKey api_key = ApiKey::describe_acls;
};

struct AclDescription {
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("principal", m.principal, since(0));
        v.field("host", m.host, since(0));
        v.field("operation", m.operation, since(0));
        v.field("permission_type", m.permission_type, since(0));
    }
};

struct DescribeAclsResource {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = kAclPatternTypeLiteral;
    std::vector<AclDescription> acls;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resource_type", m.resource_type, since(0));
        v.field("resource_name", m.resource_name, since(0));
        v.field("pattern_type", m.pattern_type, since(1));
        v.field("acls", m.acls, since(0));
    }
};

struct DescribeAclsResponse {
    static constexpr ApiKey api_key = ApiKey::describe_acls;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<DescribeAclsResource> resources;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("resources", m.resources, since(0));
    }
};

// --- CreateAcls (30) ---

struct CreatableAcl {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t resource_pattern_type = kAclPatternTypeLiteral;
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("resource_type", m.resource_type, since(0));
        v.field("resource_name", m.resource_name, since(0));
        v.field("resource_pattern_type", m.resource_pattern_type, since(1));
        v.field("principal", m.principal, since(0));
        v.field("host", m.host, since(0));
        v.field("operation", m.operation, since(0));
        v.field("permission_type", m.permission_type, since(0));
    }
};

struct CreateAclsRequest {
    static constexpr ApiKey api_key = ApiKey::create_acls;
    std::vector<CreatableAcl> creations;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("creations", m.creations, since(0));
    }
};

struct AclCreationResult {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
    }
};

struct CreateAclsResponse {
    static constexpr ApiKey api_key = ApiKey::create_acls;
    int32_t throttle_time_ms = 0;
    std::vector<AclCreationResult> results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("results", m.results, since(0));
    }
};

// --- DeleteAcls (31) ---

struct DeleteAclsRequest {
    static constexpr ApiKey api_key = ApiKey::delete_acls;
    std::vector<AclFilter> filters;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("filters", m.filters, since(0));
    }
};

struct DeleteAclsMatchingAcl {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = kAclPatternTypeLiteral;
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("resource_type", m.resource_type, since(0));
        v.field("resource_name", m.resource_name, since(0));
        v.field("pattern_type", m.pattern_type, since(1));
        v.field("principal", m.principal, since(0));
        v.field("host", m.host, since(0));
        v.field("operation", m.operation, since(0));
        v.field("permission_type", m.permission_type, since(0));
    }
};

struct DeleteAclsFilterResult {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<DeleteAclsMatchingAcl> matching_acls;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("matching_acls", m.matching_acls, since(0));
    }
};

struct DeleteAclsResponse {
    static constexpr ApiKey api_key = ApiKey::delete_acls;
    int32_t throttle_time_ms = 0;
    std::vector<DeleteAclsFilterResult> filter_results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("filter_results", m.filter_results, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeAclsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeAclsResponse)
SKIFF_DECLARE_CODEC(skiff::protocol::CreateAclsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::CreateAclsResponse)
SKIFF_DECLARE_CODEC(skiff::protocol::DeleteAclsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DeleteAclsResponse)
