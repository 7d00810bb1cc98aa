// The Registry facade and its route table: which method and path go to which route, and the
// permission each asks before it runs (the table in registry.h documents the same mapping).
#include "broker/schema_registry/registry.h"

#include <array>
#include <exception>

#include "broker/schema_registry/registry_core.h"
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {
namespace {

// Who is asked before a route runs. kInHandler routes (listings, lookups by id) ask in the
// handler, per subject.
enum class Guard { kNone, kSubject, kRegistry, kInHandler };

struct RouteSpec {
    std::string_view method;
    std::string_view path;  // segments; {subject}, {version} and {id} capture one segment each
    RouteHandler handler;
    std::string_view operation;
    Guard guard;
};

RestResponse get_root(const RouteCall&) {
    return json_response(Json::object());
}

RestResponse get_cluster_id(const RouteCall& call) {
    const RegistrySettings& settings = call.core.settings();
    Json clusters;
    clusters["kafka-cluster"] = settings.kafka_cluster_id;
    clusters["schema-registry-cluster"] = settings.schema_registry_cluster_id;
    Json scope;
    scope["path"] = Json::array();
    scope["clusters"] = std::move(clusters);
    Json body;
    body["id"] = "";
    body["scope"] = std::move(scope);
    return json_response(body);
}

constexpr std::array kRouteSpecs{
    RouteSpec{"GET", "", get_root, "", Guard::kNone},
    RouteSpec{"POST", "", get_root, "", Guard::kNone},
    RouteSpec{"GET", "subjects", list_subjects, "DESCRIBE", Guard::kInHandler},
    RouteSpec{"GET", "subjects/{subject}/versions", list_versions, "DESCRIBE", Guard::kSubject},
    RouteSpec{"POST", "subjects/{subject}/versions", register_schema, "WRITE", Guard::kSubject},
    RouteSpec{"GET", "subjects/{subject}/versions/{version}", get_version, "READ", Guard::kSubject},
    RouteSpec{"GET", "subjects/{subject}/versions/{version}/schema", get_version_schema_text,
              "READ", Guard::kSubject},
    RouteSpec{"GET", "subjects/{subject}/versions/{version}/referencedby", get_referenced_by,
              "DESCRIBE", Guard::kSubject},
    RouteSpec{"DELETE", "subjects/{subject}/versions/{version}", delete_version, "DELETE",
              Guard::kSubject},
    RouteSpec{"POST", "subjects/{subject}", look_up_schema, "READ", Guard::kSubject},
    RouteSpec{"DELETE", "subjects/{subject}", delete_subject, "DELETE", Guard::kSubject},
    RouteSpec{"GET", "schemas", list_schemas, "READ", Guard::kInHandler},
    RouteSpec{"GET", "schemas/types", get_schema_types, "", Guard::kNone},
    RouteSpec{"GET", "schemas/ids/{id}", get_schema_by_id, "READ", Guard::kInHandler},
    RouteSpec{"GET", "schemas/ids/{id}/schema", get_schema_text_by_id, "READ", Guard::kInHandler},
    RouteSpec{"GET", "schemas/ids/{id}/subjects", get_subjects_by_id, "READ", Guard::kInHandler},
    RouteSpec{"GET", "schemas/ids/{id}/versions", get_versions_by_id, "READ", Guard::kInHandler},
    RouteSpec{"GET", "config", get_global_config, "DESCRIBE_CONFIGS", Guard::kRegistry},
    RouteSpec{"PUT", "config", put_global_config, "ALTER_CONFIGS", Guard::kRegistry},
    RouteSpec{"DELETE", "config", delete_global_config, "ALTER_CONFIGS", Guard::kRegistry},
    RouteSpec{"GET", "config/{subject}", get_subject_config, "DESCRIBE_CONFIGS", Guard::kSubject},
    RouteSpec{"PUT", "config/{subject}", put_subject_config, "ALTER_CONFIGS", Guard::kSubject},
    RouteSpec{"DELETE", "config/{subject}", delete_subject_config, "ALTER_CONFIGS",
              Guard::kSubject},
    RouteSpec{"GET", "mode", get_global_mode, "DESCRIBE_CONFIGS", Guard::kRegistry},
    RouteSpec{"PUT", "mode", put_global_mode, "ALTER_CONFIGS", Guard::kRegistry},
    RouteSpec{"DELETE", "mode", delete_global_mode, "ALTER_CONFIGS", Guard::kRegistry},
    RouteSpec{"GET", "mode/{subject}", get_subject_mode, "DESCRIBE_CONFIGS", Guard::kSubject},
    RouteSpec{"PUT", "mode/{subject}", put_subject_mode, "ALTER_CONFIGS", Guard::kSubject},
    RouteSpec{"DELETE", "mode/{subject}", delete_subject_mode, "ALTER_CONFIGS", Guard::kSubject},
    RouteSpec{"POST", "compatibility/subjects/{subject}/versions/{version}", check_against_version,
              "READ", Guard::kSubject},
    RouteSpec{"POST", "compatibility/subjects/{subject}/versions", check_against_all_versions,
              "READ", Guard::kSubject},
    RouteSpec{"GET", "v1/metadata/id", get_cluster_id, "", Guard::kNone},
};

// The table's paths split once, at first use.
struct CompiledRoute {
    const RouteSpec* spec;
    std::vector<std::string_view> segments;
};

const std::vector<CompiledRoute>& compiled_routes() {
    static const std::vector<CompiledRoute> routes = [] {
        std::vector<CompiledRoute> out;
        for (const RouteSpec& spec : kRouteSpecs) {
            CompiledRoute route{&spec, {}};
            std::string_view rest = spec.path;
            while (!rest.empty()) {
                const size_t slash = rest.find('/');
                route.segments.push_back(rest.substr(0, slash));
                rest =
                    slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
            }
            out.push_back(std::move(route));
        }
        return out;
    }();
    return routes;
}

// Whether the decoded segments match the route; its parameters go into `call`.
bool match_route(const CompiledRoute& route, const std::vector<std::string>& segments,
                 RouteCall& call) {
    if (route.segments.size() != segments.size())
        return false;
    for (size_t i = 0; i < segments.size(); ++i) {
        const std::string_view pattern = route.segments[i];
        if (pattern == "{subject}")
            call.subject = segments[i];
        else if (pattern == "{version}")
            call.version = segments[i];
        else if (pattern == "{id}")
            call.id = segments[i];
        else if (pattern != segments[i])
            return false;
    }
    return true;
}

}  // namespace

bool RouteCall::allowed(std::string_view operation, std::string_view resource_type,
                        std::string_view name) const {
    const auto& authorize = core.settings().authorize;
    return !authorize || authorize(request.principal, operation, resource_type, name);
}

Registry::Registry(SchemaLog& log, RegistrySettings settings)
    : log_(log), core_(std::make_unique<RegistryCore>(log, std::move(settings))) {}

void Registry::clear() {
    core_ = std::make_unique<RegistryCore>(log_, core_->settings());
}

Registry::~Registry() = default;

RestResponse Registry::handle(const RestRequest& request) {
    std::optional<std::vector<std::string>> segments = split_path(request.path);
    if (!segments)
        return errors::route_not_found().to_response();
    bool path_matched = false;
    for (const CompiledRoute& route : compiled_routes()) {
        RouteCall call{*core_, request, {}, {}, {}};
        if (!match_route(route, *segments, call))
            continue;
        path_matched = true;
        if (route.spec->method != request.method)
            continue;
        const RouteSpec& spec = *route.spec;
        if (spec.guard == Guard::kSubject && !call.allowed(spec.operation, "SUBJECT", call.subject))
            return errors::unauthorized(spec.operation, "SUBJECT", call.subject).to_response();
        if (spec.guard == Guard::kRegistry && !call.allowed(spec.operation, "REGISTRY", ""))
            return errors::unauthorized(spec.operation, "REGISTRY", "").to_response();
        try {
            return spec.handler(call);
        } catch (const std::exception& e) {
            // A broken invariant or memory exhaustion, never a client's input: answered the
            // way Confluent's generic mapper answers, and nothing was applied.
            return RestError{ErrorCode::kInternalError, e.what()}.to_response();
        }
    }
    return (path_matched ? errors::method_not_allowed() : errors::route_not_found()).to_response();
}

void Registry::replay(std::string_view key, std::optional<std::string_view> value) {
    core_->replay(key, value);
}

ReplayStats Registry::replay_stats() const {
    return core_->replay_stats();
}

bool Registry::subject_has_schema_id(std::string_view subject, int32_t id) const {
    auto lock = core_->read_lock();
    return core_->state().has_live_version_with_id(subject, id);
}

}  // namespace skiff::schema_registry
