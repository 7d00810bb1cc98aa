// The operations HTTP endpoint (metrics.listener): GET /metrics (Prometheus text format 0.0.4),
// GET /health/live (200 while the process serves HTTP at all) and GET /health/ready (200 once
// recovery is over and the Kafka listeners accept, 503 before), and the test-control API under
// /control/ (docs/control-api.md). Anything else is 404, a method other than GET or HEAD 405.
// Served by skiff's HTTP stack (broker/http/http_server.h) on a thread of its own, apart from the
// Kafka path.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "broker/http/http_server.h"
#include "config/listener.h"

namespace skiff::broker::metrics {

struct EndpointRoutes {
    std::function<std::string()> metrics;
    std::function<bool()> ready;
    // The test-control API's routes (control/control_api.h): an answer for /control paths,
    // nullopt for the rest. Not set: /control is 404 like any unknown path.
    std::function<std::optional<http::HttpResponse>(const http::HttpRequest&)> control;
};

// The answer to one request (exposed for unit tests).
http::HttpResponse answer_endpoint(const http::HttpRequest& request, const EndpointRoutes& routes);

// Binds `listener` now (throws std::runtime_error naming metrics.listener and the address when it
// cannot) and serves the endpoint until the server is destroyed.
std::unique_ptr<http::HttpServer> start_endpoint(const config::Listener& listener,
                                                 EndpointRoutes routes);

}  // namespace skiff::broker::metrics
