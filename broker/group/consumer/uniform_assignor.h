// The "uniform" assignor (Kafka's server-side UniformAssignor, the default): spreads all the
// subscribed partitions evenly over the members, moving as few as possible from their current
// owners.
//
// Balanced: no partition could move to another member subscribed to its topic that holds at least
// two partitions fewer than its owner. With identical subscriptions this means the members'
// partition counts differ by at most one; with different subscriptions it is the best a single
// move can reach. Sticky: a member keeps its current partitions unless the balance needs them
// elsewhere, so a joining member takes only what it must from each other member and a leaving
// member's partitions are the only ones to move.
#pragma once

#include <string_view>

#include "broker/group/consumer/assignor.h"

namespace skiff::broker::group::consumer {

class UniformAssignor final : public Assignor {
  public:
    std::string_view name() const override { return "uniform"; }
    AssignorOutput assign(const AssignorInput& input) const override;
};

}  // namespace skiff::broker::group::consumer
