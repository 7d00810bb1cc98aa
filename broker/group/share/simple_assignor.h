// Kafka's SimpleAssignor for share groups, as Kafka 4.1+ does it (its homogeneous and
// heterogeneous builders): partitions are spread so that members' loads differ by at most one,
// and a partition is shared by several members only when a topic has more subscribers than
// partitions (each partition then has ceil(subscribers / partitions) members). Kafka 4.0's
// first simple assignor gave every member every partition; 4.1 replaced it because every
// member fetching from every partition made each fetch contend for the same records.
//
// skiff balances each topic among its own subscribers (for a group whose members all
// subscribe to the same single topic, the common case, that is Kafka's homogeneous result),
// and is sticky: a member keeps the partitions it had as far as balance allows.
#pragma once

#include <map>
#include <set>
#include <string>

#include "broker/group/consumer/assignor.h"

namespace skiff::broker::group::share {

struct SimpleAssignorMember {
    std::set<std::string> subscribed_topics;
    consumer::Assignment current;  // its target until now (stickiness)
};

// member id -> its new target. `topics`: subscribed topics' partition counts (a topic not in it
// does not exist and is assigned to no one).
std::map<std::string, consumer::Assignment> simple_assign(
    const std::map<std::string, SimpleAssignorMember>& members,
    const std::map<std::string, int32_t>& topics);

}  // namespace skiff::broker::group::share
