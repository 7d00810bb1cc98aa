// One Avro datum in Avro's binary encoding read into JSON, over the registry's parsed schema
// (broker/schema_registry/formats/avro_schema_tree.h): what the console shows of a record
// written by Confluent's AvroSerializer. The JSON is what a reader would print of the datum:
// records as objects, enums as their symbol, a union as its branch's value (unwrapped), bytes
// and fixed as Avro's JSON encoding writes them (one code point per byte).
//
// The bytes are hostile: every length is checked against what is left, varints are at most 10
// bytes, a union branch or enum symbol must exist, nesting is bounded (recursive types), and so
// is the number of values read (an array of nulls costs no bytes per item), so no input can make
// it allocate or loop without bound.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "broker/schema_registry/formats/avro_schema_tree.h"
#include "protocol/expected.h"

namespace skiff::broker::console {

struct AvroDatumLimits {
    size_t max_values = size_t{1} << 20;  // values read in all, items of arrays and maps included
    size_t max_depth = 64;                // records, arrays, maps and unions inside each other
};

// The datum of `schema` that `bytes` holds, or why it cannot be read. Bytes left after the
// datum are refused: Confluent's serializer writes exactly one.
Expected<nlohmann::json, std::string> read_avro_datum(const schema_registry::avro::Node& schema,
                                                      std::span<const std::byte> bytes,
                                                      const AvroDatumLimits& limits = {});

}  // namespace skiff::broker::console
