#include "broker/metrics/endpoint.h"

namespace skiff::broker::metrics {
namespace {

http::HttpResponse plain(int status, std::string body) {
    http::HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    return r;
}

}  // namespace

http::HttpResponse answer_endpoint(const http::HttpRequest& request, const EndpointRoutes& routes) {
    if (routes.control)
        if (auto answer = routes.control(request))
            return std::move(*answer);
    if (request.method != "GET" && request.method != "HEAD") {
        auto r = plain(405, "only GET and HEAD\n");
        r.headers.emplace_back("Allow", "GET, HEAD");
        return r;
    }
    if (request.path == "/metrics") {
        http::HttpResponse r;
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        r.body = routes.metrics ? routes.metrics() : std::string();
        return r;
    }
    if (request.path == "/health/live")
        return plain(200, "live\n");
    if (request.path == "/health/ready") {
        if (routes.ready && routes.ready())
            return plain(200, "ready\n");
        return plain(503,
                     "not ready: the logs are being recovered or the listeners are not "
                     "accepting yet\n");
    }
    return plain(404, "not found; try /metrics, /health/live or /health/ready\n");
}

std::unique_ptr<http::HttpServer> start_endpoint(const config::Listener& listener,
                                                 EndpointRoutes routes) {
    http::HttpServerOptions options;
    options.setting = "metrics.listener";
    // A scrape every few seconds and probes: one thread is plenty. With the control API a
    // second, so that a long snapshot does not hold a scrape or a probe up.
    const bool control = static_cast<bool>(routes.control);
    options.threads = control ? 2 : 1;
    options.max_connections = 32;
    options.limits.max_head_bytes = 8192;
    // GET and HEAD only: nothing to read; the control API's JSON bodies are small.
    options.limits.max_body_bytes = control ? 1024 * 1024 : 0;
    return std::make_unique<http::HttpServer>(
        listener, std::move(options), [routes = std::move(routes)](const http::HttpRequest& r) {
            return answer_endpoint(r, routes);
        });
}

}  // namespace skiff::broker::metrics
