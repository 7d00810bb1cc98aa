#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

// Deleting closes the topic's logs and renames their directories; the files are removed by the
// maintenance thread, so a large topic does not hold up this connection's I/O thread.
asio::awaitable<protocol::DeleteTopicsResponse> handle_delete_topics(
    RequestContext& ctx, const protocol::DeleteTopicsRequest& req) {
    protocol::DeleteTopicsResponse resp;
    resp.responses.reserve(req.topic_names.size());
    for (const auto& name : req.topic_names) {
        protocol::DeletableTopicResult r;
        r.name = name;
        if (TopicRegistry::is_internal(name)) {
            // Internal topics (committed offsets) belong to the broker.
            r.error_code = protocol::ErrorCode::invalid_request;
        } else {
            r.error_code = ctx.broker.topics().remove(name);
            if (r.error_code == protocol::ErrorCode::none)
                spdlog::info("deleted topic '{}' for {}", name, ctx.peer);
        }
        resp.responses.push_back(std::move(r));
    }
    co_return resp;
}

}  // namespace skiff::broker
