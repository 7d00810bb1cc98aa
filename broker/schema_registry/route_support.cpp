// What several routes share: paging, finding the version a path names, and the JSON of a
// version.
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {

std::optional<Paging> read_paging(const RestRequest& request) {
    std::optional<int32_t> offset = query_int(request, "offset", 0);
    std::optional<int32_t> limit = query_int(request, "limit", -1);
    if (!offset || !limit)
        return std::nullopt;
    return Paging{*offset, *limit};
}

Expected<const SchemaVersion*, RestError> find_requested_version(const RouteCall& call,
                                                                 bool include_deleted) {
    auto version = parse_version(call.version);
    if (!version)
        return unexpected(version.error());
    const RegistryState& state = call.core.state();
    const SchemaVersion* found = *version == kLatestVersion
                                     ? state.latest_live_version(call.subject)
                                     : state.find_version(call.subject, *version);
    if (found != nullptr && found->deleted && !include_deleted)
        found = nullptr;
    if (found == nullptr) {
        if (!state.has_subject(call.subject, include_deleted))
            return unexpected(errors::subject_not_found(call.subject));
        return unexpected(errors::version_not_found(*version));
    }
    return found;
}

std::vector<const SchemaVersion*> live_versions(const RouteCall& call) {
    std::vector<const SchemaVersion*> live;
    if (const VersionMap* versions = call.core.state().versions(call.subject)) {
        for (const auto& [number, v] : *versions) {
            if (!v.deleted)
                live.push_back(&v);
        }
    }
    return live;
}

Expected<std::vector<std::string>, RestError> compatibility_problems(
    const RouteCall& call, const ResolvedSchema& candidate,
    const std::vector<const SchemaVersion*>& previous) {
    const CompatibilityLevel level = call.core.compatibility_in_scope(call.subject);
    if (level == CompatibilityLevel::kNone || previous.empty())
        return std::vector<std::string>();
    // Only the versions the level looks at are parsed: the latest, or all of them.
    std::vector<const SchemaVersion*> compared = previous;
    if (!is_transitive(level))
        compared.erase(compared.begin(), compared.end() - 1);
    std::vector<std::shared_ptr<const ParsedSchema>> keep_alive;
    std::vector<RegisteredSchema> registered;
    for (const SchemaVersion* v : compared) {
        RegisteredSchema r{v->version, v->schema_type, v->schema, nullptr};
        if (v->schema_type == candidate.schema_type) {
            auto parsed = call.core.parsed_version(*v);
            if (!parsed)
                return unexpected(parsed.error());
            r.parsed = parsed->get();
            keep_alive.push_back(std::move(*parsed));
        }
        registered.push_back(r);
    }
    return compatibility_messages(level, *candidate.format, *candidate.parsed, registered);
}

Json references_json(const std::vector<SchemaReference>& references) {
    Json list = Json::array();
    for (const SchemaReference& r : references) {
        Json one;
        one["name"] = r.name;
        one["subject"] = r.subject;
        one["version"] = r.version;
        list.push_back(std::move(one));
    }
    return list;
}

Json version_json(const SchemaVersion& v) {
    Json json;
    json["subject"] = v.subject;
    json["version"] = v.version;
    json["id"] = v.id;
    if (v.schema_type != "AVRO")
        json["schemaType"] = v.schema_type;
    if (!v.references.empty())
        json["references"] = references_json(v.references);
    json["schema"] = v.schema;
    return json;
}

}  // namespace skiff::schema_registry
