// A topic name and partition number: the key of a partition log and its directory
// <log dir>/<topic>-<partition>.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace skiff::storage {

struct TopicPartition {
    std::string topic;
    int32_t partition = 0;
    // clang-tidy 14 sees the `<=> 0` that a defaulted operator<=> is rewritten to as a null pointer
    // constant (a false positive); there is no pointer here.
    auto operator<=>(const TopicPartition&) const = default;  // NOLINT(modernize-use-nullptr)
};

}  // namespace skiff::storage
