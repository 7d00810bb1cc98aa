// A JSON string as Jackson (and so Confluent's registry) writes it: '"', '\' and the control
// characters escaped, the common ones by their short escapes and the others as \u00XX with
// upper-case hex; '/' and every other byte (UTF-8 included) as is. Shared by the AVRO and JSON
// types' canonical texts, which must match Confluent's byte for byte.
#pragma once

#include <string>
#include <string_view>

namespace skiff::schema_registry {

void append_jackson_string(std::string& out, std::string_view text);

}  // namespace skiff::schema_registry
