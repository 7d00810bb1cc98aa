// The console API's schema registry (docs/console-api.md, "Schema registry"): the registry's own
// REST API read through as the console's caller (GET only, so its ACLs and its answers are
// exactly the registry listener's), and a line diff between two versions of a subject.
#include <charconv>

#include "broker/broker.h"
#include "broker/console/console_route.h"
#include "broker/console/line_diff.h"
#include "broker/console/schema_decoder.h"
#include "broker/schema_registry/registry.h"
#include "broker/schema_registry/service/registry_acls.h"

namespace skiff::broker::console {
namespace schema_routes_impl {

constexpr std::string_view kPrefix = "/api/schema-registry";
// A diff compares schemas of at most this size, and a table of at most this many line pairs.
constexpr size_t kMaxDiffSchemaBytes = size_t{256} << 10;
constexpr size_t kMaxDiffLinePairs = size_t{4} << 20;

http::HttpResponse registry_off() {
    return error_response(404, "the schema registry is off");
}

schema_registry::RestResponse registry_get(ApiCall& call, schema_registry::Registry& registry,
                                           std::string path,
                                           std::multimap<std::string, std::string> query = {}) {
    schema_registry::RestRequest request;
    request.method = "GET";
    request.path = std::move(path);
    request.query = std::move(query);
    request.principal = call.kafka.caller().principal;
    // The registry's ACL hook reads the client's address from here, as on its own listener.
    schema_registry_service::RegistryCaller caller(call.kafka.caller().host);
    return registry.handle(request);
}

http::HttpResponse registry_answer(schema_registry::RestResponse answer) {
    http::HttpResponse r;
    r.status = answer.status;
    r.content_type = "application/json";
    r.body = std::move(answer.body);
    return r;
}

// GET /api/schema-registry/<the registry's path>: the path after the prefix, still
// percent-encoded, is the registry's own.
http::HttpResponse read_through(ApiCall& call) {
    auto* registry = call.broker.schema_registry();
    if (!registry)
        return registry_off();
    const std::string path = call.http.path.substr(kPrefix.size());
    return registry_answer(registry_get(call, *registry, path, call.query));
}

// A schema's text as the diff shows it: JSON (Avro and JSON Schema) indented, in the order its
// author wrote the keys; anything else (Protobuf) as registered.
std::string pretty(const std::string& text) {
    auto json = nlohmann::ordered_json::parse(text, nullptr, false);
    if (json.is_discarded())
        return text;
    return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

http::HttpResponse diff_versions(ApiCall& call) {
    auto* registry = call.broker.schema_registry();
    if (!registry)
        return registry_off();
    const std::string subject = call.params.at("subject");
    const std::string from = call.query_value("from");
    const std::string to = call.query_value("to", "latest");
    for (const auto* v : {&from, &to}) {
        int parsed = 0;
        const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), parsed);
        if (*v != "latest" &&
            (v->empty() || ec != std::errc() || ptr != v->data() + v->size() || parsed < 1))
            return error_response(400, "from and to must be version numbers or latest");
    }
    struct Version {
        int number = 0;
        std::string type;
        std::string text;
    };
    std::vector<Version> versions;
    for (const auto* v : {&from, &to}) {
        auto answer = registry_get(call, *registry,
                                   "/subjects/" + encode_path_segment(subject) + "/versions/" + *v);
        if (answer.status != 200)
            return registry_answer(std::move(answer));
        auto json = nlohmann::json::parse(answer.body, nullptr, false);
        if (json.is_discarded() || !json.is_object() || !json["schema"].is_string())
            return error_response(500, "the registry's answer has no schema");
        Version version;
        version.number = json.value("version", 0);
        version.type = json.value("schemaType", std::string("AVRO"));
        version.text = json["schema"].get<std::string>();
        if (version.text.size() > kMaxDiffSchemaBytes)
            return error_response(422, "schemas over 256 KiB are not compared");
        versions.push_back(std::move(version));
    }
    const auto before = split_lines(pretty(versions[0].text));
    const auto after = split_lines(pretty(versions[1].text));
    if ((before.size() + 1) * (after.size() + 1) > kMaxDiffLinePairs)
        return error_response(422, "the schemas have too many lines to compare");
    nlohmann::json lines = nlohmann::json::array();
    for (const auto& line : line_diff(before, after))
        lines.push_back({{"op", std::string(1, line.op)}, {"text", line.text}});
    return json_response(200, {{"subject", subject},
                               {"from", versions[0].number},
                               {"to", versions[1].number},
                               {"type_from", versions[0].type},
                               {"type_to", versions[1].type},
                               {"lines", std::move(lines)}});
}

}  // namespace schema_routes_impl

void add_schema_routes(RouteTable& routes) {
    using namespace schema_routes_impl;  // this file's own helpers
    // The registry's GET routes, each a pattern of its own (patterns match whole segments).
    for (const char* path :
         {"/subjects", "/subjects/{subject}/versions", "/subjects/{subject}/versions/{version}",
          "/subjects/{subject}/versions/{version}/schema",
          "/subjects/{subject}/versions/{version}/referencedby", "/schemas", "/schemas/types",
          "/schemas/ids/{id}", "/schemas/ids/{id}/schema", "/schemas/ids/{id}/subjects",
          "/schemas/ids/{id}/versions", "/config", "/config/{subject}", "/mode", "/mode/{subject}"})
        routes.push_back({"GET", std::string(kPrefix) + path, false, read_through});
    routes.push_back(
        {"GET", std::string(kPrefix) + "/subjects/{subject}/diff", false, diff_versions});
}

}  // namespace skiff::broker::console
