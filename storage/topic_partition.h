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
    auto operator<=>(const TopicPartition&) const = default;
};

}  // namespace skiff::storage
