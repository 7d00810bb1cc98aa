#include "broker/schema_registry/service/registry_endpoint.h"

#include "broker/http/url.h"
#include "broker/schema_registry/service/registry_acls.h"

namespace skiff::broker::schema_registry_service {
namespace {

constexpr std::string_view kContentType = "application/vnd.schemaregistry.v1+json";

http::HttpResponse json(int status, int error_code, std::string_view message) {
    http::HttpResponse r;
    r.status = status;
    r.content_type = std::string(kContentType);
    r.body = "{\"error_code\":" + std::to_string(error_code) + ",\"message\":\"" +
             std::string(message) + "\"}";
    return r;
}

// "1.2.3.4:5678" -> "1.2.3.4" ("[::1]:5678" style is not produced: Asio prints v6 bare).
std::string host_of(const std::string& peer) {
    const auto colon = peer.rfind(':');
    return colon == std::string::npos ? peer : peer.substr(0, colon);
}

}  // namespace

RegistryEndpoint::RegistryEndpoint(schema_registry::Registry& registry,
                                   const security::CredentialStore& credentials,
                                   EndpointSettings settings)
    : registry_(registry), settings_(settings), authenticator_(credentials) {}

http::HttpResponse RegistryEndpoint::answer(const http::HttpRequest& request) {
    schema_registry::RestRequest rest;
    if (settings_.basic_auth) {
        auto principal = authenticator_.authenticate(request.header("authorization"));
        if (!principal) {
            auto r = json(401, 401, "Unauthorized");
            r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"skiff schema registry\"");
            return r;
        }
        rest.principal = std::move(*principal);
    }
    auto query = http::parse_query(request.query);
    if (!query)
        return json(400, 400, "malformed query string");
    rest.method = request.method == "HEAD" ? "GET" : request.method;
    rest.path = request.path;
    rest.query = std::move(*query);
    rest.body = request.body;
    RegistryCaller caller(host_of(request.peer));
    auto answer = registry_.handle(rest);
    http::HttpResponse r;
    r.status = answer.status;
    r.content_type = std::string(kContentType);
    r.body = std::move(answer.body);
    return r;
}

std::unique_ptr<http::HttpServer> RegistryEndpoint::serve(
    const config::Listener& listener, std::shared_ptr<security::TlsContext> tls) {
    http::HttpServerOptions options;
    options.setting = "schema.registry.listeners";
    options.threads = settings_.threads;
    options.max_connections = 256;
    options.limits.max_body_bytes = settings_.max_request_bytes;
    options.limits.max_head_bytes = size_t{16} * 1024;
    options.deadline = std::chrono::seconds(30);
    options.refusal = [](int status, const std::string& why) { return json(status, status, why); };
    if (listener.name == "HTTPS")
        options.tls = std::move(tls);
    return std::make_unique<http::HttpServer>(
        listener, std::move(options), [this](const http::HttpRequest& r) { return answer(r); });
}

}  // namespace skiff::broker::schema_registry_service
