// One route of the console's HTTP API (docs/console-api.md): the JSON API under /api/ that the
// console's pages call (and curl users and scripts may), and Confluent REST Proxy v3's routes
// under /v3/. A route is a method, a path pattern whose {name} segments are captured, whether
// it changes anything (refused while console.read.only is true), and its handler.
//
// Handlers run on one of the console's HTTP threads and may block; they reach the broker
// through `kafka` (the Kafka request the same action would be, authorized for the caller) and
// read what no Kafka API shows (segments and their indexes) from `broker` directly, after
// checking the caller may DESCRIBE the topic.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker/console/kafka_call.h"
#include "broker/http/http_message.h"

namespace skiff::broker {
class Broker;
}

namespace skiff::broker::console {

class RateSampler;

struct ConsoleSettings {
    bool read_only = true;
    size_t max_request_bytes = size_t{1} << 20;
    // Records of one page of the messages view, at most, and bytes of the records read for it.
    size_t max_records_per_page = 500;
    size_t max_record_bytes_per_page = size_t{4} << 20;
    size_t threads = 2;
    // The overview's rates (rate_sampler.h): one sample per interval, the last window kept.
    std::chrono::milliseconds rate_interval{5000};
    std::chrono::milliseconds rate_window{300000};
};

struct ApiCall {
    const http::HttpRequest& http;
    std::map<std::string, std::string> params;      // the pattern's {name} segments, decoded
    std::multimap<std::string, std::string> query;  // decoded names and values
    Broker& broker;
    KafkaCall& kafka;
    const ConsoleSettings& settings;
    // The overview's produce and fetch rates, and when the console (so the broker) started.
    const RateSampler* rates = nullptr;
    int64_t started_at_ms = 0;

    // The query parameter `name`, or `fallback` when absent.
    std::string query_value(std::string_view name, std::string_view fallback = {}) const;
};

using RouteHandler = std::function<http::HttpResponse(ApiCall&)>;

struct Route {
    std::string method;   // GET, POST, PUT, PATCH, DELETE
    std::string pattern;  // "/api/topics/{topic}/partitions/{partition}/records"
    bool writes = false;  // changes state: refused when read-only, checked against cross-site use
    RouteHandler handler;
};

using RouteTable = std::vector<Route>;

// JSON answers, in Confluent's error shape for errors: {"error_code": ..., "message": ...}.
http::HttpResponse json_response(int status, const nlohmann::json& body);
// `error_code` defaults to the status, as REST Proxy v3 does; Confluent's five-digit codes
// (40403, 42201...) where it uses them.
http::HttpResponse error_response(int status, std::string_view message, int error_code = 0);
// A Kafka error code as the console's API answers it: its HTTP status (404 for an unknown topic
// or group, 403 for an authorization failure, 400 for an invalid request, 409 for an existing
// topic, 500 otherwise) and Kafka's name and message.
http::HttpResponse kafka_error_response(int16_t kafka_error, std::string_view message = {});
// A request body that must be a JSON object (every POST, PUT and PATCH of the API): the object,
// or what is wrong with it, which the route answers as a 400.
Expected<nlohmann::json, std::string> parse_json_object(std::string_view body);

// Each file of routes adds its own (broker/console/api/, broker/console/rest_v3/).
void add_cluster_routes(RouteTable& routes);         // overview, metrics, ACLs, users
void add_security_write_routes(RouteTable& routes);  // add or remove ACLs and SCRAM users
void add_topic_routes(RouteTable& routes);           // topics, partitions, configs, segments
void add_record_routes(RouteTable& routes);          // browse and produce records
void add_group_routes(RouteTable& routes);           // groups of every type, offsets, lag, reset
void add_schema_routes(RouteTable& routes);          // the schema registry, read through
void add_rest_v3_routes(RouteTable& routes);         // Confluent REST Proxy v3

}  // namespace skiff::broker::console
