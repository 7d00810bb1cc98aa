// The console API's topic writes (docs/console-api.md, "Topics", the routes marked write):
// CreateTopics, DeleteTopics, CreatePartitions and IncrementalAlterConfigs as the caller, so
// Kafka's ACLs (CREATE, DELETE, ALTER, ALTER_CONFIGS), validation and errors apply unchanged.
// The body is checked here only for its shape (JSON types, numbers that fit Kafka's int32): a
// malformed body is a 400 before any request is sent, so nothing changes.
#include <limits>
#include <string>
#include <vector>

#include "broker/console/api/topic_api.h"
#include "protocol/alter_configs.h"
#include "protocol/create_partitions.h"
#include "protocol/create_topics.h"
#include "protocol/delete_topics.h"
#include "protocol/describe_configs.h"

namespace skiff::broker::console {
namespace {

using protocol::ErrorCode;
constexpr int32_t kTimeoutMs = 30000;

// A JSON integer in [1, INT32_MAX] (Kafka's partition counts), or nullopt.
std::optional<int32_t> positive_int32(const nlohmann::json& v) {
    if (v.is_number_unsigned()) {
        const auto n = v.get<uint64_t>();
        if (n >= 1 && n <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
            return static_cast<int32_t>(n);
    } else if (v.is_number_integer()) {
        const auto n = v.get<int64_t>();
        if (n >= 1 && n <= std::numeric_limits<int32_t>::max())
            return static_cast<int32_t>(n);
    }
    return std::nullopt;
}

// A config value as Kafka takes it (a string); numbers and booleans written as JSON writes them,
// since `{"retention.ms": 3600000}` is what people type. nullopt for objects and arrays.
std::optional<std::optional<std::string>> config_value(const nlohmann::json& v) {
    if (v.is_null())
        return std::optional<std::string>{};
    if (v.is_string())
        return std::optional<std::string>{v.get<std::string>()};
    if (v.is_number() || v.is_boolean())
        return std::optional<std::string>{v.dump()};
    return std::nullopt;
}

http::HttpResponse kafka_error(ErrorCode code, const std::optional<std::string>& message) {
    return kafka_error_response(static_cast<int16_t>(code), message.value_or(""));
}

http::HttpResponse create_topic(ApiCall& call) {
    auto parsed = parse_json_object(call.http.body);
    if (!parsed)
        return error_response(400, parsed.error());
    nlohmann::json& body = *parsed;
    if (!body.contains("name") || !body["name"].is_string())
        return error_response(400, "\"name\" must be a string: the topic's name");
    protocol::CreatableTopic topic;
    topic.name = body["name"].get<std::string>();
    if (body.contains("partitions") && !body["partitions"].is_null()) {
        auto n = positive_int32(body["partitions"]);
        if (!n)
            return error_response(400, "\"partitions\" must be an integer from 1 to 2147483647");
        topic.num_partitions = *n;
    }
    if (body.contains("configs") && !body["configs"].is_null()) {
        if (!body["configs"].is_object())
            return error_response(400, "\"configs\" must be an object of config names to values");
        for (const auto& item : body["configs"].items()) {
            auto value = config_value(item.value());
            if (!value)
                return error_response(400, "config \"" + item.key() + "\" must be a string");
            topic.configs.push_back({item.key(), *value});
        }
    }
    protocol::CreateTopicsRequest request;
    request.topics.push_back(std::move(topic));
    request.timeout_ms = kTimeoutMs;
    auto reply = call.kafka.call<protocol::CreateTopicsResponse>(request, 7);
    if (!reply)
        return error_response(500, reply.error());
    if (reply->message.topics.empty())
        return error_response(500, "CreateTopics answered without the topic");
    const auto& result = reply->message.topics.front();
    if (result.error_code != ErrorCode::none)
        return kafka_error(result.error_code, result.error_message);
    return topic_response(call, result.name, 201);
}

http::HttpResponse delete_topic(ApiCall& call) {
    const auto& name = call.params.at("topic");
    protocol::DeleteTopicsRequest request;
    request.topic_names.push_back(name);
    request.timeout_ms = kTimeoutMs;
    auto reply = call.kafka.call<protocol::DeleteTopicsResponse>(request, 5);
    if (!reply)
        return error_response(500, reply.error());
    for (const auto& result : reply->message.responses)
        if (result.error_code != ErrorCode::none)
            return kafka_error(result.error_code, result.error_message);
    return json_response(200, {{"deleted", name}});
}

http::HttpResponse create_partitions(ApiCall& call) {
    const auto& name = call.params.at("topic");
    auto parsed = parse_json_object(call.http.body);
    if (!parsed)
        return error_response(400, parsed.error());
    nlohmann::json& body = *parsed;
    auto count = body.contains("count") ? positive_int32(body["count"]) : std::nullopt;
    if (!count)
        return error_response(400,
                              "\"count\" must be an integer from 1 to 2147483647: the new total "
                              "number of partitions");
    protocol::CreatePartitionsRequest request;
    request.topics.push_back({name, *count, std::nullopt});
    request.timeout_ms = kTimeoutMs;
    auto reply = call.kafka.call<protocol::CreatePartitionsResponse>(request, 3);
    if (!reply)
        return error_response(500, reply.error());
    for (const auto& result : reply->message.results)
        if (result.error_code != ErrorCode::none)
            return kafka_error(result.error_code, result.error_message);
    return topic_response(call, name, 200);
}

http::HttpResponse alter_configs(ApiCall& call) {
    const auto& name = call.params.at("topic");
    auto parsed = parse_json_object(call.http.body);
    if (!parsed)
        return error_response(400, parsed.error());
    nlohmann::json& body = *parsed;
    protocol::IncrementalAlterConfigsResource resource;
    resource.resource_type = protocol::kResourceTypeTopic;
    resource.resource_name = name;
    if (body.contains("set") && !body["set"].is_null()) {
        if (!body["set"].is_object())
            return error_response(400, "\"set\" must be an object of config names to values");
        for (const auto& item : body["set"].items()) {
            auto value = config_value(item.value());
            if (!value || !*value)
                return error_response(400, "config \"" + item.key() + "\" must be a string");
            resource.configs.push_back({item.key(), protocol::kConfigOpSet, *value});
        }
    }
    if (body.contains("delete") && !body["delete"].is_null()) {
        if (!body["delete"].is_array())
            return error_response(400, "\"delete\" must be an array of config names");
        for (const auto& item : body["delete"]) {
            if (!item.is_string())
                return error_response(400, "\"delete\" must be an array of config names");
            resource.configs.push_back(
                {item.get<std::string>(), protocol::kConfigOpDelete, std::nullopt});
        }
    }
    if (resource.configs.empty())
        return error_response(400, "nothing to change: give \"set\" or \"delete\"");
    protocol::IncrementalAlterConfigsRequest request;
    request.resources.push_back(std::move(resource));
    auto reply = call.kafka.call<protocol::IncrementalAlterConfigsResponse>(request, 1);
    if (!reply)
        return error_response(500, reply.error());
    for (const auto& result : reply->message.responses)
        if (result.error_code != ErrorCode::none)
            return kafka_error(result.error_code, result.error_message);
    auto configs = describe_topic_configs(call, name);
    if (configs.error)
        return *configs.error;
    return json_response(200, {{"name", name}, {"configs", configs.configs}});
}

}  // namespace

void add_topic_write_routes(RouteTable& routes) {
    routes.push_back({"POST", "/api/topics", true, create_topic});
    routes.push_back({"DELETE", "/api/topics/{topic}", true, delete_topic});
    routes.push_back({"POST", "/api/topics/{topic}/partitions", true, create_partitions});
    routes.push_back({"PATCH", "/api/topics/{topic}/configs", true, alter_configs});
}

}  // namespace skiff::broker::console
