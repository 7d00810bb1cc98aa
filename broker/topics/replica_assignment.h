// Manual replica assignments (CreateTopics, CreatePartitions) on a single broker.
//
// Tools and tests that create topics with an explicit assignment name the brokers they found in
// Metadata: here, only this one. Kafka accepts an assignment when every replica list names
// registered brokers, without duplicates, all lists of one length; so skiff accepts exactly the
// assignments that put every partition on [node_id] and refuses the rest with Kafka's error
// (INVALID_REPLICA_ASSIGNMENT) and a message naming what is wrong.
//
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::broker {

// Why `replica_lists` (one broker list per partition, in partition order) cannot be placed on
// the single broker `node_id`, or nullopt when they can.
std::optional<std::string> invalid_replica_assignment(
    const std::vector<const std::vector<int32_t>*>& replica_lists, int32_t node_id);

}  // namespace skiff::broker
