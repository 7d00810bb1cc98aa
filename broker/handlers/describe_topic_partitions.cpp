#include <algorithm>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

// Kafka's max.request.partition.size.limit default: a page never holds more partitions.
constexpr int32_t kMaxPartitionsPerPage = 2000;

}  // namespace

// Pagination as Kafka's DescribeTopicPartitionsRequestHandler and KRaftMetadataCache do it: the
// topics (the named ones, else every topic) sorted by name, from the cursor's topic on; each
// answered from partition 0 (the cursor's topic from the cursor's partition) while the page has
// room. A topic cut short ends the page with next_cursor at its first partition left out; a page
// full before the next topic ends with next_cursor at that topic's partition 0; a page holds at
// least one partition. A cursor naming a topic the request does not list, or a negative
// partition, is INVALID_REQUEST. Listing every topic (the internal ones included, as Metadata)
// leaves out topics with errors; naming an unknown one answers UNKNOWN_TOPIC_OR_PARTITION for it
// (INVALID_TOPIC_EXCEPTION for an invalid name).
asio::awaitable<protocol::DescribeTopicPartitionsResponse> handle_describe_topic_partitions(
    RequestContext& ctx, const protocol::DescribeTopicPartitionsRequest& req) {
    Broker& broker = ctx.broker;
    protocol::DescribeTopicPartitionsResponse resp;
    const bool all_topics = req.topics.empty();

    std::vector<std::string> names;
    if (all_topics) {
        for (const auto& t : broker.topics().list())  // internal ones too, as Metadata
            if (authorized(ctx, AclOperation::describe, ResourceType::topic, t.name))
                names.push_back(t.name);
    } else {
        for (const auto& t : req.topics)
            names.push_back(t.name);
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
    }
    // Kafka refuses a cursor that names a topic the request does not list, or a negative
    // partition.
    if (req.cursor && (req.cursor->partition_index < 0 ||
                       (!all_topics &&
                        !std::binary_search(names.begin(), names.end(), req.cursor->topic_name)))) {
        // Kafka fails the request; its error response carries the code on every topic named.
        for (const auto& name : names) {
            protocol::DescribeTopicPartitionsResponseTopic t;
            t.error_code = ErrorCode::invalid_request;
            t.name = name;
            resp.topics.push_back(std::move(t));
        }
        co_return resp;
    }

    // At least one partition per page, as Kafka: a limit of 0 or less still makes progress.
    int32_t remaining = std::max(std::min(req.response_partition_limit, kMaxPartitionsPerPage), 1);
    for (const auto& name : names) {
        if (req.cursor && name < req.cursor->topic_name)
            continue;
        if (remaining <= 0) {
            resp.next_cursor = protocol::DescribeTopicPartitionsCursor{name, 0};
            break;
        }
        protocol::DescribeTopicPartitionsResponseTopic t;
        t.name = name;
        // A topic named that the client may not DESCRIBE (docs/acls.md): whether it exists or
        // not, TOPIC_AUTHORIZATION_FAILED.
        if (!all_topics && !authorized(ctx, AclOperation::describe, ResourceType::topic, name)) {
            t.error_code = ErrorCode::topic_authorization_failed;
            resp.topics.push_back(std::move(t));
            continue;
        }
        auto count = broker.topics().partition_count(name);
        auto id = broker.topics().topic_id(name);
        if (!count || !id) {
            if (all_topics)  // deleted since it was listed
                continue;
            t.error_code = TopicRegistry::invalid_topic_reason(name)
                               ? ErrorCode::invalid_topic_exception
                               : ErrorCode::unknown_topic_or_partition;
            t.topic_authorized_operations = authorized_operations(ctx, ResourceType::topic, name);
            resp.topics.push_back(std::move(t));
            continue;
        }
        t.topic_id = to_uuid(*id);
        t.is_internal = TopicRegistry::is_internal(name);
        // KIP-430: the request has no flag; Kafka answers the operations of every topic it
        // describes (DescribeTopicPartitionsRequestHandler), the refused ones keep INT32_MIN.
        t.topic_authorized_operations = authorized_operations(ctx, ResourceType::topic, name);
        const int32_t first =
            req.cursor && name == req.cursor->topic_name ? req.cursor->partition_index : 0;
        const int32_t end = std::min<int64_t>(*count, int64_t{first} + remaining);
        for (int32_t p = first; p < end; ++p) {
            protocol::DescribeTopicPartitionsResponsePartition partition;
            partition.partition_index = p;
            partition.leader_id = broker.node_id();
            partition.leader_epoch = 0;
            partition.replica_nodes = {broker.node_id()};
            partition.isr_nodes = {broker.node_id()};
            // KIP-966: Kafka answers empty lists (not null) whether ELR is enabled or not; the
            // ELR holds replicas that left the ISR cleanly, and the one replica never leaves.
            partition.eligible_leader_replicas.emplace();
            partition.last_known_elr.emplace();
            t.partitions.push_back(std::move(partition));
        }
        remaining -= std::max(end - first, 0);
        resp.topics.push_back(std::move(t));
        if (end < *count) {
            resp.next_cursor = protocol::DescribeTopicPartitionsCursor{name, end};
            break;
        }
    }
    co_return resp;
}

}  // namespace skiff::broker
