// Who a client quota is for (KIP-546's entities): a user, a client id, or a user and one of its
// client ids, each either a name or that type's default ("<default>" in Kafka's tools). Quotas
// are byte rates per key: producer_byte_rate (Produce) and consumer_byte_rate (Fetch).
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/client_quotas.h"
#include "protocol/error_code.h"

namespace skiff::broker::quotas {

inline constexpr const char* kUser = "user";
inline constexpr const char* kClientId = "client-id";
inline constexpr const char* kIp = "ip";
inline constexpr const char* kProducerByteRate = "producer_byte_rate";
inline constexpr const char* kConsumerByteRate = "consumer_byte_rate";

// One component of an entity: a name, or the type's default.
struct EntityName {
    bool is_default = false;
    std::string name;  // empty for the default

    static EntityName named(std::string n) { return {false, std::move(n)}; }
    static EntityName default_name() { return {true, {}}; }
    auto operator<=>(const EntityName&) const = default;  // NOLINT(modernize-use-nullptr)
};

struct QuotaEntity {
    std::optional<EntityName> user;
    std::optional<EntityName> client_id;

    auto operator<=>(const QuotaEntity&) const = default;  // NOLINT(modernize-use-nullptr)
    // As Kafka's ClientQuotaEntity prints it, for messages: "user=alice, client-id=<default>".
    std::string describe() const;
    // The entity as the protocol carries it (user first, then client-id).
    std::vector<protocol::QuotaEntityComponent> components() const;
};

// Quota values by key.
using QuotaValues = std::map<std::string, double>;
using QuotaMap = std::map<QuotaEntity, QuotaValues>;

// An error in Kafka's terms: the code and the message the client sees.
struct QuotaError {
    protocol::ErrorCode code = protocol::ErrorCode::invalid_request;
    std::string message;
};

// The entity of an AlterClientQuotas entry, checked as Kafka's controller checks it (known
// types, none twice, no empty name); skiff also refuses ip entities, whose quota
// (connection_creation_rate) it does not enforce.
std::optional<QuotaError> parse_entity(const std::vector<protocol::QuotaEntityComponent>& in,
                                       QuotaEntity& out);

// A quota key and value skiff enforces: producer_byte_rate or consumer_byte_rate, a whole
// number of bytes per second above zero.
std::optional<QuotaError> check_quota_value(const std::string& key, double value);

}  // namespace skiff::broker::quotas
