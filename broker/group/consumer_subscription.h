// The topics a member of a "consumer" group subscribes to, read from its JoinGroup protocol
// metadata (the ConsumerProtocolSubscription schema: version int16, topics [string], ...; every
// version starts the same way and later fields are not needed here). OffsetDelete refuses to
// delete offsets of a topic the group still consumes (GROUP_SUBSCRIBED_TO_TOPIC), as Kafka does.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <span>
#include <string>

namespace skiff::broker::group {

// nullopt when the bytes are not a subscription (truncated, negative lengths).
std::optional<std::set<std::string>> subscribed_topics(std::span<const std::byte> metadata);

}  // namespace skiff::broker::group
