// The registry's routes: one function per REST call, a typed call in and a response out, grouped
// by resource as Confluent groups them (subjects, schemas, config, mode, compatibility). The
// table that maps methods and paths to them, with the permission each asks, is in registry.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/schema_registry/registry_core.h"
#include "broker/schema_registry/rest.h"
#include "broker/schema_registry/rest_json.h"

namespace skiff::schema_registry {

// A call matched to a route: the path parameters it named, decoded.
struct RouteCall {
    RegistryCore& core;
    const RestRequest& request;
    std::string subject;  // {subject}
    std::string version;  // {version}, as written
    std::string id;       // {id}, as written

    // Whether the caller may do `operation` on a resource; true when no authorizer is set.
    bool allowed(std::string_view operation, std::string_view resource_type,
                 std::string_view name) const;
};

using RouteHandler = RestResponse (*)(const RouteCall& call);

// Confluent's offset and limit on listings: skip `offset` items, then return at most `limit`;
// a limit that is not positive, or over the route's maximum, means the maximum.
struct Paging {
    int32_t offset = 0;
    int32_t limit = -1;
};
// nullopt when offset or limit is not an integer: Jersey then matches no route (404).
std::optional<Paging> read_paging(const RestRequest& request);

template <class T>
std::vector<T> apply_paging(std::vector<T> items, const Paging& paging,
                            size_t max_limit = static_cast<size_t>(-1)) {
    const size_t skip = paging.offset > 0 ? static_cast<size_t>(paging.offset) : 0;
    const size_t limit = paging.limit > 0 && static_cast<size_t>(paging.limit) <= max_limit
                             ? static_cast<size_t>(paging.limit)
                             : max_limit;
    if (skip >= items.size())
        return {};
    items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(skip));
    if (items.size() > limit)
        items.resize(limit);
    return items;
}

// Confluent's schema.search.max.limit: GET /schemas and referencedby answer at most this many.
constexpr size_t kMaxSchemasListed = 1000;

// The version a {subject}/{version} path names, as GET /subjects/{s}/versions/{v} finds it:
// "latest" is the newest live version; a soft-deleted one only with `include_deleted`. Errors:
// 42202 (bad version), 40401 (no such subject), 40402 (no such version). Under a lock.
Expected<const SchemaVersion*, RestError> find_requested_version(const RouteCall& call,
                                                                 bool include_deleted);

// Why `candidate` may not follow the subject's live versions (`previous`, oldest first) at the
// subject's compatibility level: Confluent's message list, empty when it may. An error when a
// stored version the level looks at no longer parses. Under a lock.
Expected<std::vector<std::string>, RestError> compatibility_problems(
    const RouteCall& call, const ResolvedSchema& candidate,
    const std::vector<const SchemaVersion*>& previous);

// The live versions of the call's subject, oldest first. Under a lock.
std::vector<const SchemaVersion*> live_versions(const RouteCall& call);

// The JSON of one version as GET /subjects/{s}/versions/{v} answers (Confluent's Schema):
// subject, version, id, schemaType (left out for AVRO), references (left out when none), schema.
Json version_json(const SchemaVersion& v);
Json references_json(const std::vector<SchemaReference>& references);

// subject_routes.cpp
RestResponse list_subjects(const RouteCall& call);
RestResponse list_versions(const RouteCall& call);
RestResponse get_version(const RouteCall& call);
RestResponse get_version_schema_text(const RouteCall& call);
RestResponse get_referenced_by(const RouteCall& call);
RestResponse look_up_schema(const RouteCall& call);
// delete_routes.cpp
RestResponse delete_subject(const RouteCall& call);
RestResponse delete_version(const RouteCall& call);
// register_route.cpp
RestResponse register_schema(const RouteCall& call);
// schema_routes.cpp
RestResponse get_schema_by_id(const RouteCall& call);
RestResponse get_schema_text_by_id(const RouteCall& call);
RestResponse get_subjects_by_id(const RouteCall& call);
RestResponse get_versions_by_id(const RouteCall& call);
RestResponse get_schema_types(const RouteCall& call);
RestResponse list_schemas(const RouteCall& call);
// config_routes.cpp
RestResponse get_global_config(const RouteCall& call);
RestResponse put_global_config(const RouteCall& call);
RestResponse delete_global_config(const RouteCall& call);
RestResponse get_subject_config(const RouteCall& call);
RestResponse put_subject_config(const RouteCall& call);
RestResponse delete_subject_config(const RouteCall& call);
// mode_routes.cpp
RestResponse get_global_mode(const RouteCall& call);
RestResponse put_global_mode(const RouteCall& call);
RestResponse delete_global_mode(const RouteCall& call);
RestResponse get_subject_mode(const RouteCall& call);
RestResponse put_subject_mode(const RouteCall& call);
RestResponse delete_subject_mode(const RouteCall& call);
// compatibility_routes.cpp
RestResponse check_against_version(const RouteCall& call);
RestResponse check_against_all_versions(const RouteCall& call);

}  // namespace skiff::schema_registry
