// One Avro datum given in JSON written in Avro's binary encoding, over the registry's parsed
// schema (broker/schema_registry/formats/avro_schema_tree.h): what REST Proxy v3's produce
// stores for a record of type AVRO, after Confluent's wire-format header. The inverse of
// avro_datum.h.
//
// The JSON is Avro's JSON encoding, as REST Proxy takes it: records as objects (a missing field
// takes its default), enums as their symbol, bytes and fixed as one code point per byte, a union
// as {"<branch name>": value} or null. A union value without that wrapper is taken too, by the
// first branch that can hold it, so what the console shows of a datum (unions unwrapped,
// avro_datum.h) can be produced again as it is.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "broker/console/avro_datum.h"
#include "broker/schema_registry/formats/avro_schema_tree.h"
#include "protocol/expected.h"

namespace skiff::broker::console {

// The datum's bytes, or why `value` is not a datum of `schema` (with the path to the problem:
// "items[2].price: expected a number").
Expected<std::string, std::string> write_avro_datum(const schema_registry::avro::Node& schema,
                                                    const nlohmann::json& value,
                                                    const AvroDatumLimits& limits = {});

}  // namespace skiff::broker::console
