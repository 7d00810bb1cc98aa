#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/log_throttle.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

protocol::MetadataResponseTopic describe_topic(Broker& broker, const std::string& name,
                                               int32_t partition_count) {
    protocol::MetadataResponseTopic topic;
    topic.error_code = ErrorCode::none;
    topic.name = name;
    if (auto id = broker.topics().topic_id(name))
        topic.topic_id = to_uuid(*id);
    topic.is_internal = TopicRegistry::is_internal(name);
    topic.partitions.reserve(static_cast<size_t>(partition_count));
    // One broker: it leads every partition and is the whole replica set and ISR.
    for (int32_t p = 0; p < partition_count; ++p) {
        protocol::MetadataResponsePartition partition;
        partition.error_code = ErrorCode::none;
        partition.partition_index = p;
        partition.leader_id = broker.node_id();
        partition.leader_epoch = 0;
        partition.replica_nodes = {broker.node_id()};
        partition.isr_nodes = {broker.node_id()};
        topic.partitions.push_back(std::move(partition));
    }
    return topic;
}

protocol::MetadataResponseTopic topic_error(const std::string& name, ErrorCode error) {
    protocol::MetadataResponseTopic topic;
    topic.error_code = error;
    topic.name = name;
    return topic;
}

bool may_describe(const RequestContext& ctx, const std::string& topic) {
    return authorized(ctx, AclOperation::describe, ResourceType::topic, topic);
}

// KIP-430, as KafkaApis: when asked, the topics the client may describe (existing, auto-created
// or unknown by name) get the client's operations on them, and v8-v10 the cluster's; topics
// refused, unknown ids and requests not asking keep INT32_MIN ("not requested").
void add_authorized_operations(const RequestContext& ctx, const protocol::MetadataRequest& req,
                               protocol::MetadataResponse& resp) {
    const int16_t version = ctx.header.api_version;
    if (version < 8)
        return;
    if (req.include_topic_authorized_operations)
        for (auto& topic : resp.topics)
            if (topic.name && !topic.name->empty() &&
                topic.error_code != ErrorCode::topic_authorization_failed &&
                topic.error_code != ErrorCode::unknown_topic_id &&
                topic.error_code != ErrorCode::invalid_request)
                topic.topic_authorized_operations =
                    authorized_operations(ctx, ResourceType::topic, *topic.name);
    if (req.include_cluster_authorized_operations && version <= 10)
        resp.cluster_authorized_operations =
            authorized_operations(ctx, ResourceType::cluster, security::kClusterResourceName);
}

}  // namespace

