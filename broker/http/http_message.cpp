#include "broker/http/http_message.h"

namespace skiff::broker::http {

std::optional<std::string_view> HttpRequest::header(std::string_view name) const {
    for (const auto& [n, v] : headers)
        if (n == name)
            return std::string_view(v);
    return std::nullopt;
}

std::string_view reason_phrase(int status) {
    switch (status) {
        case 100:
            return "Continue";
        case 200:
            return "OK";
        case 204:
            return "No Content";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 408:
            return "Request Timeout";
        case 409:
            return "Conflict";
        case 413:
            return "Payload Too Large";
        case 415:
            return "Unsupported Media Type";
        case 422:
            return "Unprocessable Entity";
        case 431:
            return "Request Header Fields Too Large";
        case 500:
            return "Internal Server Error";
        case 503:
            return "Service Unavailable";
        case 504:
            return "Gateway Timeout";
        default:
            return "Status";
    }
}

std::string render_response(const HttpResponse& response, bool keep_alive, bool head_only) {
    std::string out;
    out.reserve(160 + response.body.size());
    out += "HTTP/1.1 ";
    out += std::to_string(response.status);
    out += ' ';
    out += reason_phrase(response.status);
    out += "\r\nContent-Type: ";
    out += response.content_type;
    out += "\r\nContent-Length: ";
    out += std::to_string(response.body.size());
    for (const auto& [name, value] : response.headers) {
        out += "\r\n";
        out += name;
        out += ": ";
        out += value;
    }
    if (!keep_alive)
        out += "\r\nConnection: close";
    out += "\r\n\r\n";
    if (!head_only)
        out += response.body;
    return out;
}

}  // namespace skiff::broker::http
