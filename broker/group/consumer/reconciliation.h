// Moving a member's assignment towards its target (Kafka's CurrentAssignmentBuilder), one
// heartbeat at a time:
//
//  - a member that owns partitions its target no longer has keeps its epoch, is told to keep
//    only the rest, and waits in unrevoked_partitions until a heartbeat lists none of them as
//    owned (or, when it sends no owned list, until it does);
//  - then it moves to the target epoch and gets every target partition that no other member
//    still owns (assigned or pending revocation); the others it waits for in
//    unreleased_partitions and gets on a later heartbeat, once their owner has let them go.
//
// So a partition is never assigned to two members at once. Pure: the group's bookkeeping of who
// owns what comes in as `owner_of`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "broker/group/consumer/consumer_member.h"

namespace skiff::broker::group::consumer {

// Whether some member other than `member_id` owns the partition (it is assigned to it or it is
// pending its revocation).
using OwnedElsewhere =
    std::function<bool(const std::string& topic, int32_t partition, const std::string& member_id)>;

// The member after this heartbeat. `owned`: the partitions the heartbeat says the client owns
// (null when it did not say).
ConsumerMember reconcile(const ConsumerMember& member, int32_t target_epoch,
                         const Assignment& target, const std::optional<Assignment>& owned,
                         const OwnedElsewhere& owned_elsewhere);

// Whether every partition of `part` is in `whole`.
bool is_subset(const Assignment& part, const Assignment& whole);

}  // namespace skiff::broker::group::consumer
