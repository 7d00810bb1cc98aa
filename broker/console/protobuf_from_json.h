// A Protobuf message read from JSON: the inverse of protobuf_json.h, for records written as JSON
// with a Protobuf schema. Protobuf's canonical JSON mapping
// (https://protobuf.dev/programming-guides/proto3/#json), as libprotobuf's JsonStringToMessage
// reads it with its default options.
//
// Written here over libprotobuf's reflection rather than calling JsonStringToMessage, for the
// reason protobuf_json.h gives: libprotobuf's JSON converter would add about 270 KB to the static
// binary, whose image is bounded at 15 MB.
//
//   field keys                                   the field's JSON name (lowerCamelCase) or its
//                                                proto name; "[pkg.ext]" for an extension
//   null                                         the field left at its default (a Value's null
//                                                is NULL_VALUE, as is a NullValue field's)
//   int32, uint32 and their fixed and zig-zag    numbers (integral, in range), or their decimal
//   kinds, and the 64-bit ones                   text ("123", "-9007199254740993")
//   float, double                                numbers, decimal text, "NaN", "Infinity",
//                                                "-Infinity"
//   bool                                         true, false
//   bytes                                        base64, standard or URL-safe, padded or not
//   enums                                        the value's name, or its number (any number for
//                                                an open proto3 enum, a declared one otherwise;
//                                                a declared one as text too: "2")
//   repeated fields                              arrays
//   maps                                         objects keyed by the key's text ("true", "-3")
//   Timestamp                                    RFC 3339 text ("1972-01-01T10:00:20.021Z",
//                                                "...+01:30")
//   Duration                                     "1.5s", "-0.000001s"
//   the wrappers (Int32Value, ...)               the wrapped value
//   Struct, Value, ListValue, Empty              their JSON
//   FieldMask                                    "user.displayName,photo" (paths to snake_case)
//   Any                                          refused: its type is not resolved, as the printer
//                                                does not resolve it
//
// Refused too: two members of one oneof, a field given twice (by both of its names), a missing
// proto2 required field, a value more than kProtobufJsonMaxDepth keys and indexes below the top.
//
// JsonStringToMessage (libprotobuf 3.21) is more lenient; these it takes and this reader does not,
// as the mapping does not name them: quoted bools ("true", "t" for a bool field or key), a single
// value for a repeated field (so null for a repeated Value is no values, not one), null inside
// arrays and maps (other than for Value), {"value": ...} for a wrapper, {} for a ListValue,
// hexadecimal floats, a number a closed (proto2) enum does not declare (protobuf keeps it as an
// unknown field), FieldMask paths of anything but names and dots (its "a(b,c)" shorthand), a
// timestamp with fewer digits than RFC 3339's or outside 0001-01-01 to 9999-12-31 once its offset
// is applied, a fraction of a second finer than nanoseconds, and a duration with a "+", spaces or
// no digit after its point ("1.s").
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "protocol/expected.h"

namespace google::protobuf {
class Message;
}

namespace skiff::broker::console {

// How far below the top of the JSON a value may be, in keys and indexes: enough for any message a
// person writes, and it bounds the reader's recursion on hostile input (libprotobuf's is 100).
inline constexpr size_t kProtobufJsonMaxDepth = 64;

// `value` read into `out`, which is cleared first. On an error, the JSON path of the first problem
// found ("items[2].price: expected a number"); `out` then holds what was read before it. The
// members of an object are read in key order (nlohmann::json keeps them sorted), so "first" is in
// that order.
Expected<void, std::string> protobuf_from_json(const nlohmann::json& value,
                                               google::protobuf::Message& out);

}  // namespace skiff::broker::console
