#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/log_throttle.h"

namespace skiff::broker {

asio::awaitable<protocol::CreatePartitionsResponse> handle_create_partitions(
    RequestContext& ctx, const protocol::CreatePartitionsRequest& req) {
    protocol::CreatePartitionsResponse resp;
    resp.results.reserve(req.topics.size());
    for (const auto& t : req.topics) {
        protocol::CreatePartitionsTopicResult r;
        r.name = t.name;
        if (t.assignments.has_value()) {
            r.error_code = protocol::ErrorCode::invalid_replica_assignment;
            r.error_message = "manual replica assignment is not supported by skiff (one broker)";
        } else {
            auto grown = ctx.broker.topics().add_partitions(t.name, t.count, req.validate_only);
            if (grown.error == protocol::ErrorCode::kafka_storage_error)  // rolled back
                LogThrottle::global().log(spdlog::level::err, "create-partitions:storage",
                                          "growing topic '{}' to {} partitions for {} failed and "
                                          "was rolled back: {}",
                                          t.name, t.count, ctx.peer, grown.message);
            r.error_code = grown.error;
            if (grown.error != protocol::ErrorCode::none)
                r.error_message = std::move(grown.message);
            else if (!req.validate_only)
                spdlog::info("topic '{}' now has {} partitions (for {})", t.name, t.count,
                             ctx.peer);
        }
        resp.results.push_back(std::move(r));
    }
    co_return resp;
}

}  // namespace skiff::broker
