// DescribeClientQuotas (key 48) and AlterClientQuotas (key 49), versions 0-1, flexible from 1
// (KIP-546): how Kafka's admin clients read and change the byte-rate quotas of users and
// client ids. An entity is one or two components, each an entity type ("user", "client-id",
// "ip") and a name, where a null name is that type's default; a quota is a key
// ("producer_byte_rate", "consumer_byte_rate", ...) and a float64 value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

// DescribeClientQuotas' MatchType.
enum class QuotaMatchType : int8_t { exact = 0, default_name = 1, any_specified = 2 };

struct QuotaFilterComponent {
    std::string entity_type;
    int8_t match_type = 0;             // QuotaMatchType
    std::optional<std::string> match;  // the name for exact, null otherwise

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("entity_type", m.entity_type, since(0));
        v.field("match_type", m.match_type, since(0));
        v.field("match", m.match, since(0), nullable(since(0)));
    }
};

struct DescribeClientQuotasRequest {
    static constexpr ApiKey api_key = ApiKey::describe_client_quotas;
    std::vector<QuotaFilterComponent> components;
    bool strict = false;  // only entities with exactly the filter's entity types

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("components", m.components, since(0));
        v.field("strict", m.strict, since(0));
    }
};

struct QuotaEntityComponent {
    std::string entity_type;
    std::optional<std::string> entity_name;  // null: the type's default

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("entity_type", m.entity_type, since(0));
        v.field("entity_name", m.entity_name, since(0), nullable(since(0)));
    }
};

struct QuotaValue {
    std::string key;
    double value = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("key", m.key, since(0));
        v.field("value", m.value, since(0));
    }
};

struct DescribedQuotaEntry {
    std::vector<QuotaEntityComponent> entity;
    std::vector<QuotaValue> values;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("entity", m.entity, since(0));
        v.field("values", m.values, since(0));
    }
};

struct DescribeClientQuotasResponse {
    static constexpr ApiKey api_key = ApiKey::describe_client_quotas;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::optional<std::vector<DescribedQuotaEntry>> entries;  // null on error

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("entries", m.entries, since(0), nullable(since(0)));
    }
};

struct QuotaAlteration {
    std::string key;
    double value = 0;     // ignored when removing
    bool remove = false;  // remove the key instead of setting it

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("key", m.key, since(0));
        v.field("value", m.value, since(0));
        v.field("remove", m.remove, since(0));
    }
};

struct QuotaAlterEntry {
    std::vector<QuotaEntityComponent> entity;
    std::vector<QuotaAlteration> ops;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("entity", m.entity, since(0));
        v.field("ops", m.ops, since(0));
    }
};

struct AlterClientQuotasRequest {
    static constexpr ApiKey api_key = ApiKey::alter_client_quotas;
    std::vector<QuotaAlterEntry> entries;
    bool validate_only = false;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("entries", m.entries, since(0));
        v.field("validate_only", m.validate_only, since(0));
    }
};

struct QuotaAlterResult {
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<QuotaEntityComponent> entity;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("entity", m.entity, since(0));
    }
};

struct AlterClientQuotasResponse {
    static constexpr ApiKey api_key = ApiKey::alter_client_quotas;
    int32_t throttle_time_ms = 0;
    std::vector<QuotaAlterResult> entries;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("entries", m.entries, since(0));
    }
};

}  // namespace skiff::protocol
