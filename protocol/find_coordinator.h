// FindCoordinator (key 10), versions 0-6 served; flexible from 3.
//   v1 adds key_type (0 = group, 1 = transaction), throttle_time_ms and error_message.
//   v4 batches keys: coordinator_keys in the request, one `coordinators` entry per key in the
//   response, and the single-key fields disappear. v5 (TRANSACTION_ABORTABLE may be returned)
//   and v6 (key_type 2 = share group, KIP-932) change no field; skiff has no share coordinator
//   and answers key type 2 INVALID_REQUEST, as Kafka does when share groups are off.
// librdkafka enables group consumers only when the advertised range contains 0.
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

inline constexpr int8_t kCoordinatorKeyGroup = 0;
inline constexpr int8_t kCoordinatorKeyTransaction = 1;
inline constexpr int8_t kCoordinatorKeyShare = 2;

struct FindCoordinatorRequest {
    static constexpr ApiKey api_key = ApiKey::find_coordinator;
    std::string key;
    int8_t key_type = kCoordinatorKeyGroup;
    std::vector<std::string> coordinator_keys;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("key", m.key, between(0, 3));
        v.field("key_type", m.key_type, since(1));
        v.field("coordinator_keys", m.coordinator_keys, since(4));
    }
};

struct FindCoordinatorCoordinator {
    std::string key;
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("key", m.key, since(4));
        v.field("node_id", m.node_id, since(4));
        v.field("host", m.host, since(4));
        v.field("port", m.port, since(4));
        v.field("error_code", m.error_code, since(4));
        v.field("error_message", m.error_message, since(4), nullable(since(4)));
    }
};

struct FindCoordinatorResponse {
    static constexpr ApiKey api_key = ApiKey::find_coordinator;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::vector<FindCoordinatorCoordinator> coordinators;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(1));
        v.field("error_code", m.error_code, between(0, 3));
        v.field("error_message", m.error_message, between(1, 3), nullable(between(1, 3)));
        v.field("node_id", m.node_id, between(0, 3));
        v.field("host", m.host, between(0, 3));
        v.field("port", m.port, between(0, 3));
        v.field("coordinators", m.coordinators, since(4));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::FindCoordinatorRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::FindCoordinatorResponse)
