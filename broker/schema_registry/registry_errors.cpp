#include "broker/schema_registry/registry_errors.h"

#include <string>

#include "broker/schema_registry/rest_json.h"

namespace skiff::schema_registry {

int RestError::status() const {
    const int value = static_cast<int>(code);
    if (value < 1000)
        return value;  // a bare HTTP code
    if (value == static_cast<int>(ErrorCode::kUnauthorized))
        return 403;
    return value / 100;  // 40401 -> 404, 42201 -> 422, 50001 -> 500
}

RestResponse RestError::to_response() const {
    Json body;
    body["error_code"] = static_cast<int>(code);
    body["message"] = message;
    return json_response(body, status());
}

namespace errors {
namespace {
std::string single_quoted(std::string_view s) {
    return "'" + std::string(s) + "'";
}
}  // namespace

RestError malformed_body(std::string_view detail) {
    return {ErrorCode::kMalformedBody, std::string(detail)};
}
RestError unprocessable_body(std::string_view detail) {
    return {ErrorCode::kUnprocessableBody, std::string(detail)};
}
RestError route_not_found() {
    return {ErrorCode::kRouteNotFound, "HTTP 404 Not Found"};
}
RestError method_not_allowed() {
    return {ErrorCode::kMethodNotAllowed, "HTTP 405 Method Not Allowed"};
}
RestError unauthorized(std::string_view operation, std::string_view resource_type,
                       std::string_view name) {
    std::string message =
        "User is denied operation " + std::string(operation) + " on " + std::string(resource_type);
    if (!name.empty())
        message += ": " + std::string(name);
    return {ErrorCode::kUnauthorized, message};
}
RestError subject_not_found(std::string_view subject) {
    return {ErrorCode::kSubjectNotFound, "Subject " + single_quoted(subject) + " not found."};
}
RestError version_not_found(int version) {
    return {ErrorCode::kVersionNotFound, "Version " + std::to_string(version) + " not found."};
}
RestError schema_not_found() {
    return {ErrorCode::kSchemaNotFound, "Schema not found"};
}
RestError schema_not_found(int32_t id) {
    return {ErrorCode::kSchemaNotFound, "Schema " + std::to_string(id) + " not found"};
}
// Confluent's texts lack the space after the first full stop; kept as clients see them.
RestError subject_soft_deleted(std::string_view subject) {
    return {ErrorCode::kSubjectSoftDeleted,
            "Subject " + single_quoted(subject) +
                " was soft deleted.Set permanent=true to delete permanently"};
}
RestError subject_not_soft_deleted(std::string_view subject) {
    return {ErrorCode::kSubjectNotSoftDeleted,
            "Subject " + single_quoted(subject) +
                " was not deleted first before being permanently deleted"};
}
RestError version_soft_deleted(std::string_view subject, std::string_view version) {
    return {ErrorCode::kVersionSoftDeleted,
            "Subject " + single_quoted(subject) + " Version " + std::string(version) +
                " was soft deleted.Set permanent=true to delete permanently"};
}
RestError version_not_soft_deleted(std::string_view subject, std::string_view version) {
    return {ErrorCode::kVersionNotSoftDeleted,
            "Subject " + single_quoted(subject) + " Version " + std::string(version) +
                " was not deleted first before being permanently deleted"};
}
RestError subject_compatibility_not_configured(std::string_view subject) {
    return {ErrorCode::kSubjectCompatibilityNotConfigured,
            "Subject " + single_quoted(subject) +
                " does not have subject-level compatibility configured"};
}
RestError subject_mode_not_configured(std::string_view subject) {
    return {ErrorCode::kSubjectModeNotConfigured,
            "Subject " + single_quoted(subject) + " does not have subject-level mode configured"};
}
RestError incompatible_schema(std::string_view subject, std::string_view details) {
    return {ErrorCode::kIncompatibleSchema,
            "Schema being registered is incompatible with an earlier schema for subject \"" +
                std::string(subject) + "\", details: " + std::string(details)};
}
RestError invalid_schema(std::string_view message) {
    return {ErrorCode::kInvalidSchema, std::string(message)};
}
RestError invalid_version(std::string_view version) {
    return {ErrorCode::kInvalidVersion,
            "The specified version " + single_quoted(version) +
                " is not a valid version id. Allowed values are between [1, 2^31-1] and the "
                "string \"latest\""};
}
RestError invalid_compatibility_level() {
    return {ErrorCode::kInvalidCompatibilityLevel,
            "Invalid compatibility level. Valid values are none, backward, forward, full, "
            "backward_transitive, forward_transitive, and full_transitive"};
}
RestError invalid_mode() {
    return {ErrorCode::kInvalidMode,
            "Invalid mode. Valid values are READWRITE, READONLY and IMPORT."};
}
RestError operation_not_permitted(std::string_view message) {
    return {ErrorCode::kOperationNotPermitted, std::string(message)};
}
RestError reference_exists(std::string_view subject, int version) {
    // Confluent prints the referenced SchemaKey with its toString().
    return {ErrorCode::kReferenceExists,
            "One or more references exist to the schema {magic=1,keytype=SCHEMA,subject=" +
                std::string(subject) + ",version=" + std::to_string(version) + "}."};
}
RestError invalid_subject(std::string_view subject) {
    return {ErrorCode::kInvalidSubject,
            "The specified subject " + single_quoted(subject) + " is not a valid."};
}
RestError store_error(std::string_view what, std::string_view why) {
    return {ErrorCode::kStoreError, std::string(what) + ": " + std::string(why)};
}
}  // namespace errors

}  // namespace skiff::schema_registry
