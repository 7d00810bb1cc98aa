// JSON for the registry's answers and records. Objects keep their keys in insertion order
// (ordered_json) so that every body and every _schemas record has Confluent's field order, and a
// record's key bytes are the same each time it is written (compaction in _schemas is by key
// bytes). Text is dumped compact, and never throws on bad UTF-8: a subject name comes from a URL
// and may hold anything, so invalid bytes become U+FFFD instead of an exception.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "broker/schema_registry/rest.h"

namespace skiff::schema_registry {

using Json = nlohmann::ordered_json;

inline std::string dump_json(const Json& json) {
    return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

inline RestResponse json_response(const Json& body, int status = 200) {
    return RestResponse{status, dump_json(body)};
}

}  // namespace skiff::schema_registry
