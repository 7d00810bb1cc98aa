// Avro names (the spec's "Names" section): which names are valid, how a name written in a
// schema becomes a full name, and how Avro Java writes a full name back where a namespace is in
// force. The reader, the writer and the compatibility check must agree on all three.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace skiff::schema_registry::avro {

// Why `name` is not a valid Avro name ([A-Za-z_][A-Za-z0-9_]*), in Avro Java's words; empty
// when it is. ASCII only, as libavro and Avro Java's strict validator (the one Confluent uses
// for new schemas) have it.
std::string name_error(std::string_view name);
// The same for each dot-separated part of a namespace; empty for the null namespace "".
std::string namespace_error(std::string_view space);

// "a.b.C" -> {"a.b", "C"}; a name without a dot has the null namespace "". A leading dot
// (".C") names the null namespace too.
std::pair<std::string, std::string> split_full_name(std::string_view full_name);

// The full name `written` denotes where `space` is the namespace in force: a dotted name is
// already full, an undotted one joins `space`.
std::string full_name_in(std::string_view written, std::string_view space);

// How Avro Java writes the full name space.name where `enclosing` is in force
// (Name.getQualified): unqualified in its own namespace, unless the name is also a type name
// such as "record", which would read as that type.
std::string written_name(const std::string& space, const std::string& name,
                         const std::string& enclosing);

}  // namespace skiff::schema_registry::avro
