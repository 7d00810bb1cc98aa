// Apache Avro's C library (libavro) as a second, independent judge of a schema's validity: a
// schema is registered only if both skiff's reader (avro_schema_reader.h) and libavro's parser
// accept it. libavro is the reference C implementation of the spec's grammar; running it keeps
// skiff from accepting a schema that Avro's other implementations would choke on.
//
// References. libavro has no API to make named types known to its parser before a text is
// parsed: avro_schema_from_json_length starts from an empty table of names every time. So the
// referenced schemas go in the same text, ahead of the schema, as the fields of one wrapper
// record: libavro reads a record's fields in order and registers every named type it meets in
// its one table, so the schema (the last field) can use the types the references (the fields
// before it) define. The wrapper has the null namespace, as a top-level schema has, so names
// resolve as they would at the top level. A name none of them defines stays unknown and is
// refused ("Unknown Avro "type": com.acme.Missing").
//
// Thread safety: Debian's libavro is built without THREADSAFE, so avro_strerror() reads one
// process-wide buffer that any parse may overwrite. Every call into libavro here holds one
// mutex, from the parse to the copy of its error message.
//
// What libavro does not check (and the reader does): repeated record fields, enum symbols or
// union branches, nested unions, default values, an enum default outside the symbols, negative
// fixed sizes, invalid namespaces, types named after primitives.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry::avro {

// Empty when libavro parses `text` with the named types of `references` known; else libavro's
// message.
std::string libavro_parse_error(std::string_view text,
                                const std::vector<ResolvedReference>& references);

}  // namespace skiff::schema_registry::avro
