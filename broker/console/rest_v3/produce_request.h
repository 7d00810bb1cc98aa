// Confluent REST Proxy v3's ProduceRequest (POST /v3/clusters/{cluster}/topics/{topic}/records)
// read into plain values, with no broker in sight so it is tested on its own:
//   {"partition_id": 1, "headers": [{"name": "h", "value": "<base64>"}],
//    "key": {"type": "BINARY"|"JSON"|"STRING", "data": ...}, "value": {...},
//    "timestamp": "2026-12-06T10:00:00.000Z"}
// A body holds one such object or several back to back (REST Proxy's streaming form). BINARY
// data is base64, JSON data is any JSON value (stored as its serialization), STRING data a
// string stored as UTF-8. AVRO, PROTOBUF and JSONSCHEMA data, and a key or value that names its
// schema (schema_id, schema_version, subject, subject_name_strategy, schema), are serialized
// through the schema registry (schema_serializer.h); a key or value with neither a type nor a
// schema field is too when the registry has a schema for the topic's subject, as REST Proxy
// uses the subject's latest schema, and is JSON otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/expected.h"

namespace skiff::broker::console::rest_v3 {

// How a key or value names the registry schema it is serialized with: REST Proxy v3's fields.
// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's special members are not noexcept
struct SchemaChoice {
    std::optional<std::string> type;  // AVRO, PROTOBUF or JSONSCHEMA, when given
    std::optional<int32_t> schema_id;
    std::optional<int32_t> schema_version;
    std::optional<std::string> subject;
    std::optional<std::string> strategy;    // TOPIC_NAME (default), RECORD_NAME, TOPIC_RECORD_NAME
    std::optional<std::string> raw_schema;  // looked up under the subject, registered if new
    bool implicit = false;  // no type and no schema field: the subject's schema if there is one
    nlohmann::json data;    // the value in the JSON form of its format
};

// One key or value as it will be stored, with the type it was given in (for the answer).
struct RecordData {
    std::string type;                    // "BINARY", "JSON", "STRING", or the schema's format
    std::optional<std::string> data;     // null data: a null key or value
    std::optional<SchemaChoice> schema;  // set: still to be serialized through the registry
    // Once serialized through the registry: where its schema is, for the answer.
    std::optional<std::string> subject;
    std::optional<int32_t> schema_id;
    std::optional<int32_t> schema_version;
};

struct ProduceRecord {
    std::optional<int32_t> partition_id;
    std::optional<RecordData> key;    // absent: null key
    std::optional<RecordData> value;  // absent: null value
    std::vector<std::pair<std::string, std::optional<std::string>>> headers;
    std::optional<int64_t> timestamp_ms;  // absent: the time of the request
};

// Why one record cannot be produced, in REST Proxy's terms: the HTTP status its result carries
// and a message.
struct RecordError {
    int error_code = 400;
    std::string message;
};

// The top-level JSON values of a body, each as its own text ("{...} {...}"), or why the body is
// not a sequence of JSON objects (unbalanced brackets, text between the objects, nothing at all).
Expected<std::vector<std::string_view>, std::string> split_concatenated_json(std::string_view body);

// One record from its JSON text.
Expected<ProduceRecord, RecordError> parse_produce_record(std::string_view text);

// "2026-12-06T10:00:00Z", with optional fractional seconds and a "+01:00"-style offset, to
// milliseconds since the epoch; nullopt for anything else.
std::optional<int64_t> parse_iso8601_ms(std::string_view text);
// Milliseconds since the epoch as REST Proxy writes a timestamp: "2026-12-06T10:00:00.123Z".
std::string format_iso8601_ms(int64_t ms);

}  // namespace skiff::broker::console::rest_v3
