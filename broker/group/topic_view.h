// The broker's topics as group types need them: a topic's partition count
// (nullopt when it does not exist), every topic's name (for regular expressions), and topic ids
// both ways (requests and records name topics by id). Given by the broker over its
// TopicRegistry; read under the coordinator's lock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "protocol/field_spec.h"

namespace skiff::broker::group {

struct TopicView {
    std::function<std::optional<int32_t>(const std::string& topic)> size;
    std::function<std::vector<std::string>()> names;
    std::function<std::optional<protocol::Uuid>(const std::string& topic)> id;
    std::function<std::optional<std::string>(const protocol::Uuid& id)> name;
};

}  // namespace skiff::broker::group
