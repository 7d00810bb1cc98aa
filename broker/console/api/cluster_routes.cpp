// The console API's cluster pages (docs/console-api.md, "Cluster"): the overview, the ACLs and
// the SCRAM users. The ACLs and users are the DescribeAcls and DescribeUserScramCredentials
// requests as the caller (so DESCRIBE on the cluster is needed, as for a Kafka client); the
// overview adds what no Kafka API shows: the log dir's disk use (statvfs), segment counts and
// the produce / fetch rates the console samples (rate_sampler.h).
#include <sys/statvfs.h>

#include <set>
#include <string>

#include "broker/broker.h"
#include "broker/console/api/security_api.h"
#include "broker/console/console_route.h"
#include "broker/console/rate_sampler.h"
#include "broker/security/acl.h"
#include "config/listener.h"
#include "protocol/acls.h"
#include "protocol/list_groups.h"
#include "protocol/user_scram_credentials.h"
#include "storage/log_config.h"

#ifndef SKIFF_VERSION
#define SKIFF_VERSION "unknown"
#endif

namespace skiff::broker::console {
namespace {

using config::SecurityProtocol;

bool is_sasl(SecurityProtocol p) {
    return p == SecurityProtocol::sasl_plaintext || p == SecurityProtocol::sasl_ssl;
}
bool is_tls(SecurityProtocol p) {
    return p == SecurityProtocol::ssl || p == SecurityProtocol::sasl_ssl;
}

std::vector<std::string> split_mechanisms(const std::string& text) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t end = std::min(text.find(',', at), text.size());
        std::string item = text.substr(at, end - at);
        const auto first = item.find_first_not_of(" \t");
        const auto last = item.find_last_not_of(" \t");
        if (first != std::string::npos)
            out.push_back(item.substr(first, last - first + 1));
        at = end + 1;
    }
    return out;
}

nlohmann::json listeners_and_security(ApiCall& call, nlohmann::json& security) {
    nlohmann::json listeners = nlohmann::json::array();
    bool sasl = false, tls = false;
    for (const auto& configured : call.broker.config().listeners) {
        const auto protocol = call.broker.security_protocol(configured.name);
        // The advertised address, with the bound port when the listener asked for port 0.
        const auto& advertised = call.broker.advertised(configured.name);
        listeners.push_back({{"name", configured.name},
                             {"host", advertised.host},
                             {"port", advertised.port},
                             {"security_protocol", config::security_protocol_name(protocol)}});
        sasl = sasl || is_sasl(protocol);
        tls = tls || is_tls(protocol);
    }
    security = {
        {"authorizer", call.broker.authorizer() != nullptr},
        {"sasl_mechanisms", sasl ? split_mechanisms(call.broker.config().sasl_enabled_mechanisms)
                                 : std::vector<std::string>{}},
        {"tls", tls}};
    return listeners;
}

nlohmann::json data_use(ApiCall& call) {
    auto& logs = call.broker.logs();
    int64_t size = 0;
    size_t segments = 0, partitions = 0;
    std::set<std::string> topics;
    for (const auto& entry : logs.logs()) {
        size += entry.second->size_bytes();
        segments += entry.second->segment_count();
        ++partitions;
        topics.insert(entry.first.topic);
    }
    int64_t free_bytes = -1, total_bytes = -1;
    struct statvfs fs {};
    if (::statvfs(logs.log_dir().c_str(), &fs) == 0) {
        free_bytes = static_cast<int64_t>(static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize);
        total_bytes = static_cast<int64_t>(static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize);
    }
    return {{"log_dir", logs.log_dir().string()},
            {"size_bytes", size},
            {"disk_free_bytes", free_bytes},
            {"disk_total_bytes", total_bytes},
            {"topics", topics.size()},
            {"partitions", partitions},
            {"segments", segments}};
}

nlohmann::json rates(const ApiCall& call) {
    nlohmann::json samples = nlohmann::json::array();
    int64_t interval_ms = call.settings.rate_interval.count();
    if (call.rates) {
        interval_ms = call.rates->interval().count();
        for (const auto& s : call.rates->samples())
            samples.push_back({{"time_ms", s.time_ms},
                               {"produce_bytes_per_s", s.produce_bytes_per_s},
                               {"fetch_bytes_per_s", s.fetch_bytes_per_s},
                               {"produce_requests_per_s", s.produce_requests_per_s},
                               {"fetch_requests_per_s", s.fetch_requests_per_s}});
    }
    return {{"interval_ms", interval_ms}, {"samples", samples}};
}

