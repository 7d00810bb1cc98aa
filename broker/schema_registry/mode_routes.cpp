// The /mode routes (Confluent's ModeResource): READWRITE, READONLY or IMPORT, for the registry
// and for each subject (a subject without its own mode follows the registry's).
//
// IMPORT copies another registry with its ids and versions, so it is allowed only where there is
// nothing to clash with: switching to it is refused (42205) while a matching subject has a live
// version, unless ?force=true; soft-deleted versions are hard-deleted first and a CLEAR_SUBJECT
// record written, as Confluent does.
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {
namespace {

constexpr std::string_view kModeWriteFailed = "Failed to update mode";

RestResponse mode_answer(std::string_view mode) {
    Json body;
    body["mode"] = mode;
    return json_response(body);
}

RegistryMode scope_mode(const RouteCall& call, const std::optional<std::string>& subject) {
    return subject ? call.core.mode_in_scope(*subject)
                   : call.core.state().mode(std::nullopt).value_or(RegistryMode::kReadWrite);
}

// Before IMPORT: no live version may be in the way, and soft-deleted ones are removed.
Expected<void, RestError> prepare_import(const RouteCall& call,
                                         const std::optional<std::string>& subject) {
    const RegistryState& state = call.core.state();
    std::vector<std::pair<std::string, int>> doomed;
    for (const auto& [name, versions] : state.subjects()) {
        if (subject && name != *subject)
            continue;
        for (const auto& [number, v] : versions) {
            if (!v.deleted)
                return unexpected(
                    errors::operation_not_permitted("Cannot import since found existing subjects"));
            if (!state.referenced_by(name, number).empty())
                return unexpected(errors::reference_exists(name, number));
            doomed.emplace_back(name, number);
        }
    }
    for (const auto& [name, number] : doomed) {
        auto written = call.core.write(schema_key(name, number), std::nullopt, kModeWriteFailed);
        if (!written)
            return written;
    }
    return call.core.write(clear_subject_key(subject), encode_clear_subject_value(subject),
                           kModeWriteFailed);
}

RestResponse put_mode(const RouteCall& call, const std::optional<std::string>& subject) {
    auto text = parse_mode_request(call.request.body);
    if (!text)
        return text.error().to_response();
    if (subject && !is_valid_subject(*subject))
        return errors::invalid_subject(*subject).to_response();
    std::optional<RegistryMode> mode;
    if (*text) {
        mode = parse_mode(**text);
        if (!mode)
            return errors::invalid_mode().to_response();
    }
    auto writer = call.core.write_lock();
    if (mode == RegistryMode::kImport && scope_mode(call, subject) != RegistryMode::kImport &&
        !query_flag(call.request, "force")) {
        if (auto prepared = prepare_import(call, subject); !prepared)
            return prepared.error().to_response();
    }
    // No mode in the body removes the one set at this scope, as in Confluent.
    std::optional<std::string> value;
    if (mode)
        value = encode_mode_value(subject, *mode);
    auto written = call.core.write(mode_key(subject), value, kModeWriteFailed);
    if (!written)
        return written.error().to_response();
    if (!*text)
        return json_response(Json::object());
    return mode_answer(**text);  // the request echoed, as Confluent does
}

}  // namespace

RestResponse get_global_mode(const RouteCall& call) {
    auto lock = call.core.read_lock();
    return mode_answer(mode_name(scope_mode(call, std::nullopt)));
}

RestResponse put_global_mode(const RouteCall& call) {
    return put_mode(call, std::nullopt);
}

RestResponse delete_global_mode(const RouteCall& call) {
    auto writer = call.core.write_lock();
    const RegistryMode previous = scope_mode(call, std::nullopt);
    auto written = call.core.write(mode_key(std::nullopt), std::nullopt, kModeWriteFailed);
    if (!written)
        return written.error().to_response();
    return mode_answer(mode_name(previous));
}

RestResponse get_subject_mode(const RouteCall& call) {
    auto lock = call.core.read_lock();
    if (query_flag(call.request, "defaultToGlobal"))
        return mode_answer(mode_name(call.core.mode_in_scope(call.subject)));
    std::optional<RegistryMode> mode = call.core.state().mode(call.subject);
    if (!mode)
        return errors::subject_mode_not_configured(call.subject).to_response();
    return mode_answer(mode_name(*mode));
}

RestResponse put_subject_mode(const RouteCall& call) {
    return put_mode(call, call.subject);
}

RestResponse delete_subject_mode(const RouteCall& call) {
    auto writer = call.core.write_lock();
    std::optional<RegistryMode> previous = call.core.state().mode(call.subject);
    if (!previous)
        return errors::subject_not_found(call.subject).to_response();
    auto written = call.core.write(mode_key(call.subject), std::nullopt, kModeWriteFailed);
    if (!written)
        return written.error().to_response();
    return mode_answer(mode_name(*previous));
}

}  // namespace skiff::schema_registry
