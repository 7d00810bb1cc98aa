// The JSON bodies the registry is sent, read as Confluent's REST layer reads them: a body that
// is not JSON is error 400 (its JsonParseExceptionMapper), JSON of the wrong shape (not an
// object, a field of the wrong type) is 422, and unknown fields are ignored. A field that is
// null counts as absent, as it does for Jackson.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/schema_registry/registry_errors.h"
#include "broker/schema_registry/registry_state.h"
#include "protocol/expected.h"

namespace skiff::schema_registry {

// POST /subjects/{s}/versions, POST /subjects/{s} and POST /compatibility/...: Confluent's
// RegisterSchemaRequest. A reference's version may be -1 (the latest, resolved at parse).
struct SchemaRequest {
    std::string schema;       // empty when absent
    std::string schema_type;  // empty when absent (AVRO)
    std::vector<SchemaReference> references;
    std::optional<int32_t> id;       // IMPORT mode
    std::optional<int32_t> version;  // IMPORT mode
};

Expected<SchemaRequest, RestError> parse_schema_request(std::string_view body);

// PUT /config: {"compatibility": "FULL"} (Confluent's ConfigUpdateRequest; skiff also takes
// "compatibilityLevel", the name GET answers with). nullopt when neither is given.
Expected<std::optional<std::string>, RestError> parse_config_request(std::string_view body);

// PUT /mode: {"mode": "READONLY"}. nullopt when not given (Confluent then removes the mode).
Expected<std::optional<std::string>, RestError> parse_mode_request(std::string_view body);

}  // namespace skiff::schema_registry
