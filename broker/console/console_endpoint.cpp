#include "broker/console/console_endpoint.h"

#include <algorithm>

#include "broker/broker.h"
#include "broker/console/console_assets.h"
#include "broker/http/url.h"
#include "broker/request_router.h"
#include "storage/log_config.h"

namespace skiff::broker::console {
namespace {

// Scripts and styles from the console's own files only; no inline script, no plugins, no
// framing by another site.
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

void add_security_headers(http::HttpResponse& r) {
    r.headers.emplace_back("Content-Security-Policy", kContentSecurityPolicy);
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("X-Frame-Options", "DENY");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
    r.headers.emplace_back("Cache-Control", "no-store");
}

std::string host_of(const std::string& peer) {
    const auto colon = peer.rfind(':');
    return colon == std::string::npos ? peer : peer.substr(0, colon);
}

// "/api/topics/{topic}" against the decoded segments of a path: the captures, or nullopt.
std::optional<std::map<std::string, std::string>> match(std::string_view pattern,
                                                        const std::vector<std::string>& segments) {
    std::vector<std::string_view> parts;
    size_t at = 1;  // after the leading '/'
    while (at <= pattern.size()) {
        const size_t end = std::min(pattern.find('/', at), pattern.size());
        parts.push_back(pattern.substr(at, end - at));
        at = end + 1;
    }
    if (parts.size() != segments.size())
        return std::nullopt;
    std::map<std::string, std::string> params;
    for (size_t i = 0; i < parts.size(); ++i) {
        const auto part = parts[i];
        if (part.size() > 2 && part.front() == '{' && part.back() == '}')
            params.emplace(std::string(part.substr(1, part.size() - 2)), segments[i]);
        else if (part != segments[i])
            return std::nullopt;
    }
    return params;
}

bool is_api_path(std::string_view path) {
    return path == "/api" || path.starts_with("/api/") || path == "/v3" || path.starts_with("/v3/");
}

}  // namespace

ConsoleEndpoint::ConsoleEndpoint(Broker& broker, const RequestRouter& router,
                                 ConsoleSettings settings, bool basic_auth)
    : broker_(broker),
      router_(router),
      settings_(settings),
      basic_auth_(basic_auth),
      authenticator_(broker.credentials()),
      rates_(broker, settings_.rate_interval, settings_.rate_window),
      started_at_ms_(storage::wall_clock_ms()) {
    add_cluster_routes(routes_);
    add_topic_routes(routes_);
    add_record_routes(routes_);
    add_group_routes(routes_);
    add_schema_routes(routes_);
    add_rest_v3_routes(routes_);
}

http::HttpResponse ConsoleEndpoint::answer(const http::HttpRequest& request) {
    Caller caller;
    caller.host = host_of(request.peer);
    http::HttpResponse response;
    if (basic_auth_) {
        auto principal = authenticator_.authenticate(request.header("authorization"));
        if (!principal) {
            response = error_response(401, "Unauthorized: sign in with a SCRAM user of skiff");
            response.headers.emplace_back("WWW-Authenticate",
                                          "Basic realm=\"skiff console\", charset=\"UTF-8\"");
            add_security_headers(response);
            return response;
        }
        caller.principal = std::move(*principal);
    }
    if (is_api_path(request.path)) {
        response = route(request, caller);
    } else if (request.method != "GET" && request.method != "HEAD") {
        response = error_response(405, "the console's pages are only read");
    } else if (auto asset = find_asset(request.path)) {
        response.content_type = std::string(asset->content_type);
        response.body = std::string(asset->bytes);
    } else {
        response = error_response(404, "no such page");
    }
    add_security_headers(response);
    return response;
}

std::optional<std::string> ConsoleEndpoint::refuse_write(const http::HttpRequest& request) const {
    if (settings_.read_only)
        return "the console is read-only (console.read.only=true)";
    // Browsers send Sec-Fetch-Site with every request and Origin with every cross-site one;
    // tools such as curl send neither and are not a browser a page could steer.
    if (auto site = request.header("sec-fetch-site");
        site && *site != "same-origin" && *site != "none")
        return "a request from another site may not change the broker";
    if (auto origin = request.header("origin")) {
        const auto host = request.header("host");
        const auto scheme_end = origin->find("://");
        const auto origin_host =
            scheme_end == std::string_view::npos ? *origin : origin->substr(scheme_end + 3);
        if (!host || origin_host != *host)
            return "a request from another origin may not change the broker";
    }
    return std::nullopt;
}

http::HttpResponse ConsoleEndpoint::route(const http::HttpRequest& request, const Caller& caller) {
    auto segments = http::path_segments(request.path);
    if (!segments)
        return error_response(400, "malformed path");
    auto query = http::parse_query(request.query);
    if (!query)
        return error_response(400, "malformed query string");
    const std::string method = request.method == "HEAD" ? "GET" : request.method;
    bool path_known = false;
    for (const auto& route : routes_) {
        auto params = match(route.pattern, *segments);
        if (!params)
            continue;
        path_known = true;
        if (route.method != method)
            continue;
        if (route.writes) {
            if (auto why = refuse_write(request))
                return error_response(403, *why);
        }
        KafkaCall kafka(broker_, router_, caller);
        ApiCall call{request, std::move(*params), std::move(*query), broker_,
                     kafka,   settings_,          &rates_,           started_at_ms_};
        try {
            return route.handler(call);
        } catch (const std::exception& e) {
            return error_response(500, std::string("the console failed: ") + e.what());
        }
    }
    if (path_known)
        return error_response(405, "method not allowed on this path");
    return error_response(404, "HTTP 404 Not Found", 404);
}

std::unique_ptr<http::HttpServer> ConsoleEndpoint::serve(
    const config::Listener& listener, std::shared_ptr<security::TlsContext> tls) {
    http::HttpServerOptions options;
    options.setting = "console.listeners";
    options.threads = settings_.threads;
    options.max_connections = 64;
    options.limits.max_body_bytes = settings_.max_request_bytes;
    options.limits.max_head_bytes = size_t{16} * 1024;
    options.deadline = std::chrono::seconds(30);
    options.refusal = [](int status, const std::string& why) {
        auto r = error_response(status, why);
        add_security_headers(r);
        return r;
    };
    if (listener.name == "HTTPS")
        options.tls = std::move(tls);
    rates_.start();  // once, whatever the number of listeners
    return std::make_unique<http::HttpServer>(
        listener, std::move(options), [this](const http::HttpRequest& r) { return answer(r); });
}

}  // namespace skiff::broker::console
