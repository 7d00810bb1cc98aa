#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/log_throttle.h"
#include "broker/security/authorize.h"
#include "broker/topics/replica_assignment.h"
#include "broker/topics/topic_config.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

// v5+: every config of the new topic with its source, as DescribeConfigs would show it.
std::vector<protocol::CreatableTopicConfigs> topic_configs(const Broker& broker,
                                                           const TopicOverrides& overrides) {
    using protocol::ConfigSource;
    std::vector<protocol::CreatableTopicConfigs> out;
    out.reserve(topic_config_keys().size());
    for (const auto& key : topic_config_keys()) {
        protocol::CreatableTopicConfigs c;
        c.name = std::string(key.name);
        ConfigSource source;
        if (auto it = overrides.find(c.name); it != overrides.end()) {
            c.value = it->second;
            source = ConfigSource::dynamic_topic_config;
        } else {
            auto fallback = broker_default(key, broker.config());
            c.value = std::move(fallback.value);
            source = fallback.set_by_operator ? ConfigSource::static_broker_config
                                              : ConfigSource::default_config;
        }
        c.config_source = static_cast<int8_t>(source);
        out.push_back(std::move(c));
    }
    return out;
}

protocol::CreatableTopicResult create_one(RequestContext& ctx, const protocol::CreatableTopic& t,
                                          bool validate_only) {
    protocol::CreatableTopicResult r;
    r.name = t.name;
    auto fail = [&](ErrorCode e, std::string message) {
        r.error_code = e;
        r.error_message = std::move(message);
        r.configs.emplace();  // v5+: Kafka's default, an empty list
        return r;
    };
    // CREATE on the cluster or on the topic (docs/acls.md), else TOPIC_AUTHORIZATION_FAILED with
    // Kafka's message.
    if (!authorized_on_cluster(ctx, AclOperation::create) &&
        !authorized(ctx, AclOperation::create, ResourceType::topic, t.name))
        return fail(ErrorCode::topic_authorization_failed, "Authorization failed.");
    int32_t partitions =
        t.num_partitions == -1 ? ctx.broker.config().num_partitions : t.num_partitions;
    if (!t.assignments.empty()) {
        // Kafka: an assignment replaces the partition count and replication factor.
        if (t.num_partitions != -1 || t.replication_factor != -1)
            return fail(ErrorCode::invalid_request,
                        "both num_partitions or replication_factor and a replica assignment were "
                        "set; only one of them may be");
        std::vector<const std::vector<int32_t>*> lists(t.assignments.size(), nullptr);
        for (const auto& a : t.assignments) {
            if (a.partition_index < 0 || static_cast<size_t>(a.partition_index) >= lists.size() ||
                lists[static_cast<size_t>(a.partition_index)] != nullptr)
                return fail(ErrorCode::invalid_replica_assignment,
                            "the assigned partitions must be the consecutive numbers from 0");
            lists[static_cast<size_t>(a.partition_index)] = &a.broker_ids;
        }
        if (auto why = invalid_replica_assignment(lists, ctx.broker.node_id()))
            return fail(ErrorCode::invalid_replica_assignment, std::move(*why));
        partitions = static_cast<int32_t>(t.assignments.size());
    } else if (t.replication_factor != 1 && t.replication_factor != -1) {
        return fail(ErrorCode::invalid_replication_factor,
                    "replication factor must be 1 or -1: skiff is a single broker");
    }
    TopicOverrides overrides;
    for (const auto& c : t.configs) {
        if (!c.value)
            return fail(ErrorCode::invalid_config, "config " + c.name + " has a null value");
        overrides[c.name] = *c.value;
    }
    auto created = ctx.broker.topics().create(t.name, partitions, overrides, validate_only);
    if (created.error == ErrorCode::kafka_storage_error)  // rolled back (topic_registry.h)
        LogThrottle::global().log(spdlog::level::err, "create-topics:storage",
                                  "creating topic '{}' with {} partition(s) for {} failed and was "
                                  "rolled back: {}",
                                  t.name, partitions, ctx.peer, created.message);
    if (created.error != ErrorCode::none)
        return fail(created.error, created.message);
    if (!validate_only)
        spdlog::info("created topic '{}' with {} partition(s) and {} override(s) for {}", t.name,
                     partitions, overrides.size(), ctx.peer);
    r.num_partitions = partitions;
    r.replication_factor = 1;
    // The configs (v5+) only for a client that may DESCRIBE_CONFIGS the topic, as in Kafka.
    if (ctx.header.api_version >= 5) {
        if (authorized(ctx, AclOperation::describe_configs, ResourceType::topic, t.name)) {
            r.configs = topic_configs(ctx.broker, overrides);
        } else {
            r.topic_config_error_code = static_cast<int16_t>(ErrorCode::topic_authorization_failed);
            r.configs.emplace();
        }
    }
    if (!validate_only)
        if (auto id = ctx.broker.topics().topic_id(t.name))
            r.topic_id = to_uuid(*id);
    return r;
}

}  // namespace

asio::awaitable<protocol::CreateTopicsResponse> handle_create_topics(
    RequestContext& ctx, const protocol::CreateTopicsRequest& req) {
    protocol::CreateTopicsResponse resp;
    resp.topics.reserve(req.topics.size());
    for (const auto& t : req.topics) {
        // Kafka refuses a name listed twice in one request for every occurrence.
        size_t occurrences = 0;
        for (const auto& other : req.topics)
            occurrences += other.name == t.name;
        if (occurrences > 1) {
            protocol::CreatableTopicResult r;
            r.name = t.name;
            r.error_code = ErrorCode::invalid_request;
            r.error_message = "topic '" + t.name + "' is listed more than once";
            r.configs.emplace();
            resp.topics.push_back(std::move(r));
            continue;
        }
        resp.topics.push_back(create_one(ctx, t, req.validate_only));
    }
    co_return resp;
}

}  // namespace skiff::broker
