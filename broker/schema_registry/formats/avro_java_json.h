// JSON text written the way Avro Java writes a schema (with Jackson's generator), so that the
// canonical text skiff stores is byte for byte the one Confluent's registry stores for the same
// schema: compact, strings escaped as Jackson escapes them (\uXXXX in upper case, '/' and
// non-ASCII characters left alone), doubles as Java's Double.toString prints them ("1.0",
// "1.0E10", "1.0E-4"), NaN and infinities quoted as Jackson quotes them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "broker/schema_registry/formats/avro_schema_tree.h"

namespace skiff::schema_registry::avro {

void append_json_string(std::string& out, std::string_view text);
void append_java_double(std::string& out, double value);
// Any JSON value (a default, a property), compact, objects in their stored order.
void append_json_value(std::string& out, const Json& value);
std::string json_string(std::string_view text);

// What Java's Double.valueOf accepts in decimal form ("1.5", " -2e3 ", "7d", "NaN",
// "-Infinity"): Avro Java turns a float or double field's textual default into a number so.
// nullopt where Java would throw.
std::optional<double> parse_java_double(std::string_view text);

// `value` stored in a Java float and read back as a double through Float.toString's digits: what
// a float default becomes when Confluent normalizes a schema (0.1 stays 0.1, 1/3 becomes
// 0.33333334).
double through_java_float(double value);

}  // namespace skiff::schema_registry::avro
