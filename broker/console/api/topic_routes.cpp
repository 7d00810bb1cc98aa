// The console API's topics (docs/console-api.md): GET /api/topics lists them from a Metadata
// request, as the caller's client would see them (topics it may not DESCRIBE left out).
#include "broker/console/console_route.h"
#include "protocol/metadata.h"

namespace skiff::broker::console {
namespace {

http::HttpResponse list_topics(ApiCall& call) {
    protocol::MetadataRequest request;
    request.topics = std::nullopt;  // all
    request.allow_auto_topic_creation = false;
    auto reply = call.kafka.call<protocol::MetadataResponse>(request, 12);
    if (!reply)
        return error_response(500, reply.error());
    nlohmann::json topics = nlohmann::json::array();
    for (const auto& topic : reply->message.topics) {
        if (topic.error_code != protocol::ErrorCode::none || !topic.name)
            continue;
        topics.push_back({{"name", *topic.name},
                          {"internal", topic.is_internal},
                          {"partitions", topic.partitions.size()}});
    }
    return json_response(200, nlohmann::json{{"topics", topics}});
}

}  // namespace

void add_topic_routes(RouteTable& routes) {
    routes.push_back({"GET", "/api/topics", false, list_topics});
}

}  // namespace skiff::broker::console
