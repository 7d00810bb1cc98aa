// The /schemas routes (Confluent's SchemasResource): a schema by its global id, which every
// deserializer calls, where an id is registered, the schema types, and the listing of schemas.
// A schema stays readable by id while any version holding it exists, soft-deleted or not.
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {
namespace {

// READ on the registry, or on any subject the id is registered under.
bool may_read_schema(const RouteCall& call, const SchemaById& holder) {
    if (!call.core.settings().authorize || call.allowed("READ", "REGISTRY", ""))
        return true;
    for (const auto& [subject, versions] : holder.uses) {
        if (call.allowed("READ", "SUBJECT", subject))
            return true;
    }
    return false;
}

// The id a path names, and the schema it names; the error otherwise. `with_id_in_message`:
// Confluent says "Schema 7 not found" for the schema itself, "Schema not found" for the rest.
Expected<const SchemaById*, RestError> find_schema_by_id(const RouteCall& call,
                                                         bool with_id_in_message) {
    // A path parameter that is not an integer: Jersey matches no route.
    std::optional<int32_t> id = parse_java_int(call.id);
    if (!id)
        return unexpected(errors::route_not_found());
    const SchemaById* holder = call.core.state().schema_by_id(*id);
    if (holder == nullptr)
        return unexpected(with_id_in_message ? errors::schema_not_found(*id)
                                             : errors::schema_not_found());
    if (!may_read_schema(call, *holder))
        return unexpected(errors::unauthorized("READ", "REGISTRY", ""));
    return holder;
}

// The schema text to serve: in another representation when ?format= asks for one the type has.
Expected<std::string, RestError> schema_text(const RouteCall& call, const SchemaById& holder) {
    const std::string_view format = query_value(call.request, "format").value_or("");
    if (format.empty())
        return holder.schema;
    SchemaVersion v;
    v.id = *parse_java_int(call.id);
    v.schema_type = holder.schema_type;
    v.references = holder.references;
    v.schema = holder.schema;
    auto parsed = call.core.parsed_version(v);
    if (!parsed)
        return unexpected(parsed.error());
    return (*parsed)->formatted(format).value_or(holder.schema);
}

// The subject versions holding an id, live ones only unless ?deleted=true, that the caller may
// see.
std::vector<std::pair<std::string, int>> uses_of(const RouteCall& call, const SchemaById& holder) {
    const bool include_deleted = query_flag(call.request, "deleted");
    std::vector<std::pair<std::string, int>> uses;
    for (const auto& [subject, versions] : holder.uses) {
        if (!call.allowed("DESCRIBE", "SUBJECT", subject))
            continue;
        for (int number : versions) {
            const SchemaVersion* v = call.core.state().find_version(subject, number);
            if (v != nullptr && (!v->deleted || include_deleted))
                uses.emplace_back(subject, number);
        }
    }
    return uses;
}

}  // namespace

RestResponse get_schema_by_id(const RouteCall& call) {
    auto lock = call.core.read_lock();
    auto holder = find_schema_by_id(call, true);
    if (!holder)
        return holder.error().to_response();
    auto text = schema_text(call, **holder);
    if (!text)
        return text.error().to_response();
    // Confluent's SchemaString: schemaType left out for AVRO, references when there are some.
    Json body;
    if ((*holder)->schema_type != "AVRO")
        body["schemaType"] = (*holder)->schema_type;
    body["schema"] = std::move(*text);
    if (!(*holder)->references.empty())
        body["references"] = references_json((*holder)->references);
    return json_response(body);
}

RestResponse get_schema_text_by_id(const RouteCall& call) {
    auto lock = call.core.read_lock();
    auto holder = find_schema_by_id(call, true);
    if (!holder)
        return holder.error().to_response();
    auto text = schema_text(call, **holder);
    if (!text)
        return text.error().to_response();
    return RestResponse{200, std::move(*text)};
}

RestResponse get_subjects_by_id(const RouteCall& call) {
    std::optional<Paging> paging = read_paging(call.request);
    if (!paging)
        return errors::route_not_found().to_response();
    auto lock = call.core.read_lock();
    auto holder = find_schema_by_id(call, false);
    if (!holder)
        return holder.error().to_response();
    std::vector<std::string> subjects;
    for (auto& [subject, version] : uses_of(call, **holder)) {
        if (subjects.empty() || subjects.back() != subject)
            subjects.push_back(std::move(subject));
    }
    return json_response(Json(apply_paging(std::move(subjects), *paging)));
}

RestResponse get_versions_by_id(const RouteCall& call) {
    std::optional<Paging> paging = read_paging(call.request);
    if (!paging)
        return errors::route_not_found().to_response();
    auto lock = call.core.read_lock();
    auto holder = find_schema_by_id(call, false);
    if (!holder)
        return holder.error().to_response();
    Json list = Json::array();
    for (auto& [subject, version] : apply_paging(uses_of(call, **holder), *paging)) {
        Json one;
        one["subject"] = std::move(subject);
        one["version"] = version;
        list.push_back(std::move(one));
    }
    return json_response(list);
}

RestResponse get_schema_types(const RouteCall& call) {
    Json types = Json::array();
    if (!call.core.settings().schema_types.empty()) {
        for (const std::string& type : call.core.settings().schema_types)
            types.push_back(type);
    } else {
        for (std::string_view type : format_types())
            types.push_back(std::string(type));
    }
    return json_response(types);
}

RestResponse list_schemas(const RouteCall& call) {
    std::optional<Paging> paging = read_paging(call.request);
    if (!paging)
        return errors::route_not_found().to_response();
    const std::string_view prefix = query_value(call.request, "subjectPrefix").value_or("");
    const bool include_deleted = query_flag(call.request, "deleted");
    const bool latest_only = query_flag(call.request, "latestOnly");
    std::vector<SchemaVersion> listed;
    {
        auto lock = call.core.read_lock();
        for (const auto& [subject, versions] : call.core.state().subjects()) {
            if (subject.compare(0, prefix.size(), prefix) != 0)
                continue;
            const SchemaVersion* last = nullptr;
            for (const auto& [number, v] : versions) {
                if (v.deleted && !include_deleted)
                    continue;
                if (!latest_only)
                    listed.push_back(v);
                last = &v;
            }
            if (latest_only && last != nullptr)
                listed.push_back(*last);
        }
    }
    std::vector<SchemaVersion> visible;
    for (SchemaVersion& v : listed) {
        if (call.allowed("READ", "SUBJECT", v.subject))
            visible.push_back(std::move(v));
    }
    Json list = Json::array();
    for (const SchemaVersion& v : apply_paging(std::move(visible), *paging, kMaxSchemasListed))
        list.push_back(version_json(v));
    return json_response(list);
}

}  // namespace skiff::schema_registry
