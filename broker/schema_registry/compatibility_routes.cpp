// POST /compatibility/subjects/{s}/versions/{v} and .../versions (Confluent's
// CompatibilityResource): would this schema be accepted? Against one version, or against the
// live versions as registration would check it, at the subject's level. Nothing is written.
// Answers {"is_compatible": bool}, with ?verbose=true also "messages": Confluent's reasons (an
// invalid schema is then a reason too, instead of error 42201).
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {
namespace {

RestResponse verdict(const std::vector<std::string>& problems, bool verbose) {
    Json body;
    body["is_compatible"] = problems.empty();
    if (verbose)
        body["messages"] = problems;
    return json_response(body);
}

// The schema of the request checked against `previous`; under a read lock.
RestResponse check_candidate(const RouteCall& call,
                             const std::vector<const SchemaVersion*>& previous) {
    const bool verbose = query_flag(call.request, "verbose");
    const bool normalize = query_flag(call.request, "normalize");
    // A candidate is a new schema: its references must be live, as at registration.
    std::shared_ptr<const ResolvedBody> body =
        call.core.resolve_body(call.request.body, ReferencePolicy::kLiveOnly, normalize);
    if (!body->request)
        return body->request.error().to_response();
    std::optional<RestError> invalid = body->schema_error;
    if (!body->schema && !invalid)
        invalid = errors::invalid_schema("Empty schema");
    if (invalid) {
        if (verbose)
            return verdict({invalid->message}, true);
        return invalid->to_response();
    }
    auto problems = compatibility_problems(call, *body->schema, previous);
    if (!problems)
        return problems.error().to_response();
    return verdict(*problems, verbose);
}

}  // namespace

RestResponse check_against_version(const RouteCall& call) {
    auto version = parse_version(call.version);
    if (!version)
        return version.error().to_response();
    auto lock = call.core.read_lock();
    const RegistryState& state = call.core.state();
    const SchemaVersion* target = *version == kLatestVersion
                                      ? state.latest_live_version(call.subject)
                                      : state.find_version(call.subject, *version);
    if (target != nullptr && target->deleted)
        target = nullptr;  // never checked against a deleted version
    // No latest version (or no subject) is no constraint; a named version must exist.
    if (target == nullptr && *version != kLatestVersion)
        return errors::version_not_found(*version).to_response();
    std::vector<const SchemaVersion*> previous;
    if (target != nullptr)
        previous.push_back(target);
    return check_candidate(call, previous);
}

RestResponse check_against_all_versions(const RouteCall& call) {
    auto lock = call.core.read_lock();
    return check_candidate(call, live_versions(call));
}

}  // namespace skiff::schema_registry
