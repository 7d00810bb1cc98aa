// The /config routes (Confluent's ConfigResource): the compatibility level of the registry and
// of each subject. A subject without its own level follows the registry's, and the registry
// without one follows the default (BACKWARD). GET answers {"compatibilityLevel": ...}; PUT takes
// and echoes {"compatibility": ...}, as Confluent's ConfigUpdateRequest does.
#include "broker/schema_registry/rest_path.h"
#include "broker/schema_registry/routes.h"

namespace skiff::schema_registry {
namespace {

constexpr std::string_view kConfigWriteFailed = "Failed to update compatibility level";

RestResponse level_answer(std::string_view field, CompatibilityLevel level) {
    Json body;
    body[std::string(field)] = level_name(level);
    return json_response(body);
}

CompatibilityLevel global_level(const RouteCall& call) {
    return call.core.state()
        .compatibility(std::nullopt)
        .value_or(call.core.settings().default_compatibility);
}

// A PUT's level, or why it is refused (400/422 for the body, 42203 for the level).
Expected<CompatibilityLevel, RestError> requested_level(const RouteCall& call) {
    auto text = parse_config_request(call.request.body);
    if (!text)
        return unexpected(text.error());
    std::optional<CompatibilityLevel> level =
        *text ? parse_compatibility_level(**text) : std::nullopt;
    if (!level)
        return unexpected(errors::invalid_compatibility_level());
    return *level;
}

RestResponse put_level(const RouteCall& call, const std::optional<std::string>& subject) {
    auto level = requested_level(call);
    if (!level)
        return level.error().to_response();
    if (subject && !is_valid_subject(*subject))
        return errors::invalid_subject(*subject).to_response();
    auto writer = call.core.write_lock();
    const RegistryMode mode =
        subject ? call.core.mode_in_scope(*subject)
                : call.core.state().mode(std::nullopt).value_or(RegistryMode::kReadWrite);
    if (mode == RegistryMode::kReadOnly) {
        return errors::operation_not_permitted(subject
                                                   ? "Subject " + *subject + " is in read-only mode"
                                                   : "The registry is in read-only mode")
            .to_response();
    }
    auto written = call.core.write(config_key(subject), encode_config_value(subject, *level),
                                   kConfigWriteFailed);
    if (!written)
        return written.error().to_response();
    return level_answer("compatibility", *level);
}

}  // namespace

RestResponse get_global_config(const RouteCall& call) {
    auto lock = call.core.read_lock();
    return level_answer("compatibilityLevel", global_level(call));
}

RestResponse put_global_config(const RouteCall& call) {
    return put_level(call, std::nullopt);
}

RestResponse delete_global_config(const RouteCall& call) {
    auto writer = call.core.write_lock();
    if (call.core.state().mode(std::nullopt) == RegistryMode::kReadOnly)
        return errors::operation_not_permitted("The registry is in read-only mode").to_response();
    const CompatibilityLevel previous = global_level(call);
    auto written = call.core.write(config_key(std::nullopt), std::nullopt, kConfigWriteFailed);
    if (!written)
        return written.error().to_response();
    return level_answer("compatibilityLevel", previous);
}

RestResponse get_subject_config(const RouteCall& call) {
    auto lock = call.core.read_lock();
    if (query_flag(call.request, "defaultToGlobal"))
        return level_answer("compatibilityLevel", call.core.compatibility_in_scope(call.subject));
    std::optional<CompatibilityLevel> level = call.core.state().compatibility(call.subject);
    if (!level)
        return errors::subject_compatibility_not_configured(call.subject).to_response();
    return level_answer("compatibilityLevel", *level);
}

RestResponse put_subject_config(const RouteCall& call) {
    return put_level(call, call.subject);
}

RestResponse delete_subject_config(const RouteCall& call) {
    auto writer = call.core.write_lock();
    std::optional<CompatibilityLevel> previous = call.core.state().compatibility(call.subject);
    if (!previous)
        return errors::subject_not_found(call.subject).to_response();
    if (call.core.mode_in_scope(call.subject) == RegistryMode::kReadOnly)
        return errors::operation_not_permitted("Subject " + call.subject + " is in read-only mode")
            .to_response();
    auto written = call.core.write(config_key(call.subject), std::nullopt, kConfigWriteFailed);
    if (!written)
        return written.error().to_response();
    return level_answer("compatibilityLevel", *previous);
}

}  // namespace skiff::schema_registry
