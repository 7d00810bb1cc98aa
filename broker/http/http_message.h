// An HTTP request and response as skiff's HTTP endpoints see them (broker/http/http_server.h):
// the metrics and health endpoint and the schema registry. Plain values, no sockets, so that an
// endpoint's routes are tested without a server.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skiff::broker::http {

struct HttpRequest {
    std::string method;  // "GET", "POST", ... as sent
    std::string target;  // the request target as sent: path and query, still percent-encoded
    std::string path;    // the target's path, still percent-encoded (routes decode each segment)
    std::string query;   // after the '?', still encoded ("" when none)
    std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
    std::string body;
    std::string peer;  // "address:port" of the client

    // The first header of that (lower-case) name.
    std::optional<std::string_view> header(std::string_view name) const;
};

struct HttpResponse {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // besides the type and length
};

// "OK", "Not Found", ... for the statuses skiff's endpoints answer.
std::string_view reason_phrase(int status);

// The response's status line, headers and (unless `head_only`, the answer to a HEAD) body.
// `keep_alive` false adds "Connection: close".
std::string render_response(const HttpResponse& response, bool keep_alive, bool head_only);

}  // namespace skiff::broker::http
