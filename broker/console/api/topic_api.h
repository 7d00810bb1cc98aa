// What the console API's topic routes share (topic_routes.cpp, topic_write_routes.cpp,
// segment_routes.cpp): one topic as GET /api/topics/{topic} answers it, which the write routes
// also answer with, and small parsers for the routes' inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "broker/console/console_route.h"

namespace skiff::broker::console {

// GET /api/topics/{topic}'s answer with `status` (200, or 201 after a creation), or the Kafka
// error that kept the caller from seeing the topic.
http::HttpResponse topic_response(ApiCall& call, const std::string& topic, int status);

// The topic's configs (DescribeConfigs with sources) as the API lists them, or the Kafka error.
struct TopicConfigs {
    nlohmann::json configs = nlohmann::json::array();
    std::optional<http::HttpResponse> error;
};
TopicConfigs describe_topic_configs(ApiCall& call, const std::string& topic);

// A decimal int32 in [min, max] (a path segment or query value), nullopt for anything else:
// signs other than a leading '-', spaces, overflow.
std::optional<int32_t> parse_int32(std::string_view text, int32_t min, int32_t max);

void add_topic_write_routes(RouteTable& routes);  // create, delete, partitions, configs
void add_segment_routes(RouteTable& routes);      // a partition's segments and indexes

}  // namespace skiff::broker::console
