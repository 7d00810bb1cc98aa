// The schema registry's errors, as Confluent's Schema Registry answers them: an HTTP status and
// the body {"error_code": N, "message": "..."}. Every error of every route is built here, with
// Confluent's codes and message texts (its rest/exceptions/Errors.java and the Rest*Exception
// classes), so that the codes live in one place and clients that match on them keep working.
//
// The HTTP status follows from the code: 404xx are 404, 409 is 409, 422xx are 422, 500xx are
// 500, 40301 is 403; the bare HTTP codes (400, 404, 405, 422) are their own status, as Confluent's
// REST layer answers for a body it cannot read or a route it does not have.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "broker/schema_registry/rest.h"

namespace skiff::schema_registry {

enum class ErrorCode : int {
    kMalformedBody = 400,     // not JSON at all
    kRouteNotFound = 404,     // no such route (or a path parameter of the wrong kind)
    kMethodNotAllowed = 405,  // the route exists, not with this method
    kIncompatibleSchema = 409,
    kUnprocessableBody = 422,  // JSON, but not of the expected shape
    kInternalError = 500,      // a bug, never a client's doing
    kUnauthorized = 40301,
    kSubjectNotFound = 40401,
    kVersionNotFound = 40402,
    kSchemaNotFound = 40403,
    kSubjectSoftDeleted = 40404,
    kSubjectNotSoftDeleted = 40405,
    kVersionSoftDeleted = 40406,
    kVersionNotSoftDeleted = 40407,
    kSubjectCompatibilityNotConfigured = 40408,
    kSubjectModeNotConfigured = 40409,
    kInvalidSchema = 42201,
    kInvalidVersion = 42202,
    kInvalidCompatibilityLevel = 42203,
    kInvalidMode = 42204,
    kOperationNotPermitted = 42205,
    kReferenceExists = 42206,
    kInvalidSubject = 42208,
    kStoreError = 50001,
    kOperationTimeout = 50002,
    kForwardingFailed = 50003,
};

struct RestError {
    ErrorCode code;
    std::string message;

    int status() const;
    RestResponse to_response() const;
};

// One function per error, named after Confluent's, each with Confluent's message.
namespace errors {
RestError malformed_body(std::string_view detail);
RestError unprocessable_body(std::string_view detail);
RestError route_not_found();
RestError method_not_allowed();
RestError unauthorized(std::string_view operation, std::string_view resource_type,
                       std::string_view name);
RestError subject_not_found(std::string_view subject);
RestError version_not_found(int version);
RestError schema_not_found();
RestError schema_not_found(int32_t id);
RestError subject_soft_deleted(std::string_view subject);
RestError subject_not_soft_deleted(std::string_view subject);
RestError version_soft_deleted(std::string_view subject, std::string_view version);
RestError version_not_soft_deleted(std::string_view subject, std::string_view version);
RestError subject_compatibility_not_configured(std::string_view subject);
RestError subject_mode_not_configured(std::string_view subject);
// `details` is Confluent's list of reasons, already joined as "[a, b, c]".
RestError incompatible_schema(std::string_view subject, std::string_view details);
RestError invalid_schema(std::string_view message);
RestError invalid_version(std::string_view version);
RestError invalid_compatibility_level();
RestError invalid_mode();
RestError operation_not_permitted(std::string_view message);
RestError reference_exists(std::string_view subject, int version);
RestError invalid_subject(std::string_view subject);
RestError store_error(std::string_view what, std::string_view why);
}  // namespace errors

}  // namespace skiff::schema_registry
