// Parser for the Java `.properties` format (java.util.Properties#load), which Kafka's
// server.properties uses.
//
// Rules implemented, as in Java:
// - A natural line ends at \n, \r or \r\n. A line that is blank, or whose first non-blank character
//   is '#' or '!', is a comment; comments never continue onto the next line.
// - A line ending in an odd number of backslashes continues on the next line, whose leading
//   whitespace is dropped.
// - The key ends at the first unescaped '=', ':' or whitespace; then whitespace, at most one '=' or
//   ':', and more whitespace are skipped; the rest of the logical line is the value (trailing
//   whitespace kept; callers that parse typed values trim it). A key alone has an empty value.
// - Escapes in keys and values: \t \n \r \f, \uXXXX (encoded as UTF-8, surrogate pairs joined), and
//   a backslash before any other character stands for that character (`\=`, `\:`, `\ `, `\\`).
// Difference from Java: bytes are passed through as they are (UTF-8 files read as UTF-8), where
// Java's InputStream overload reads ISO-8859-1. A malformed \u escape is an error, as in Java.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "protocol/expected.h"

namespace skiff::config {

struct PropertyEntry {
    std::string key;
    std::string value;
    int line = 0;  // 1-based line on which the logical line starts
};

struct PropertiesError {
    int line = 0;
    std::string message;
};

// Every key=value in file order; a repeated key appears twice (the later one wins for callers).
Expected<std::vector<PropertyEntry>, PropertiesError> parse_properties(std::string_view text);

// `s` without leading and trailing whitespace (space, \t, \r, \n, \f): how typed values and
// list entries are read from a property value.
std::string_view trim(std::string_view s);

}  // namespace skiff::config
