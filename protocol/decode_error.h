// The error every decoder returns: which field failed, where, and why.
#pragma once

#include <cstddef>
#include <string>

namespace skiff::protocol {

struct DecodeError {
    std::string field;    // dotted path, e.g. "topic_data.partition_data.records"
    size_t position = 0;  // byte offset within the decoded buffer where the field starts
    std::string message;  // human readable; names the field and the problem
};

}  // namespace skiff::protocol
