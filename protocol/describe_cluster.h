// DescribeCluster (key 60, KIP-700), versions 0-2 served; flexible from 0.
// What AdminClient.describeCluster asks since Kafka 2.8 instead of Metadata: the cluster id, the
// controller and the brokers. v1 adds EndpointType (KIP-919: 1 brokers, 2 controllers; skiff
// has no separate controllers, so 2 is UNSUPPORTED_ENDPOINT_TYPE), v2 IncludeFencedBrokers and
// each broker's IsFenced (never fenced: one broker).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"
#include "protocol/metadata.h"  // kAuthorizedOperationsOmitted

namespace skiff::protocol {

inline constexpr int8_t kEndpointTypeBrokers = 1;

struct DescribeClusterRequest {
    static constexpr ApiKey api_key = ApiKey::describe_cluster;
    bool include_cluster_authorized_operations = false;
    int8_t endpoint_type = kEndpointTypeBrokers;
    bool include_fenced_brokers = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("include_cluster_authorized_operations", m.include_cluster_authorized_operations,
                since(0));
        v.field("endpoint_type", m.endpoint_type, since(1));
        v.field("include_fenced_brokers", m.include_fenced_brokers, since(2));
    }
};

struct DescribeClusterBroker {
    int32_t broker_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    bool is_fenced = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("broker_id", m.broker_id, since(0));
        v.field("host", m.host, since(0));
        v.field("port", m.port, since(0));
        v.field("rack", m.rack, since(0), nullable(since(0)));
        v.field("is_fenced", m.is_fenced, since(2));
    }
};

struct DescribeClusterResponse {
    static constexpr ApiKey api_key = ApiKey::describe_cluster;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    int8_t endpoint_type = kEndpointTypeBrokers;
    std::string cluster_id;
    int32_t controller_id = -1;
    std::vector<DescribeClusterBroker> brokers;
    int32_t cluster_authorized_operations = kAuthorizedOperationsOmitted;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("endpoint_type", m.endpoint_type, since(1));
        v.field("cluster_id", m.cluster_id, since(0));
        v.field("controller_id", m.controller_id, since(0));
        v.field("brokers", m.brokers, since(0));
        v.field("cluster_authorized_operations", m.cluster_authorized_operations, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeClusterRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeClusterResponse)
