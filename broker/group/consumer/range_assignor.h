// The "range" assignor (Kafka's server-side RangeAssignor): topic by topic, the subscribers in
// member id order share the partitions in ranges. With P partitions and N subscribers the first
// P % N members get ceil(P / N) and the others floor(P / N), so members subscribed to the same
// co-partitioned topics (same partition count) get the same partition numbers in each, which
// lets them join those topics locally.
//
// Sticky as Kafka's: a member keeps its lowest-numbered current partitions of a topic up to its
// quota; the rest of each quota is filled from the unheld partitions in ascending order, members
// in id order. From co-partitioned current assignments the result stays co-partitioned.
#pragma once

#include <string_view>

#include "broker/group/consumer/assignor.h"

namespace skiff::broker::group::consumer {

class RangeAssignor final : public Assignor {
  public:
    std::string_view name() const override { return "range"; }
    AssignorOutput assign(const AssignorInput& input) const override;
};

}  // namespace skiff::broker::group::consumer
