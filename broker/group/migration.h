// Online migration between the classic and the consumer group protocols (Kafka 4.0, KIP-848),
// as group.consumer.migration.policy allows:
//   upgrade    a consumer-protocol member joining a classic group that has members and uses the
//              "consumer" protocol type: the group becomes a consumer group in which every
//              classic member keeps its partitions at a member epoch equal to its generation
//              (and is served through JoinGroup/SyncGroup/Heartbeat from then on, see
//              consumer/classic_members.cpp). Members waiting in a join or sync phase are told
//              REBALANCE_IN_PROGRESS and join again.
//   downgrade  when the last consumer-protocol member leaves (or is expired) and classic
//              members remain: the group becomes a classic group of those members, at a
//              generation equal to the group epoch, each with its target assignment, and
//              rebalances (its members learn it from their next heartbeat).
// Committed offsets belong to the group id and stay through both.
#pragma once

#include <memory>
#include <string>

#include "broker/group/classic/classic_group.h"
#include "broker/group/consumer/consumer_group.h"
#include "broker/group/group.h"
#include "broker/group/topic_view.h"
#include "protocol/expected.h"

namespace skiff::broker::group {

struct MigrationPolicy {
    bool upgrade = true;
    bool downgrade = true;
};
// bidirectional, upgrade, downgrade or disabled (any case); bidirectional for anything else.
MigrationPolicy parse_migration_policy(const std::string& value);

// The consumer group `g` becomes (an error when a member's embedded subscription or assignment
// cannot be read: the group stays classic). Completes waiting joins and syncs with
// REBALANCE_IN_PROGRESS through `deferred`.
Expected<std::unique_ptr<consumer::ConsumerGroup>, std::string> to_consumer_group(
    ClassicGroup& g, const TopicView& topics, int64_t now_ms, Deferred& deferred);

// Whether `g` should go back to classic: it has members, every one of them classic.
bool only_classic_members(const consumer::ConsumerGroup& g);
// The classic group `g` becomes, Stable at generation = group epoch (the caller rebalances it).
std::unique_ptr<ClassicGroup> to_classic_group(const consumer::ConsumerGroup& g, int64_t now_ms);

}  // namespace skiff::broker::group
