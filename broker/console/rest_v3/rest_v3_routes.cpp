// Confluent REST Proxy v3 (docs/console-api.md, "REST Proxy v3"): the cluster, its topics and
// record production, in REST Proxy's shapes (`kind`, `metadata.self`, `related` links, errors as
// {"error_code", "message"}), so scripts written against REST Proxy work against skiff. skiff is
// one cluster of one broker: /v3/clusters lists it under its cluster id, and any other id is 404.
// Topics are read with Metadata and records produced with Produce, as the caller.
#include <algorithm>

#include "broker/broker.h"
#include "broker/console/console_route.h"
#include "broker/console/rest_v3/rest_v3.h"
#include "protocol/metadata.h"

namespace skiff::broker::console {
namespace rest_v3 {

using nlohmann::json;
using protocol::ErrorCode;

std::string base_url(const ApiCall& call) {
    // The address the client used, so the links work from where it stands.
    const auto host = call.http.header("host");
    return "http://" + std::string(host ? *host : "localhost");
}

std::string cluster_url(const ApiCall& call) {
    return base_url(call) + "/v3/clusters/" + call.broker.cluster_id();
}

std::optional<http::HttpResponse> check_cluster(const ApiCall& call) {
    const auto& id = call.params.at("cluster_id");
    if (id == call.broker.cluster_id())
        return std::nullopt;
    return error_response(404, "Cluster " + id + " cannot be found.", 404);
}

Expected<protocol::MetadataResponse, http::HttpResponse> topic_metadata(
    ApiCall& call, const std::optional<std::string>& topic) {
    protocol::MetadataRequest req;
    if (topic) {
        req.topics.emplace();
        protocol::MetadataRequestTopic t;
        t.name = *topic;
        req.topics->push_back(std::move(t));
    } else {
        req.topics = std::nullopt;
    }
    req.allow_auto_topic_creation = false;  // listing or producing never creates a topic
    auto reply = call.kafka.call<protocol::MetadataResponse>(req, 12);
    if (!reply)
        return unexpected(error_response(500, reply.error(), 500));
    return std::move(reply->message);
}

namespace {

json cluster_json(const ApiCall& call) {
    const std::string self = cluster_url(call);
    const auto related = [&](const std::string& path) { return json{{"related", self + path}}; };
    return {{"kind", "KafkaCluster"},
            {"metadata",
             {{"self", self}, {"resource_name", "crn:///kafka=" + call.broker.cluster_id()}}},
            {"cluster_id", call.broker.cluster_id()},
            {"controller", related("/brokers/" + std::to_string(call.broker.node_id()))},
            {"acls", related("/acls")},
            {"brokers", related("/brokers")},
            {"broker_configs", related("/broker-configs")},
            {"consumer_groups", related("/consumer-groups")},
            {"topics", related("/topics")},
            {"partition_reassignments", related("/topics/-/partitions/-/reassignment")}};
}

json topic_json(const ApiCall& call, const protocol::MetadataResponseTopic& t) {
    const std::string name = t.name.value_or("");
    const std::string self = cluster_url(call) + "/topics/" + name;
    return {{"kind", "KafkaTopic"},
            {"metadata",
             {{"self", self},
              {"resource_name", "crn:///kafka=" + call.broker.cluster_id() + "/topic=" + name}}},
            {"cluster_id", call.broker.cluster_id()},
            {"topic_name", name},
            {"is_internal", t.is_internal},
            {"replication_factor", 1},  // one broker: one replica
            {"partitions_count", t.partitions.size()},
            {"partitions", {{"related", self + "/partitions"}}},
            {"configs", {{"related", self + "/configs"}}},
            {"partition_reassignments", {{"related", self + "/partitions/-/reassignment"}}},
            {"authorized_operations", json::array()}};
}

http::HttpResponse list_clusters(ApiCall& call) {
    return json_response(
        200, json{{"kind", "KafkaClusterList"},
                  {"metadata", {{"self", base_url(call) + "/v3/clusters"}, {"next", nullptr}}},
                  {"data", json::array({cluster_json(call)})}});
}

http::HttpResponse get_cluster(ApiCall& call) {
    if (auto refused = check_cluster(call))
        return std::move(*refused);
    return json_response(200, cluster_json(call));
}

http::HttpResponse list_topics(ApiCall& call) {
    if (auto refused = check_cluster(call))
        return std::move(*refused);
    auto metadata = topic_metadata(call, std::nullopt);
    if (!metadata)
        return std::move(metadata.error());
    auto topics = metadata->topics;
    std::sort(topics.begin(), topics.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    json data = json::array();
    for (const auto& t : topics) {
        // Topics the caller may not DESCRIBE are left out, as Metadata leaves them out.
        if (t.error_code == ErrorCode::none && t.name)
            data.push_back(topic_json(call, t));
    }
    return json_response(
        200, json{{"kind", "KafkaTopicList"},
                  {"metadata", {{"self", cluster_url(call) + "/topics"}, {"next", nullptr}}},
                  {"data", std::move(data)}});
}

http::HttpResponse get_topic(ApiCall& call) {
    if (auto refused = check_cluster(call))
        return std::move(*refused);
    const auto& name = call.params.at("topic");
    auto metadata = topic_metadata(call, name);
    if (!metadata)
        return std::move(metadata.error());
    if (metadata->topics.size() != 1)
        return error_response(500, "Metadata answered no topic", 500);
    const auto& t = metadata->topics.front();
    if (t.error_code == ErrorCode::topic_authorization_failed)
        return error_response(403, "Not authorized to access topics: [" + name + "]", 40301);
    if (t.error_code != ErrorCode::none)
        return error_response(404, "This server does not host this topic-partition.", 404);
    return json_response(200, topic_json(call, t));
}

}  // namespace
}  // namespace rest_v3

void add_rest_v3_routes(RouteTable& routes) {
    routes.push_back({"GET", "/v3/clusters", false, rest_v3::list_clusters});
    routes.push_back({"GET", "/v3/clusters/{cluster_id}", false, rest_v3::get_cluster});
    routes.push_back({"GET", "/v3/clusters/{cluster_id}/topics", false, rest_v3::list_topics});
    routes.push_back(
        {"GET", "/v3/clusters/{cluster_id}/topics/{topic}", false, rest_v3::get_topic});
    routes.push_back({"POST", "/v3/clusters/{cluster_id}/topics/{topic}/records", true,
                      rest_v3::produce_records});
}

}  // namespace skiff::broker::console
