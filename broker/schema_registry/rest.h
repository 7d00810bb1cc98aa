// One REST call of the schema registry, apart from any HTTP library: the HTTP server
// (broker/http/) turns a request into a RestRequest and a RestResponse back into bytes, so that
// the registry's routes are tested without sockets.
#pragma once

#include <map>
#include <string>

namespace skiff::schema_registry {

struct RestRequest {
    std::string method;  // GET, POST, PUT, DELETE
    std::string path;    // as received: percent-encoded, without the query string
    std::multimap<std::string, std::string> query;  // decoded names and values
    std::string body;
    std::string principal = "User:ANONYMOUS";  // who is asking, once authenticated
};

struct RestResponse {
    int status = 200;
    std::string body;  // JSON, served as application/vnd.schemaregistry.v1+json
};

}  // namespace skiff::schema_registry
