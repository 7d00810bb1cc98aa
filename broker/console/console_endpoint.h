// The web console's HTTP side (docs/console.md): each console.listeners entry served by skiff's
// HTTP stack (broker/http/) on threads of its own, never the Kafka I/O threads. It serves the
// console's pages from the binary (console_assets.h), the JSON API under /api/ and Confluent
// REST Proxy v3 under /v3/ (console_route.h).
//
// Before a route runs:
// - with a SASL listener configured, HTTP basic authentication against skiff's SCRAM users
//   (401 otherwise); the principal it proves is the one every Kafka request of the route runs as;
// - a route that changes anything is refused (403) while console.read.only is true, and when
//   the request comes from another site (an Origin other than the console's own, or a browser's
//   Sec-Fetch-Site other than same-origin / none): a page elsewhere cannot make a visitor's
//   browser change the broker. GET never changes anything.
// Every answer carries a Content-Security-Policy that allows only the console's own scripts and
// styles, so nothing a record holds can run as script even if it reached the page as HTML.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "broker/console/console_route.h"
#include "broker/console/rate_sampler.h"
#include "broker/http/http_server.h"
#include "broker/schema_registry/service/basic_auth.h"
#include "broker/security/tls_context.h"
#include "config/listener.h"

namespace skiff::broker {
class Broker;
class RequestRouter;
}  // namespace skiff::broker

namespace skiff::broker::console {

class ConsoleEndpoint {
  public:
    // `basic_auth`: require HTTP basic authentication (skiff turns it on when a SASL listener
    // is configured).
    ConsoleEndpoint(Broker& broker, const RequestRouter& router, ConsoleSettings settings,
                    bool basic_auth);

    // The answer to one HTTP request (exposed for unit tests).
    http::HttpResponse answer(const http::HttpRequest& request);

    // Binds `listener` (HTTP or HTTPS; HTTPS needs `tls`) now, throwing std::runtime_error that
    // names console.listeners when it cannot, and serves until the server is destroyed.
    std::unique_ptr<http::HttpServer> serve(const config::Listener& listener,
                                            std::shared_ptr<security::TlsContext> tls);

    const RouteTable& routes() const { return routes_; }
    // The overview's rates; serve() starts its sampling thread, unit tests call sample().
    RateSampler& rates() { return rates_; }

  private:
    http::HttpResponse route(const http::HttpRequest& request, const Caller& caller);
    // Why a state-changing request is refused, or nullopt when it may go on.
    std::optional<std::string> refuse_write(const http::HttpRequest& request) const;

    Broker& broker_;
    const RequestRouter& router_;
    ConsoleSettings settings_;
    bool basic_auth_;
    schema_registry_service::BasicAuthenticator authenticator_;
    RouteTable routes_;
    RateSampler rates_;
    int64_t started_at_ms_;
};

}  // namespace skiff::broker::console
