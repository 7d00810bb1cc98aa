// The read routes of /subjects (Confluent's SubjectsResource and SubjectVersionsResource):
// listing subjects and versions, one version, what references it, and the lookup "is this
// schema registered under this subject?" that serializers call on every new schema they see.
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {
namespace {

// Confluent's LookupFilter: which versions a listing counts.
enum class DeletedFilter { kLiveOnly, kIncludeDeleted, kDeletedOnly };

DeletedFilter deleted_filter(const RestRequest& request) {
    if (query_flag(request, "deletedOnly"))
        return DeletedFilter::kDeletedOnly;
    return query_flag(request, "deleted") ? DeletedFilter::kIncludeDeleted
                                          : DeletedFilter::kLiveOnly;
}

bool filter_keeps(DeletedFilter filter, bool deleted) {
    switch (filter) {
        case DeletedFilter::kLiveOnly:
            return !deleted;
        case DeletedFilter::kIncludeDeleted:
            return true;
        case DeletedFilter::kDeletedOnly:
            return deleted;
    }
    return false;
}

// Confluent's "all contexts" prefix, the default of subjectPrefix: every subject.
constexpr std::string_view kAnyContextPrefix = ":*:";

}  // namespace

RestResponse list_subjects(const RouteCall& call) {
    std::optional<Paging> paging = read_paging(call.request);
    if (!paging)
        return errors::route_not_found().to_response();
    std::string_view prefix = query_value(call.request, "subjectPrefix").value_or("");
    if (prefix == kAnyContextPrefix)
        prefix = {};
    const DeletedFilter filter = deleted_filter(call.request);
    std::vector<std::string> names;
    {
        auto lock = call.core.read_lock();
        for (const auto& [name, versions] : call.core.state().subjects()) {
            if (name.compare(0, prefix.size(), prefix) != 0)
                continue;
            // A subject is deleted when every version is (Confluent merges the flags with AND).
            bool all_deleted = true;
            for (const auto& [number, v] : versions)
                all_deleted = all_deleted && v.deleted;
            if (filter_keeps(filter, all_deleted))
                names.push_back(name);
        }
    }
    std::vector<std::string> visible;
    for (std::string& name : names) {
        if (call.allowed("DESCRIBE", "SUBJECT", name))
            visible.push_back(std::move(name));
    }
    return json_response(Json(apply_paging(std::move(visible), *paging)));
}

RestResponse list_versions(const RouteCall& call) {
    std::optional<Paging> paging = read_paging(call.request);
    if (!paging)
        return errors::route_not_found().to_response();
    const DeletedFilter filter = deleted_filter(call.request);
    std::vector<int> numbers;
    {
        auto lock = call.core.read_lock();
        const RegistryState& state = call.core.state();
        if (!state.has_subject(call.subject, filter != DeletedFilter::kLiveOnly))
            return errors::subject_not_found(call.subject).to_response();
        for (const auto& [number, v] : *state.versions(call.subject)) {
            if (filter_keeps(filter, v.deleted))
                numbers.push_back(number);
        }
    }
    return json_response(Json(apply_paging(std::move(numbers), *paging)));
}

RestResponse get_version(const RouteCall& call) {
    const std::string_view format = query_value(call.request, "format").value_or("");
    auto lock = call.core.read_lock();
    auto found = find_requested_version(call, query_flag(call.request, "deleted"));
    if (!found)
        return found.error().to_response();
    Json body = version_json(**found);
    if (!format.empty()) {
        auto parsed = call.core.parsed_version(**found);
        if (!parsed)
            return parsed.error().to_response();
        if (std::optional<std::string> text = (*parsed)->formatted(format))
            body["schema"] = std::move(*text);
    }
    return json_response(body);
}

RestResponse get_version_schema_text(const RouteCall& call) {
    const std::string_view format = query_value(call.request, "format").value_or("");
    auto lock = call.core.read_lock();
    auto found = find_requested_version(call, query_flag(call.request, "deleted"));
    if (!found)
        return found.error().to_response();
    if (!format.empty()) {
        auto parsed = call.core.parsed_version(**found);
        if (!parsed)
            return parsed.error().to_response();
        if (std::optional<std::string> text = (*parsed)->formatted(format))
            return RestResponse{200, std::move(*text)};
    }
    // The schema itself, not a JSON string holding it, as Confluent serves it.
    return RestResponse{200, (*found)->schema};
}

RestResponse get_referenced_by(const RouteCall& call) {
    std::optional<Paging> paging = read_paging(call.request);
    if (!paging)
        return errors::route_not_found().to_response();
    std::vector<int32_t> ids;
    {
        auto lock = call.core.read_lock();
        auto found = find_requested_version(call, true);
        if (!found)
            return found.error().to_response();
        ids = call.core.state().referenced_by(call.subject, (*found)->version);
    }
    return json_response(Json(apply_paging(std::move(ids), *paging, kMaxSchemasListed)));
}

RestResponse look_up_schema(const RouteCall& call) {
    const bool normalize = query_flag(call.request, "normalize");
    const bool include_deleted = query_flag(call.request, "deleted");
    auto lock = call.core.read_lock();
    const RegistryState& state = call.core.state();
    std::shared_ptr<const ResolvedBody> body =
        call.core.resolve_body(call.request.body, ReferencePolicy::kIncludeDeleted, normalize);
    if (!body->request)
        return body->request.error().to_response();
    if (body->schema_error)
        return body->schema_error->to_response();
    const SchemaVersion* match = nullptr;
    if (body->schema) {
        std::optional<int32_t> id = state.id_for_identity(body->schema->identity);
        const SchemaById* holder = id ? state.schema_by_id(*id) : nullptr;
        if (holder != nullptr) {
            auto uses = holder->uses.find(call.subject);
            if (uses != holder->uses.end()) {
                // The newest version holding it that the caller may see.
                for (auto it = uses->second.rbegin(); it != uses->second.rend(); ++it) {
                    const SchemaVersion* v = state.find_version(call.subject, *it);
                    if (v != nullptr && (!v->deleted || include_deleted)) {
                        match = v;
                        break;
                    }
                }
            }
        }
    }
    if (match == nullptr) {
        if (!state.has_subject(call.subject, include_deleted))
            return errors::subject_not_found(call.subject).to_response();
        return errors::schema_not_found().to_response();
    }
    return json_response(version_json(*match));
}

}  // namespace skiff::schema_registry
