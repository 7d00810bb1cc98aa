#include "broker/quotas/quota_entity.h"

#include <cmath>

namespace skiff::broker::quotas {
namespace {

std::string name_text(const EntityName& n) {
    return n.is_default ? "<default>" : n.name;
}

protocol::QuotaEntityComponent component(const char* type, const EntityName& n) {
    protocol::QuotaEntityComponent c;
    c.entity_type = type;
    if (!n.is_default)
        c.entity_name = n.name;
    return c;
}

}  // namespace

std::string QuotaEntity::describe() const {
    std::string out;
    if (user)
        out = std::string(kUser) + "=" + name_text(*user);
    if (client_id)
        out += (out.empty() ? "" : ", ") + std::string(kClientId) + "=" + name_text(*client_id);
    return out;
}

std::vector<protocol::QuotaEntityComponent> QuotaEntity::components() const {
    std::vector<protocol::QuotaEntityComponent> out;
    if (user)
        out.push_back(component(kUser, *user));
    if (client_id)
        out.push_back(component(kClientId, *client_id));
    return out;
}

std::optional<QuotaError> parse_entity(const std::vector<protocol::QuotaEntityComponent>& in,
                                       QuotaEntity& out) {
    out = {};
    if (in.empty())
        return QuotaError{.message = "Invalid empty client quota entity"};
    bool ip = false;
    for (const auto& c : in) {
        const bool seen = (c.entity_type == kUser && out.user) ||
                          (c.entity_type == kClientId && out.client_id) ||
                          (c.entity_type == kIp && ip);
        if (seen)
            return QuotaError{.message =
                                  "Invalid empty client quota entity, duplicate entity entry " +
                                  c.entity_type};
        if (c.entity_type != kUser && c.entity_type != kClientId && c.entity_type != kIp)
            return QuotaError{.message = "Unhandled client quota entity type: " + c.entity_type};
        if (c.entity_name && c.entity_name->empty())
            return QuotaError{.message = "Empty " + c.entity_type + " not supported"};
        const EntityName name =
            c.entity_name ? EntityName::named(*c.entity_name) : EntityName::default_name();
        if (c.entity_type == kUser)
            out.user = name;
        else if (c.entity_type == kClientId)
            out.client_id = name;
        else
            ip = true;
    }
    if (ip)
        return QuotaError{.message = out.user || out.client_id ? "Invalid empty client quota entity"
                                                               : "skiff does not enforce ip quotas "
                                                                 "(connection_creation_rate)"};
    return std::nullopt;
}

std::optional<QuotaError> check_quota_value(const std::string& key, double value) {
    if (key != kProducerByteRate && key != kConsumerByteRate) {
        if (key == "request_percentage" || key == "controller_mutation_rate")
            return QuotaError{.message = "skiff does not enforce the quota " + key +
                                         " (only producer_byte_rate and consumer_byte_rate)"};
        return QuotaError{.message = "Invalid configuration key " + key};
    }
    // Kafka's check for its LONG quota keys: a whole number, within 1e-6.
    constexpr double kEpsilon = 1e-6;
    if (!std::isfinite(value) || std::abs(value) >= 9.2e18 ||
        std::abs(static_cast<double>(static_cast<int64_t>(value + kEpsilon)) - value) > kEpsilon)
        return QuotaError{.message = "Configuration " + key + " must be a Long value"};
    // Kafka takes 0 and negative rates and then throttles by a division by zero; skiff refuses.
    if (value < 1)
        return QuotaError{.message = "Configuration " + key + " must be at least 1 byte/s"};
    return std::nullopt;
}

}  // namespace skiff::broker::quotas
