// The "consumer" protocol type's embedded messages, which classic clients put in JoinGroup's
// protocol metadata and SyncGroup's assignments (Kafka's ConsumerProtocolSubscription and
// ConsumerProtocolAssignment, not flexible):
//   subscription  int16 version | topics [string] | user_data (nullable bytes)
//                 | owned_partitions [topic | partitions [int32]] (v1+) | generation_id (v2+)
//                 | rack_id (nullable string, v3+)
//   assignment    int16 version | assigned_partitions [topic | partitions [int32]]
//                 | user_data (nullable bytes)                       (v0 and v1 alike)
// A newer version than these is read as the newest known one, its extra bytes ignored, as
// Kafka's ConsumerProtocol does. The coordinator reads these when a classic group meets the
// consumer group protocol (migration.h) and when OffsetDelete checks what a group consumes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "protocol/decode_error.h"
#include "protocol/expected.h"
#include "protocol/field_spec.h"

namespace skiff::broker::group {

// Partitions by topic name, as both messages carry them.
using TopicPartitionSets = std::map<std::string, std::set<int32_t>>;

struct EmbeddedSubscription {
    int16_t version = 0;
    std::vector<std::string> topics;
    TopicPartitionSets owned_partitions;  // v1+
    int32_t generation_id = -1;           // v2+
    std::optional<std::string> rack_id;   // v3+
};

Expected<EmbeddedSubscription, protocol::DecodeError> decode_subscription(
    std::span<const std::byte> metadata);
// Only its topics, the field every version starts with (the rest may be cut short).
Expected<std::vector<std::string>, protocol::DecodeError> decode_subscription_topics(
    std::span<const std::byte> metadata);
// The version a subscription's metadata starts with (0 when unreadable), which the assignment
// sent back to that member is written in (capped at 1, the newest assignment version).
int16_t subscription_version(std::span<const std::byte> metadata);

std::vector<std::byte> encode_assignment(const TopicPartitionSets& assigned, int16_t version);
Expected<TopicPartitionSets, protocol::DecodeError> decode_assignment(
    std::span<const std::byte> assignment);

}  // namespace skiff::broker::group
