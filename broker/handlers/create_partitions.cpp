#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/log_throttle.h"
#include "broker/security/authorize.h"
#include "broker/topics/replica_assignment.h"

namespace skiff::broker {

asio::awaitable<protocol::CreatePartitionsResponse> handle_create_partitions(
    RequestContext& ctx, const protocol::CreatePartitionsRequest& req) {
    protocol::CreatePartitionsResponse resp;
    resp.results.reserve(req.topics.size());
    for (const auto& t : req.topics) {
        protocol::CreatePartitionsTopicResult r;
        r.name = t.name;
        // ALTER on the topic (docs/acls.md), else TOPIC_AUTHORIZATION_FAILED.
        if (!authorized(ctx, AclOperation::alter, ResourceType::topic, t.name)) {
            r.error_code = protocol::ErrorCode::topic_authorization_failed;
            r.error_message = "The topic authorization is failed.";
            resp.results.push_back(std::move(r));
            continue;
        }
        std::optional<std::string> bad_assignment;
        const auto existing = ctx.broker.topics().partition_count(t.name);
        if (t.assignments.has_value() && existing) {  // else add_partitions says what is wrong
            // Kafka: one replica list per new partition, each naming registered brokers.
            const int32_t current = *existing;
            std::vector<const std::vector<int32_t>*> lists;
            for (const auto& a : *t.assignments)
                lists.push_back(&a.broker_ids);
            if (t.count > current && lists.size() != static_cast<size_t>(t.count - current))
                bad_assignment = "increasing the number of partitions by " +
                                 std::to_string(t.count - current) + " but " +
                                 std::to_string(lists.size()) + " assignments provided";
            else
                bad_assignment = invalid_replica_assignment(lists, ctx.broker.node_id());
        }
        if (bad_assignment) {
            r.error_code = protocol::ErrorCode::invalid_replica_assignment;
            r.error_message = std::move(*bad_assignment);
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
