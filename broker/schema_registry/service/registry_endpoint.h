// The schema registry's HTTP side: each schema.registry.listeners entry served by skiff's HTTP
// stack (broker/http/), every request turned into the registry's RestRequest and its answer
// served as application/vnd.schemaregistry.v1+json, as Confluent serves it. With BASIC
// authentication, a request without valid credentials is answered 401 before the registry sees
// it; the principal it authenticates is the one the registry's ACL checks use.
#pragma once

#include <memory>
#include <vector>

#include "broker/http/http_server.h"
#include "broker/schema_registry/registry.h"
#include "broker/schema_registry/service/basic_auth.h"
#include "broker/security/credential_store.h"
#include "broker/security/tls_context.h"
#include "config/listener.h"

namespace skiff::broker::schema_registry_service {

struct EndpointSettings {
    bool basic_auth = false;
    size_t max_request_bytes = size_t{4} << 20;
    size_t threads = 4;  // handlers may wait for _schemas' fsync: several run at once
};

class RegistryEndpoint {
  public:
    RegistryEndpoint(schema_registry::Registry& registry,
                     const security::CredentialStore& credentials, EndpointSettings settings);

    // The answer to one HTTP request (exposed for unit tests).
    http::HttpResponse answer(const http::HttpRequest& request);

    // Binds `listener` (HTTP or HTTPS; HTTPS needs `tls`) now, throwing std::runtime_error that
    // names schema.registry.listeners when it cannot, and serves until the server is destroyed.
    std::unique_ptr<http::HttpServer> serve(const config::Listener& listener,
                                            std::shared_ptr<security::TlsContext> tls);

  private:
    schema_registry::Registry& registry_;
    EndpointSettings settings_;
    BasicAuthenticator authenticator_;
};

}  // namespace skiff::broker::schema_registry_service
