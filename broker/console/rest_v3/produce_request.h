// Confluent REST Proxy v3's ProduceRequest (POST /v3/clusters/{cluster}/topics/{topic}/records)
// read into plain values, with no broker in sight so it is tested on its own:
//   {"partition_id": 1, "headers": [{"name": "h", "value": "<base64>"}],
//    "key": {"type": "BINARY"|"JSON"|"STRING", "data": ...}, "value": {...},
//    "timestamp": "2026-12-06T10:00:00.000Z"}
// A body holds one such object or several back to back (REST Proxy's streaming form). BINARY
// data is base64, JSON data is any JSON value (stored as its serialization), STRING data a
// string stored as UTF-8. A key or value without "type" is JSON, as REST Proxy reads a value
// without a schema. Formats that need the schema registry (AVRO, PROTOBUF, JSONSCHEMA, or a
// schema id / subject / version) are refused: skiff does not serialize through the registry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/expected.h"

namespace skiff::broker::console::rest_v3 {

// One key or value as it will be stored, with the type it was given in (for the answer).
struct RecordData {
    std::string type;                 // "BINARY", "JSON" or "STRING"
    std::optional<std::string> data;  // null data: a null key or value
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