// Authorization (docs/acls.md), as KafkaApis.getTopicMetadata: a listing of every topic leaves
// out those the client may not DESCRIBE; a topic asked for by name or id that it may not
// DESCRIBE is TOPIC_AUTHORIZATION_FAILED (whether or not it exists, so that the answer does not
// tell); auto-creation needs CREATE on the cluster or the topic, else TOPIC_AUTHORIZATION_FAILED.
asio::awaitable<protocol::MetadataResponse> handle_metadata(RequestContext& ctx,
                                                            const protocol::MetadataRequest& req) {
    Broker& broker = ctx.broker;
    const int16_t version = ctx.header.api_version;
    protocol::MetadataResponse resp;
    protocol::MetadataResponseBroker self;
    self.node_id = broker.node_id();
    // The address of the listener this client came through, as Kafka answers.
    const auto& advertised = broker.advertised(ctx.listener);
    self.host = advertised.host;
    self.port = advertised.port;
    resp.brokers.push_back(std::move(self));
    resp.cluster_id = broker.cluster_id();
    resp.controller_id = broker.node_id();

    // v0: an empty list means every topic; v1+: null means every topic, empty means none.
    const bool all_topics = !req.topics.has_value() || (version == 0 && req.topics->empty());
    if (all_topics) {
        // Internal topics included (is_internal=true), as Kafka lists them: admin tools and
        // monitors such as Burrow look for __consumer_offsets here. Consumers leave them out of
        // pattern subscriptions themselves (exclude.internal.topics).
        for (const auto& t : broker.topics().list())
            if (may_describe(ctx, t.name))
                resp.topics.push_back(describe_topic(broker, t.name, t.partition_count));
        add_authorized_operations(ctx, req, resp);
        co_return resp;
    }

    // Lookups by topic id, as Kafka's KafkaApis answers them: v10 and v11 carry the field but
    // may not use it (a null name or a non-zero id fails the request: INVALID_REQUEST for every
    // topic listed); from v12, once any id is non-zero the request is by id only (names and zero
    // ids are ignored, nothing is auto-created), an unknown id answering UNKNOWN_TOPIC_ID with a
    // null name.
    const protocol::Uuid zero{};
    const bool by_id = std::any_of(req.topics->begin(), req.topics->end(),
                                   [&](const auto& t) { return t.topic_id != zero; });
    if (version >= 10 && version < 12) {
        const bool invalid = by_id || std::any_of(req.topics->begin(), req.topics->end(),
                                                  [](const auto& t) { return !t.name; });
        if (invalid) {
            for (const auto& requested : *req.topics) {
                auto topic = topic_error(requested.name.value_or(""), ErrorCode::invalid_request);
                topic.topic_id = requested.topic_id;
                resp.topics.push_back(std::move(topic));
            }
            add_authorized_operations(ctx, req, resp);
            co_return resp;
        }
    }
    if (by_id) {
        std::vector<protocol::Uuid> seen;  // Kafka answers each distinct id once
        for (const auto& requested : *req.topics) {
            if (requested.topic_id == zero ||
                std::find(seen.begin(), seen.end(), requested.topic_id) != seen.end())
                continue;
            seen.push_back(requested.topic_id);
            auto found = broker.topics().find_by_id(to_topic_id(requested.topic_id));
            if (found && !may_describe(ctx, found->name)) {
                protocol::MetadataResponseTopic refused;
                refused.error_code = ErrorCode::topic_authorization_failed;
                refused.name = std::nullopt;
                refused.topic_id = requested.topic_id;
                resp.topics.push_back(std::move(refused));
                continue;
            }
            if (found) {
                resp.topics.push_back(describe_topic(broker, found->name, found->partition_count));
                continue;
            }
            protocol::MetadataResponseTopic unknown;
            unknown.error_code = ErrorCode::unknown_topic_id;
            unknown.name = std::nullopt;
            unknown.topic_id = requested.topic_id;
            resp.topics.push_back(std::move(unknown));
        }
        add_authorized_operations(ctx, req, resp);
        co_return resp;
    }

    const auto& cfg = broker.config();
    // Before v4 there was no flag and brokers auto-created whenever configured to.
    const bool may_create =
        cfg.auto_create_topics_enable && (version < 4 || req.allow_auto_topic_creation);
    for (const auto& requested : *req.topics) {
        if (!requested.name.has_value()) {  // v12, neither name nor id: no topic can match
            resp.topics.push_back(topic_error("", ErrorCode::unknown_topic_id));
            continue;
        }
        const std::string& name = *requested.name;
        if (!may_describe(ctx, name)) {
            resp.topics.push_back(topic_error(name, ErrorCode::topic_authorization_failed));
            continue;
        }
        if (auto count = broker.topics().partition_count(name)) {
            resp.topics.push_back(describe_topic(broker, name, *count));
            continue;
        }
        if (TopicRegistry::invalid_topic_reason(name)) {
            resp.topics.push_back(topic_error(name, ErrorCode::invalid_topic_exception));
            continue;
        }
        if (!may_create) {
            resp.topics.push_back(topic_error(name, ErrorCode::unknown_topic_or_partition));
            continue;
        }
        if (!authorized_on_cluster(ctx, AclOperation::create) &&
            !authorized(ctx, AclOperation::create, ResourceType::topic, name)) {
            resp.topics.push_back(topic_error(name, ErrorCode::topic_authorization_failed));
            continue;
        }
        auto created = broker.topics().auto_create(name, cfg.num_partitions);
        if (created.error != ErrorCode::none) {
            // Nothing of the topic is left (the registry rolled it back). LEADER_NOT_AVAILABLE is
            // what Kafka answers for a topic whose auto-creation is under way: every client
            // treats it as retriable and asks again, and does not give the topic up as unknown
            // (librdkafka fails queued messages with UNKNOWN_TOPIC after a while). The storage
            // error itself has no field in Metadata; it is in the broker's log.
            if (!created.backing_off)  // a real attempt: at most once per back-off per topic
                LogThrottle::global().log(
                    spdlog::level::err,
                    "metadata:auto-create:" + std::to_string(static_cast<int>(created.error)),
                    "auto-creating topic '{}' with {} partition(s) for {} failed and was rolled "
                    "back (answering LEADER_NOT_AVAILABLE; not retried for {} s or more): {}",
                    name, cfg.num_partitions, ctx.peer,
                    TopicRegistry::kAutoCreateBackoffMin.count(), created.message);
            resp.topics.push_back(topic_error(name, created.error == ErrorCode::kafka_storage_error
                                                        ? ErrorCode::leader_not_available
                                                        : created.error));
            continue;
        }
        spdlog::info("auto-created topic '{}' with {} partition(s) for {}", name,
                     created.partition_count, ctx.peer);
        resp.topics.push_back(describe_topic(broker, name, created.partition_count));
    }
    add_authorized_operations(ctx, req, resp);
    co_return resp;
}

}  // namespace skiff::broker
