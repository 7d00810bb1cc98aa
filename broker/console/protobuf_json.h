// A decoded Protobuf message as JSON, for the console's messages view: protobuf's canonical JSON
// mapping (https://protobuf.dev/programming-guides/proto3/#json) with the field names as the
// schema writes them, as MessageToJsonString prints with preserve_proto_field_names.
//
// Written here over libprotobuf's reflection rather than calling libprotobuf's own JSON printer:
// that printer drags its whole JSON converter into the binary (2026-12-06: the static binary
// 14,948,696 bytes with it, the FROM scratch image against its 15 MB bound), and the console
// only ever prints.
//
//   int64, uint64 and their fixed and zig-zag kinds   strings (JSON numbers lose them)
//   other integers, float, double                     numbers; "NaN", "Infinity", "-Infinity"
//   bytes                                             standard base64
//   enums                                             the value's name; its number if unnamed
//   maps                                              objects keyed by the key's text
//   Timestamp, Duration                               RFC 3339 text, "1.5s"
//   the wrappers (Int32Value, ...)                    the wrapped value
//   Struct, Value, ListValue, Empty, FieldMask        their JSON
//   Any                                               {"@type": url, "value": base64}: the type
//                                                     is not resolved (the one difference)
// Fields at their default value are left out (proto3 without presence), as protobuf does.
#pragma once

#include <nlohmann/json.hpp>

namespace google::protobuf {
class Message;
}

namespace skiff::broker::console {

nlohmann::json protobuf_to_json(const google::protobuf::Message& message);

}  // namespace skiff::broker::console
