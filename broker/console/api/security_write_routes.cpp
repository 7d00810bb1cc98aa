// The console API's security writes (docs/console-api.md, "Cluster", the routes marked write):
// an ACL added or removed with CreateAcls / DeleteAcls, a SCRAM user's credential set or removed
// with AlterUserScramCredentials, each sent as the caller, so Kafka's rules apply unchanged
// (ALTER on the cluster, the authorizer's own checks, Kafka's iteration bounds and errors).
// The body is checked here only for its shape and for names Kafka knows: a malformed one is a
// 400 before any request is sent, so nothing changes.
#include <optional>
#include <string>
#include <vector>

#include "broker/console/api/security_api.h"
#include "broker/console/console_route.h"
#include "broker/security/acl.h"
#include "broker/security/scram.h"
#include "protocol/acls.h"
#include "protocol/user_scram_credentials.h"

namespace skiff::broker::console {

nlohmann::json acl_json(int8_t type, const std::string& name, int8_t pattern,
                        const std::string& principal, const std::string& host, int8_t operation,
                        int8_t permission) {
    return {{"resource_type", security::name_of(security::resource_type_from_code(type))},
            {"resource_name", name},
            {"pattern_type", security::name_of(security::pattern_type_from_code(pattern))},
            {"principal", principal},
            {"host", host},
            {"operation", security::name_of(security::acl_operation_from_code(operation))},
            {"permission", security::name_of(security::acl_permission_from_code(permission))}};
}

namespace security_writes_impl {

using protocol::ErrorCode;

// One ACL binding as the console's API writes it (the fields GET /api/acls lists), or the 400
// that says which field is wrong. `field(name)` gives the field's text, nullopt when absent.
template <class Field>
std::optional<http::HttpResponse> parse_acl(const Field& field, protocol::CreatableAcl& out) {
    const auto text = [&](const char* name, const char* fallback) -> std::optional<std::string> {
        auto v = field(name);
        if (!v && fallback)
            return std::string(fallback);
        return v;
    };
    const auto type = text("resource_type", nullptr);
    const auto name = text("resource_name", nullptr);
    const auto pattern = text("pattern_type", "LITERAL");
    const auto principal = text("principal", nullptr);
    const auto host = text("host", "*");
    const auto operation = text("operation", nullptr);
    const auto permission = text("permission", "ALLOW");
    const auto t = type ? security::parse_resource_type(*type) : std::nullopt;
    if (!t)
        return error_response(400,
                              "\"resource_type\" must be one of TOPIC, GROUP, CLUSTER, "
                              "TRANSACTIONAL_ID, DELEGATION_TOKEN, USER");
    if (!name || name->empty())
        return error_response(400, "\"resource_name\" must be a non-empty string");
    const auto p = security::parse_pattern_type(*pattern);
    if (!p)
        return error_response(400, "\"pattern_type\" must be LITERAL or PREFIXED");
    if (!principal || principal->empty())
        return error_response(400, "\"principal\" must be a string such as User:alice");
    const auto op = operation ? security::parse_acl_operation(*operation) : std::nullopt;
    if (!op)
        return error_response(400, "\"operation\" must be an operation such as READ or WRITE");
    const auto perm = security::parse_acl_permission(*permission);
    if (!perm)
        return error_response(400, "\"permission\" must be ALLOW or DENY");
    out.resource_type = static_cast<int8_t>(*t);
    out.resource_name = *name;
    out.resource_pattern_type = static_cast<int8_t>(*p);
    out.principal = *principal;
    out.host = *host;
    out.operation = static_cast<int8_t>(*op);
    out.permission_type = static_cast<int8_t>(*perm);
    return std::nullopt;
}

// A string member of `body`, nullopt when absent; "" (never a valid value) when not a string.
std::optional<std::string> string_member(const nlohmann::json& body, const char* name) {
    if (!body.contains(name) || body[name].is_null())
        return std::nullopt;
    return body[name].is_string() ? body[name].get<std::string>() : std::string();
}

// POST /api/acls: CreateAcls with one binding.
http::HttpResponse create_acl(ApiCall& call) {
    auto parsed = parse_json_object(call.http.body);
    if (!parsed)
        return error_response(400, parsed.error());
    nlohmann::json& body = *parsed;
    protocol::CreatableAcl acl;
    if (auto bad = parse_acl([&](const char* n) { return string_member(body, n); }, acl))
        return *bad;
    protocol::CreateAclsRequest request;
    request.creations.push_back(acl);
    auto reply = call.kafka.call<protocol::CreateAclsResponse>(request, 3);
    if (!reply)
        return error_response(500, reply.error());
    if (reply->message.results.size() != 1)
        return error_response(500, "CreateAcls answered without the binding's result");
    const auto& result = reply->message.results.front();
    if (result.error_code != ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(result.error_code),
                                    result.error_message.value_or(""));
    return json_response(201,
                         acl_json(acl.resource_type, acl.resource_name, acl.resource_pattern_type,
                                  acl.principal, acl.host, acl.operation, acl.permission_type));
}

// DELETE /api/acls?resource_type=...: DeleteAcls with a filter that matches that one binding
// exactly (every field given or defaulted, no ANY), as Confluent's REST v3 takes it in the query.
http::HttpResponse delete_acl(ApiCall& call) {
    protocol::CreatableAcl acl;
    const auto field = [&](const char* name) -> std::optional<std::string> {
        if (call.query.find(name) == call.query.end())
            return std::nullopt;
        return call.query_value(name);
    };
    if (auto bad = parse_acl(field, acl))
        return *bad;
    protocol::AclFilter filter;
    filter.resource_type_filter = acl.resource_type;
    filter.resource_name_filter = acl.resource_name;
    filter.pattern_type_filter = acl.resource_pattern_type;
    filter.principal_filter = acl.principal;
    filter.host_filter = acl.host;
    filter.operation = acl.operation;
    filter.permission_type = acl.permission_type;
    protocol::DeleteAclsRequest request;
    request.filters.push_back(filter);
    auto reply = call.kafka.call<protocol::DeleteAclsResponse>(request, 3);
    if (!reply)
        return error_response(500, reply.error());
    if (reply->message.filter_results.size() != 1)
        return error_response(500, "DeleteAcls answered without the filter's result");
    const auto& result = reply->message.filter_results.front();
    if (result.error_code != ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(result.error_code),
                                    result.error_message.value_or(""));
    nlohmann::json deleted = nlohmann::json::array();
    for (const auto& m : result.matching_acls) {
        if (m.error_code != ErrorCode::none)
            return kafka_error_response(static_cast<int16_t>(m.error_code),
                                        m.error_message.value_or(""));
        deleted.push_back(acl_json(m.resource_type, m.resource_name, m.pattern_type, m.principal,
                                   m.host, m.operation, m.permission_type));
    }
    if (deleted.empty())
        return error_response(404, "no such ACL");
    return json_response(200, {{"deleted", deleted}});
}

std::vector<std::byte> bytes_of(const std::string& s) {
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return {p, p + s.size()};
}

// The one result of an AlterUserScramCredentials, as the API answers it.
http::HttpResponse alter_user(ApiCall& call, const protocol::AlterUserScramCredentialsRequest& r,
                              const nlohmann::json& answer) {
    auto reply = call.kafka.call<protocol::AlterUserScramCredentialsResponse>(r, 0);
    if (!reply)
        return error_response(500, reply.error());
    for (const auto& result : reply->message.results)
        if (result.error_code != ErrorCode::none)
            return kafka_error_response(static_cast<int16_t>(result.error_code),
                                        result.error_message.value_or(""));
    return json_response(200, answer);
}

// POST /api/users {name, password, mechanism?, iterations?}: the salt and SaltedPassword are made
// here, as a Kafka admin client makes them (KIP-554); the password itself is never sent on.
http::HttpResponse upsert_user(ApiCall& call) {
    auto parsed = parse_json_object(call.http.body);
    if (!parsed)
        return error_response(400, parsed.error());
    nlohmann::json& body = *parsed;
    const auto name = string_member(body, "name");
    if (!name || name->empty())
        return error_response(400, "\"name\" must be a non-empty string");
    const auto password = string_member(body, "password");
    if (!password || password->empty())
        return error_response(400, "\"password\" must be a non-empty string");
    const auto mechanism_name = string_member(body, "mechanism").value_or("SCRAM-SHA-256");
    const auto mechanism = security::parse_scram_mechanism(mechanism_name);
    if (!mechanism)
        return error_response(400, "\"mechanism\" must be SCRAM-SHA-256 or SCRAM-SHA-512");
    int32_t iterations = security::kScramDefaultIterations;
    if (body.contains("iterations") && !body["iterations"].is_null()) {
        // Kafka's bounds are Kafka's to enforce (UNACCEPTABLE_CREDENTIAL); only the type here.
        if (!body["iterations"].is_number_integer() || body["iterations"].get<int64_t>() < 1 ||
            body["iterations"].get<int64_t>() > 1000000)
            return error_response(400, "\"iterations\" must be a whole number");
        iterations = body["iterations"].get<int32_t>();
    }
    const std::string salt = security::scram_random_bytes(security::kScramSaltBytes);
    protocol::ScramCredentialUpsertion upsertion;
    upsertion.name = *name;
    upsertion.mechanism = security::scram_mechanism_type(*mechanism);
    upsertion.iterations = iterations;
    upsertion.salt = bytes_of(salt);
    upsertion.salted_password =
        bytes_of(security::scram_salted_password(*mechanism, *password, salt, iterations));
    protocol::AlterUserScramCredentialsRequest request;
    request.upsertions.push_back(std::move(upsertion));
    return alter_user(call, request,
                      {{"name", *name},
                       {"mechanism", security::scram_mechanism_name(*mechanism)},
                       {"iterations", iterations}});
}

// DELETE /api/users/{name}?mechanism=SCRAM-SHA-256 (the default).
http::HttpResponse delete_user(ApiCall& call) {
    const auto& name = call.params.at("name");
    const auto mechanism =
        security::parse_scram_mechanism(call.query_value("mechanism", "SCRAM-SHA-256"));
    if (!mechanism)
        return error_response(400, "mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512");
    protocol::AlterUserScramCredentialsRequest request;
    request.deletions.push_back({name, security::scram_mechanism_type(*mechanism)});
    return alter_user(
        call, request,
        {{"deleted", name}, {"mechanism", security::scram_mechanism_name(*mechanism)}});
}

}  // namespace security_writes_impl

void add_security_write_routes(RouteTable& routes) {
    using namespace security_writes_impl;
    routes.push_back({"POST", "/api/acls", true, create_acl});
    routes.push_back({"DELETE", "/api/acls", true, delete_acl});
    routes.push_back({"POST", "/api/users", true, upsert_user});
    routes.push_back({"DELETE", "/api/users/{name}", true, delete_user});
}

}  // namespace skiff::broker::console
