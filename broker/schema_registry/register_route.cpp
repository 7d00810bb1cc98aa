// POST /subjects/{s}/versions: registering a schema, as Confluent's KafkaSchemaRegistry.register
// does it.
//
//   1. The mode decides who may register: READONLY nobody (42205); READWRITE without an id;
//      IMPORT only with one, chosen by the caller (42205 otherwise).
//   2. The schema is parsed by its type, its references resolved from live stored versions
//      (42201 when it is invalid or a reference is unknown). An empty schema means "the latest
//      version's", as Confluent reads it.
//   3. A schema already live in the subject is answered with its id; nothing is written.
//   4. Outside IMPORT mode it must be compatible with the live versions at the subject's level
//      (409 with the reasons), and a version given must be the next one (42201).
//   5. The id: the schema's existing id when it has one (in any subject), the caller's in IMPORT
//      mode (42205 if it names another schema), else a new one above every id ever seen.
//   6. Soft-deleted older versions holding the same id are hard-deleted first (Confluent does
//      this so an id is registered only once per subject), then the version is written.
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {
namespace {

constexpr std::string_view kRegisterWriteFailed =
    "Register schema operation failed while writing to the Kafka store";

RestResponse registered_id(int32_t id) {
    Json body;
    body["id"] = id;
    return json_response(body);
}

std::optional<RestError> check_register_mode(const RouteCall& call, RegistryMode mode,
                                             bool caller_chose_id) {
    if (mode == RegistryMode::kReadOnly)
        return errors::operation_not_permitted("Subject " + call.subject + " is in read-only mode");
    if (caller_chose_id && mode != RegistryMode::kImport)
        return errors::operation_not_permitted("Subject " + call.subject +
                                               " is not in import mode");
    if (!caller_chose_id && mode != RegistryMode::kReadWrite)
        return errors::operation_not_permitted("Subject " + call.subject +
                                               " is not in read-write mode");
    return std::nullopt;
}

}  // namespace

RestResponse register_schema(const RouteCall& call) {
    const bool normalize = query_flag(call.request, "normalize");
    auto writer = call.core.write_lock();
    const RegistryState& state = call.core.state();
    std::shared_ptr<const ResolvedBody> body =
        call.core.resolve_body(call.request.body, ReferencePolicy::kLiveOnly, normalize);
    if (!body->request)
        return body->request.error().to_response();
    const SchemaRequest& request = *body->request;
    if (!is_valid_subject(call.subject))
        return errors::invalid_subject(call.subject).to_response();

    const RegistryMode mode = call.core.mode_in_scope(call.subject);
    const bool caller_chose_id = request.id && *request.id >= 0;
    if (auto refused = check_register_mode(call, mode, caller_chose_id))
        return refused->to_response();

    std::shared_ptr<const ResolvedSchema> schema = body->schema;
    if (body->schema_error)
        return body->schema_error->to_response();
    if (!schema) {
        const SchemaVersion* latest = state.latest_live_version(call.subject);
        if (latest == nullptr)
            return errors::invalid_schema("Empty schema").to_response();
        auto resolved = call.core.resolve(latest->schema_type, latest->schema, latest->references,
                                          ReferencePolicy::kIncludeDeleted, normalize);
        if (!resolved)
            return resolved.error().to_response();
        schema = *resolved;
    }

    int32_t id = caller_chose_id ? *request.id : -1;
    const bool version_given = request.version && *request.version > 0;
    if (std::optional<int32_t> existing = state.id_for_identity(schema->identity);
        existing && (id < 0 || id == *existing)) {
        if (!version_given && state.has_live_version_with_id(call.subject, *existing))
            return registered_id(*existing);
        id = *existing;
    }

    if (mode != RegistryMode::kImport) {
        auto problems = compatibility_problems(call, *schema, live_versions(call));
        if (!problems)
            return problems.error().to_response();
        if (!problems->empty())
            return errors::incompatible_schema(call.subject, join_messages(*problems))
                .to_response();
    }

    int version = state.next_version(call.subject);
    if (version_given) {
        if (*request.version != version && mode != RegistryMode::kImport)
            return errors::invalid_schema("Version is not one more than previous version")
                .to_response();
        version = *request.version;
    }

    if (id >= 0) {
        const SchemaById* holder = state.schema_by_id(id);
        if (holder != nullptr && holder->identity != schema->identity) {
            return errors::operation_not_permitted("Overwrite new schema with id " +
                                                   std::to_string(id) + " is not permitted.")
                .to_response();
        }
    } else {
        id = call.core.reserve_schema_id();
    }

    std::vector<int> superseded;
    if (const VersionMap* versions = state.versions(call.subject)) {
        for (const auto& [number, v] : *versions) {
            // One still referenced stays: removing it would break the schema using it.
            if (v.deleted && v.id == id && number < version &&
                state.referenced_by(call.subject, number).empty())
                superseded.push_back(number);
        }
    }
    for (int number : superseded) {
        auto written =
            call.core.write(schema_key(call.subject, number), std::nullopt, kRegisterWriteFailed);
        if (!written)
            return written.error().to_response();
    }

    SchemaVersion record;
    record.subject = call.subject;
    record.version = version;
    record.id = id;
    record.schema_type = schema->schema_type;
    record.references = schema->references;
    record.schema = schema->canonical();
    auto written = call.core.write(schema_key(call.subject, version), encode_schema_value(record),
                                   kRegisterWriteFailed);
    if (!written)
        return written.error().to_response();
    return registered_id(id);
}

}  // namespace skiff::schema_registry
