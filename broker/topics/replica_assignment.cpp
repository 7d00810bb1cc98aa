#include "broker/topics/replica_assignment.h"

#include <algorithm>

namespace skiff::broker {

std::optional<std::string> invalid_replica_assignment(
    const std::vector<const std::vector<int32_t>*>& replica_lists, int32_t node_id) {
    const size_t replication_factor = replica_lists.empty() ? 0 : replica_lists.front()->size();
    for (size_t p = 0; p < replica_lists.size(); ++p) {
        const auto& brokers = *replica_lists[p];
        if (brokers.empty())
            return "the replica list of partition " + std::to_string(p) + " is empty";
        if (brokers.size() != replication_factor)
            return "all partitions must have the same number of replicas";
        for (size_t i = 0; i < brokers.size(); ++i) {
            if (std::find(brokers.begin(), brokers.begin() + static_cast<std::ptrdiff_t>(i),
                          brokers[i]) != brokers.begin() + static_cast<std::ptrdiff_t>(i))
                return "duplicate broker " + std::to_string(brokers[i]) +
                       " in the replica list of partition " + std::to_string(p);
            if (brokers[i] != node_id)
                return "unknown broker " + std::to_string(brokers[i]) +
                       " in the replica list of partition " + std::to_string(p) +
                       ": this cluster is one broker, node " + std::to_string(node_id);
        }
    }
    return std::nullopt;
}

}  // namespace skiff::broker
