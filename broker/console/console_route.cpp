#include "broker/console/console_route.h"

#include "protocol/error_code.h"

namespace skiff::broker::console {

std::string ApiCall::query_value(std::string_view name, std::string_view fallback) const {
    auto it = query.find(std::string(name));
    return it == query.end() ? std::string(fallback) : it->second;
}

http::HttpResponse json_response(int status, const nlohmann::json& body) {
    http::HttpResponse r;
    r.status = status;
    r.content_type = "application/json";
    // Invalid UTF-8 in a record's key or header cannot break the answer: it is replaced.
    r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return r;
}

http::HttpResponse error_response(int status, std::string_view message, int error_code) {
    return json_response(status, nlohmann::json{{"error_code", error_code ? error_code : status},
                                                {"message", std::string(message)}});
}

Expected<nlohmann::json, std::string> parse_json_object(std::string_view body) {
    auto json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded())
        return unexpected(std::string("the body is not JSON"));
    if (!json.is_object())
        return unexpected(std::string("the body must be a JSON object"));
    return json;
}

http::HttpResponse kafka_error_response(int16_t kafka_error, std::string_view message) {
    using protocol::ErrorCode;
    const auto code = static_cast<ErrorCode>(kafka_error);
    int status = 500;
    switch (code) {
        case ErrorCode::unknown_topic_or_partition:
        case ErrorCode::group_id_not_found:
            status = 404;
            break;
        case ErrorCode::topic_authorization_failed:
        case ErrorCode::group_authorization_failed:
        case ErrorCode::cluster_authorization_failed:
        case ErrorCode::transactional_id_authorization_failed:
            status = 403;
            break;
        case ErrorCode::topic_already_exists:
            status = 409;
            break;
        default:
            // The request's own fault (invalid configs, partitions, records...) for the rest of
            // the codes a client can cause; the broker's otherwise.
            status = kafka_error == 0 ? 200 : 400;
            break;
    }
    std::string text = protocol::error_name(code);
    if (!message.empty())
        text += ": " + std::string(message);
    auto r = json_response(status, nlohmann::json{{"error_code", status},
                                                  {"kafka_error", protocol::error_name(code)},
                                                  {"message", text}});
    return r;
}

}  // namespace skiff::broker::console
