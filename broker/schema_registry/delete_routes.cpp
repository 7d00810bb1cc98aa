// DELETE /subjects/{s} and DELETE /subjects/{s}/versions/{v}, with Confluent's two steps: a
// soft delete hides versions (they stay readable by id and with ?deleted=true, and their ids stay
// taken); a hard delete (?permanent=true) removes them, and only after a soft delete. A version
// that a live schema references can be deleted neither way (42206). When a hard delete removes a
// subject's last version, its compatibility level and mode go too, as in Confluent.
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {
namespace {

std::optional<RestError> refuse_if_read_only(const RouteCall& call) {
    if (call.core.mode_in_scope(call.subject) == RegistryMode::kReadOnly)
        return errors::operation_not_permitted("Subject " + call.subject + " is in read-only mode");
    return std::nullopt;
}

// Once a subject has no version left, its own level and mode are removed.
Expected<void, RestError> forget_subject_settings(const RouteCall& call,
                                                  std::string_view operation) {
    const RegistryState& state = call.core.state();
    if (state.versions(call.subject) != nullptr)
        return {};
    if (state.mode(call.subject)) {
        auto written = call.core.write(mode_key(call.subject), std::nullopt, operation);
        if (!written)
            return written;
    }
    if (state.compatibility(call.subject))
        return call.core.write(config_key(call.subject), std::nullopt, operation);
    return {};
}

}  // namespace

RestResponse delete_version(const RouteCall& call) {
    constexpr std::string_view kOperation =
        "Delete Schema Version operation failed while writing to the Kafka store";
    const bool permanent = query_flag(call.request, "permanent");
    auto version = parse_version(call.version);
    if (!version)
        return version.error().to_response();
    auto writer = call.core.write_lock();
    const RegistryState& state = call.core.state();
    const SchemaVersion* found = *version == kLatestVersion
                                     ? state.latest_live_version(call.subject)
                                     : state.find_version(call.subject, *version);
    if (found != nullptr && found->deleted && !permanent)
        return errors::version_soft_deleted(call.subject, call.version).to_response();
    if (found == nullptr) {
        if (!state.has_subject(call.subject, true))
            return errors::subject_not_found(call.subject).to_response();
        return errors::version_not_found(*version).to_response();
    }
    if (auto refused = refuse_if_read_only(call))
        return refused->to_response();
    if (!state.referenced_by(call.subject, found->version).empty())
        return errors::reference_exists(call.subject, found->version).to_response();
    if (permanent && !found->deleted) {
        return errors::version_not_soft_deleted(call.subject, std::to_string(found->version))
            .to_response();
    }
    const int number = found->version;
    if (!permanent) {
        SchemaVersion hidden = *found;
        hidden.deleted = true;
        auto written = call.core.write(schema_key(call.subject, number),
                                       encode_schema_value(hidden), kOperation);
        if (!written)
            return written.error().to_response();
    } else {
        auto written = call.core.write(schema_key(call.subject, number), std::nullopt, kOperation);
        if (!written)
            return written.error().to_response();
        if (auto forgotten = forget_subject_settings(call, kOperation); !forgotten)
            return forgotten.error().to_response();
    }
    return json_response(Json(number));
}

RestResponse delete_subject(const RouteCall& call) {
    constexpr std::string_view kOperation =
        "Error while deleting the subject in the backend "
        "Kafka store";
    const bool permanent = query_flag(call.request, "permanent");
    auto writer = call.core.write_lock();
    const RegistryState& state = call.core.state();
    if (!state.has_subject(call.subject, true))
        return errors::subject_not_found(call.subject).to_response();
    if (!permanent && !state.has_subject(call.subject, false))
        return errors::subject_soft_deleted(call.subject).to_response();
    if (auto refused = refuse_if_read_only(call))
        return refused->to_response();
    std::vector<int> doomed;
    for (const auto& [number, v] : *state.versions(call.subject)) {
        if (v.deleted && !permanent)
            continue;
        if (!state.referenced_by(call.subject, number).empty())
            return errors::reference_exists(call.subject, number).to_response();
        if (permanent && !v.deleted)
            return errors::subject_not_soft_deleted(call.subject).to_response();
        doomed.push_back(number);
    }
    if (!permanent) {
        // One record marks every version up to the newest live one (Confluent's DELETE_SUBJECT).
        auto written =
            call.core.write(delete_subject_key(call.subject),
                            encode_delete_subject_value(call.subject, doomed.back()), kOperation);
        if (!written)
            return written.error().to_response();
    } else {
        for (int number : doomed) {
            auto written =
                call.core.write(schema_key(call.subject, number), std::nullopt, kOperation);
            if (!written)
                return written.error().to_response();
        }
        if (auto forgotten = forget_subject_settings(call, kOperation); !forgotten)
            return forgotten.error().to_response();
    }
    return json_response(Json(doomed));
}

}  // namespace skiff::schema_registry
