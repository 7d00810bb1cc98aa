// DescribeClientQuotas (KIP-546): the quotas whose entity matches the filter, as Kafka's broker
// answers from its metadata image. Each filter component names an entity type and matches an
// exact name, the type's default, or any name but the default; with `strict` an entity must have
// no other types. Needs DESCRIBE_CONFIGS on the cluster. A bad filter (an empty or repeated type,
// a match string where the match type takes none, ip beside user or client-id) is INVALID_REQUEST,
// an unknown type or match type UNSUPPORTED_VERSION, with Kafka's messages.
#include <map>
#include <optional>
#include <set>
#include <string>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/quotas/client_quota_store.h"
#include "broker/security/authorize.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;
using protocol::QuotaMatchType;

struct Filter {
    std::map<std::string, std::optional<std::string>> exact;  // type -> name (nullopt: default)
    std::set<std::string> specified;                          // type -> any name but the default
    bool strict = false;
};

struct FilterError {
    ErrorCode code;
    std::string message;
};

std::optional<FilterError> parse_filter(const protocol::DescribeClientQuotasRequest& req,
                                        Filter& f) {
    f.strict = req.strict;
    for (const auto& c : req.components) {
        const auto& type = c.entity_type;
        if (type.empty())
            return FilterError{ErrorCode::invalid_request, "Invalid empty entity type."};
        if (f.exact.contains(type) || f.specified.contains(type))
            return FilterError{
                ErrorCode::invalid_request,
                "Entity type " + type + " cannot appear more than once in the filter."};
        if (type != quotas::kUser && type != quotas::kClientId && type != quotas::kIp)
            return FilterError{ErrorCode::unsupported_version, "Unsupported entity type " + type};
        switch (static_cast<QuotaMatchType>(c.match_type)) {
            case QuotaMatchType::exact:
                if (!c.match)
                    return FilterError{ErrorCode::invalid_request,
                                       "Request specified MATCH_TYPE_EXACT, but set match string "
                                       "to null."};
                f.exact[type] = *c.match;
                break;
            case QuotaMatchType::default_name:
                if (c.match)
                    return FilterError{ErrorCode::invalid_request,
                                       "Request specified MATCH_TYPE_DEFAULT, but also specified a "
                                       "match string."};
                f.exact[type] = std::nullopt;
                break;
            case QuotaMatchType::any_specified:
                if (c.match)
                    return FilterError{ErrorCode::invalid_request,
                                       "Request specified MATCH_TYPE_SPECIFIED, but also specified "
                                       "a match string."};
                f.specified.insert(type);
                break;
            default:
                return FilterError{ErrorCode::unsupported_version,
                                   "Unknown match type " + std::to_string(c.match_type)};
        }
    }
    const auto has = [&](const char* t) { return f.exact.contains(t) || f.specified.contains(t); };
    if (has(quotas::kIp) && (has(quotas::kUser) || has(quotas::kClientId)))
        return FilterError{ErrorCode::invalid_request,
                           "Invalid entity filter component combination. IP filter component "
                           "should not be used with user or clientId filter component."};
    return std::nullopt;
}

// The entity's name for `type`: absent (nullopt), or present with its name (nullopt: default).
std::optional<std::optional<std::string>> part(const quotas::QuotaEntity& e,
                                               const std::string& type) {
    const std::optional<quotas::EntityName>* p = nullptr;
    if (type == quotas::kUser)
        p = &e.user;
    else if (type == quotas::kClientId)
        p = &e.client_id;
    if (!p || !*p)
        return std::nullopt;
    if ((*p)->is_default)
        return std::optional<std::string>();
    return std::optional<std::string>((*p)->name);
}

bool matches(const quotas::QuotaEntity& e, const Filter& f) {
    if (f.strict) {
        const size_t types = (e.user ? 1 : 0) + (e.client_id ? 1 : 0);
        if (types != f.exact.size() + f.specified.size())
            return false;
    }
    for (const auto& [type, name] : f.exact) {
        auto p = part(e, type);
        if (!p || *p != name)
            return false;
    }
    for (const auto& type : f.specified) {
        auto p = part(e, type);
        if (!p || !*p)
            return false;
    }
    return true;
}

}  // namespace

asio::awaitable<protocol::DescribeClientQuotasResponse> handle_describe_client_quotas(
    RequestContext& ctx, const protocol::DescribeClientQuotasRequest& req) {
    protocol::DescribeClientQuotasResponse resp;
    if (!authorized_on_cluster(ctx, security::AclOperation::describe_configs)) {
        resp.error_code = ErrorCode::cluster_authorization_failed;
        resp.error_message = "Cluster authorization failed.";
        co_return resp;
    }
    Filter filter;
    if (auto bad = parse_filter(req, filter)) {
        resp.error_code = bad->code;
        resp.error_message = bad->message;
        co_return resp;
    }
    resp.entries.emplace();
    for (const auto& [entity, values] : ctx.broker.client_quotas().snapshot()) {
        if (!matches(entity, filter))
            continue;
        protocol::DescribedQuotaEntry entry;
        entry.entity = entity.components();
        for (const auto& [key, value] : values)
            entry.values.push_back({key, value});
        resp.entries->push_back(std::move(entry));
    }
    co_return resp;
}

}  // namespace skiff::broker
