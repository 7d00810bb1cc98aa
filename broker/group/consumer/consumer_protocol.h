// The consumer group protocol's requests (Kafka's GroupMetadataManager consumerGroup* paths):
// ConsumerGroupHeartbeat and ConsumerGroupDescribe over the consumer groups of the registry, and
// their deadlines (session timeouts, revocations that take longer than the member's rebalance
// timeout). The GroupCoordinator forwards to it under its mutex.
//
// One heartbeat does, in order: validate the request; find or create the group and the member
// (epoch 0 joins, -1 leaves, -2 is a static member's temporary leave), fencing an epoch that is
// not the member's; apply its subscription; bump the group epoch when the membership, a
// subscription or a subscribed topic's partitions changed; compute the target assignment with
// the group's assignor when the group epoch is ahead of it; reconcile the member towards its
// target (reconciliation.h). Nothing waits: members learn of changes on their next heartbeat,
// which the heartbeat interval paces.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "broker/group/classic/classic_group.h"
#include "broker/group/classic/classic_protocol.h"
#include "broker/group/consumer/consumer_group.h"
#include "broker/group/group.h"
#include "broker/group/group_registry.h"
#include "broker/group/topic_view.h"

namespace skiff::broker::group::consumer {

struct ConsumerConfig {
    int32_t heartbeat_interval_ms = 5000;  // group.consumer.heartbeat.interval.ms
    int32_t session_timeout_ms = 45000;    // group.consumer.session.timeout.ms
    int32_t max_size = INT32_MAX;          // group.consumer.max.size
    std::vector<std::string> assignors = {"uniform", "range"};  // group.consumer.assignors
};

struct HeartbeatParams {
    int16_t api_version = 0;
    std::string group_id;
    std::string member_id;
    int32_t member_epoch = 0;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t rebalance_timeout_ms = -1;
    std::optional<std::vector<std::string>> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    std::optional<std::string> server_assignor;
    std::optional<Assignment> owned;  // null: unchanged since the last heartbeat
    std::string client_id;
    std::string client_host;
    // The group's own consumer.session.timeout.ms / consumer.heartbeat.interval.ms (its group
    // configs), when set: they take the place of the broker's for this heartbeat.
    std::optional<int32_t> session_timeout_ms;
    std::optional<int32_t> heartbeat_interval_ms;
};

struct HeartbeatResult {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    std::optional<std::string> error_message;
    std::string member_id;
    int32_t member_epoch = 0;
    int32_t heartbeat_interval_ms = 0;
    std::optional<Assignment> assignment;  // sent when it changed, or to a full request
};

struct DescribedMember {
    ConsumerMember member;
    Assignment target;
};
struct DescribedConsumerGroup {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;
    std::vector<DescribedMember> members;
};

class ConsumerProtocol {
  public:
    ConsumerProtocol(ConsumerConfig config, GroupRegistry& groups, Clock now);

    HeartbeatResult heartbeat(const HeartbeatParams& p, const TopicView& topics);
    DescribedConsumerGroup describe(const std::string& group_id) const;
    // Expires members whose session or revocation deadline has passed.
    void tick(int64_t now_ms);

    // Classic members in a consumer group (classic_members.cpp; Kafka 4.0's online migration):
    // JoinGroup, SyncGroup, Heartbeat and LeaveGroup of a member that speaks the classic
    // protocol, served from the consumer group's own assignment. The member joins as a follower
    // (no leader: the coordinator assigns), its generation is its member epoch, and its
    // heartbeat answers REBALANCE_IN_PROGRESS when it must join again to move on. As in Kafka,
    // one that does not sync within its rebalance timeout of joining, or join within it of
    // being told to, is removed at the next tick().
    void classic_join(ConsumerGroup& g, const JoinParams& p, const TopicView& topics,
                      const JoinCallback& done, Deferred& deferred);
    SyncResult classic_sync(ConsumerGroup& g, const SyncParams& p);
    protocol::ErrorCode classic_heartbeat(ConsumerGroup& g, int32_t generation_id,
                                          const std::string& member_id,
                                          const std::optional<std::string>& instance_id);
    protocol::ErrorCode classic_leave(ConsumerGroup& g, const std::string& member_id,
                                      const std::optional<std::string>& instance_id);
    const ConsumerConfig& config() const { return config_; }

  private:
    // The member a classic request names (by instance id for a static member), or the error.
    struct ClassicFound {
        const ConsumerMember* member = nullptr;
        protocol::ErrorCode error = protocol::ErrorCode::none;
    };
    ClassicFound find_classic_member(const ConsumerGroup& g, const std::string& member_id,
                                     const std::optional<std::string>& instance_id) const;
    // A classic member told to join again: it must within its rebalance timeout of the first
    // time it was told (Kafka's join timeout, scheduled if absent).
    void await_rejoin(ConsumerMember& m) const;
    std::optional<HeartbeatResult> invalid(const HeartbeatParams& p) const;
    HeartbeatResult leave(ConsumerGroup& g, const HeartbeatParams& p);
    // The member this heartbeat is from, created or rejoining when the epoch is 0; an error
    // result when it is not that member's.
    struct Found {
        ConsumerMember member;
        bool is_new = false;
        std::optional<HeartbeatResult> error;
    };
    Found find_member(ConsumerGroup& g, const HeartbeatParams& p);
    // The group epoch moves on when `changed` or a subscribed topic's partitions changed.
    void maybe_bump(ConsumerGroup& g, bool changed, const TopicView& topics);
    void compute_target(ConsumerGroup& g);
    // Compiles a pattern new to the group (resolved from the next call on, as Kafka resolves it
    // asynchronously), re-resolves those older than kRegexRefreshMs and drops those no member
    // uses. An error result for a pattern that does not compile.
    std::optional<HeartbeatResult> refresh_regexes(ConsumerGroup& g,
                                                   const std::optional<std::string>& pattern,
                                                   const TopicView& topics, int64_t now);
    std::string choose_assignor(const ConsumerGroup& g) const;
    void remove_member(ConsumerGroup& g, const std::string& member_id);
    std::string new_member_id();

    ConsumerConfig config_;
    GroupRegistry& groups_;
    Clock now_;
    std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace skiff::broker::group::consumer
