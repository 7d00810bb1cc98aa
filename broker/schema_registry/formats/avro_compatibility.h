// Whether a reader using one Avro schema can read data written with another: the schema
// resolution rules of the Avro specification, checked the way Avro Java's SchemaCompatibility
// checks them (which is what Confluent's registry runs), reported with its incompatibility
// types and Confluent's descriptions.
//
//   same primitive                      compatible
//   int -> long, float, double          compatible (promotion), not the reverse: TYPE_MISMATCH
//   long -> float, double; float -> double   likewise
//   string <-> bytes                    compatible both ways
//   array, map                          their items / values, recursively
//   record                              unqualified names equal or a reader alias names the
//                                       writer (else NAME_MISMATCH); each reader field found in
//                                       the writer by name or by one of its aliases is checked
//                                       recursively; one not found needs a default
//                                       (READER_FIELD_MISSING_DEFAULT_VALUE); writer fields the
//                                       reader lacks are skipped
//   enum                                names as for records; writer symbols missing from the
//                                       reader: MISSING_ENUM_SYMBOLS, unless the reader enum
//                                       has a default
//   fixed                               names as for records; sizes equal (FIXED_SIZE_MISMATCH)
//   writer union                        every branch must resolve against the reader
//   reader union, writer not a union    some branch must resolve (MISSING_UNION_BRANCH)
//   anything else                       TYPE_MISMATCH
//
// Recursive types end: a reader/writer pair met again while it is being checked counts as
// compatible (the rest of the check decides), as in Avro Java.
//
// Why not libavro's resolver (avro_resolved_writer_new): in libavro 1.11.1 it refuses a reader
// field that has a default, ignores aliases, refuses string <-> bytes, accepts an enum that lost
// symbols and a writer union of which one branch resolves, compares fixed types by namespace
// too, and crashes the process (SIGSEGV) when array items or map values do not resolve. The
// tests in avro_libavro_resolver_test.cpp pin each of these.
#pragma once

#include <vector>

#include "broker/schema_registry/formats/avro_schema_tree.h"
#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry::avro {

// Why `reader` cannot read what `writer` wrote, in the order found; empty when it can. The
// descriptions call the reader "the new schema" and the writer "the old one", as Confluent does
// for a BACKWARD check (SchemaFormat::check(updated, previous)).
std::vector<Incompatibility> check_compatibility(const Node& reader, const Node& writer);

}  // namespace skiff::schema_registry::avro