http::HttpResponse overview(ApiCall& call) {
    nlohmann::json security;
    auto listeners = listeners_and_security(call, security);
    // Groups the caller may DESCRIBE, of every type, as ListGroups answers them.
    size_t groups = 0;
    protocol::ListGroupsRequest list;
    if (auto reply = call.kafka.call<protocol::ListGroupsResponse>(list, 5);
        reply && reply->message.error_code == protocol::ErrorCode::none)
        groups = reply->message.groups.size();
    const int64_t now = storage::wall_clock_ms();
    const auto& principal = call.kafka.caller().principal;
    nlohmann::json body = {
        {"cluster_id", call.broker.cluster_id()},
        {"node_id", call.broker.node_id()},
        {"version", std::string("skiff ") + SKIFF_VERSION},
        {"started_at_ms", call.started_at_ms},
        {"uptime_ms", std::max<int64_t>(0, now - call.started_at_ms)},
        {"listeners", listeners},
        // Basic authentication is on exactly when a SASL listener is (console_endpoint.h).
        {"console",
         {{"read_only", call.settings.read_only},
          {"authentication", security["sasl_mechanisms"].empty() ? "none" : "basic"},
          {"principal", principal}}},
        {"security", security},
        {"data", data_use(call)},
        {"groups", groups},
        {"schema_registry", call.broker.schema_registry() != nullptr},
        {"rates", rates(call)}};
    return json_response(200, body);
}

http::HttpResponse list_acls(ApiCall& call) {
    protocol::DescribeAclsRequest request;  // every ACL: ANY of each filter field
    request.resource_type_filter = static_cast<int8_t>(security::ResourceType::any);
    request.pattern_type_filter = static_cast<int8_t>(security::PatternType::any);
    request.operation = static_cast<int8_t>(security::AclOperation::any);
    request.permission_type = static_cast<int8_t>(security::AclPermission::any);
    auto reply = call.kafka.call<protocol::DescribeAclsResponse>(request, 3);
    if (!reply)
        return error_response(500, reply.error());
    const auto& resp = reply->message;
    if (resp.error_code == protocol::ErrorCode::security_disabled)
        return json_response(200, {{"authorizer", false}, {"acls", nlohmann::json::array()}});
    if (resp.error_code != protocol::ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(resp.error_code),
                                    resp.error_message.value_or(""));
    nlohmann::json acls = nlohmann::json::array();
    for (const auto& resource : resp.resources) {
        for (const auto& acl : resource.acls) {
            acls.push_back(acl_json(resource.resource_type, resource.resource_name,
                                    resource.pattern_type, acl.principal, acl.host, acl.operation,
                                    acl.permission_type));
        }
    }
    return json_response(200, {{"authorizer", true}, {"acls", acls}});
}

// Kafka's ScramMechanism type codes (KIP-554).
std::string mechanism_name(int8_t type) {
    switch (type) {
        case 1:
            return "SCRAM-SHA-256";
        case 2:
            return "SCRAM-SHA-512";
        default:
            return "UNKNOWN";
    }
}

http::HttpResponse list_users(ApiCall& call) {
    protocol::DescribeUserScramCredentialsRequest request;  // users null: every user
    auto reply = call.kafka.call<protocol::DescribeUserScramCredentialsResponse>(request, 0);
    if (!reply)
        return error_response(500, reply.error());
    const auto& resp = reply->message;
    if (resp.error_code != protocol::ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(resp.error_code),
                                    resp.error_message.value_or(""));
    nlohmann::json users = nlohmann::json::array();
    for (const auto& user : resp.results) {
        nlohmann::json mechanisms = nlohmann::json::array();
        for (const auto& info : user.credential_infos)
            mechanisms.push_back(
                {{"mechanism", mechanism_name(info.mechanism)}, {"iterations", info.iterations}});
        users.push_back({{"name", user.user}, {"mechanisms", mechanisms}});
    }
    return json_response(200, {{"users", users}});
}

}  // namespace

void add_cluster_routes(RouteTable& routes) {
    routes.push_back({"GET", "/api/overview", false, overview});
    routes.push_back({"GET", "/api/acls", false, list_acls});
    routes.push_back({"GET", "/api/users", false, list_users});
    add_security_write_routes(routes);
}

}  // namespace skiff::broker::console
