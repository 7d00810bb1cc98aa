// One group of the KIP-848 consumer group protocol (Kafka's ConsumerGroup): its epochs, its
// members, the target assignment the assignor computed and who owns which partition now.
//
//   group epoch       bumped whenever the membership, a subscription or the partitions of a
//                     subscribed topic change;
//   assignment epoch  the group epoch the target assignment was computed for (computed on the
//                     next heartbeat after a bump);
//   member epoch      each member's, reaching the assignment epoch once it holds its target.
//
// States, as ListGroups and ConsumerGroupDescribe report them: Empty (no members), Assigning
// (the group epoch is ahead of the assignment epoch), Reconciling (a member has not reached
// its target yet), Stable. Dead: deleted, dropped right after.
//
// Plain data plus the bookkeeping that keeps `owners` in step with the members; the requests'
// rules are ConsumerProtocol's (consumer_protocol.h). Not thread-safe: the GroupCoordinator
// guards every group with its mutex.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "broker/group/consumer/consumer_member.h"
#include "broker/group/consumer/topic_regex.h"
#include "broker/group/group.h"

namespace skiff::broker::group::consumer {

class ConsumerGroup final : public Group {
  public:
    static constexpr GroupType kType = GroupType::consumer;

    ConsumerGroup(std::string id, int64_t empty_since_ms)
        : Group(kType, std::move(id)), empty_since_wall_ms_(empty_since_ms) {}

    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;                   // the assignor of the current target
    std::map<std::string, Assignment> target;    // member id -> its target assignment
    std::map<std::string, int32_t> topic_sizes;  // subscribed topics' partition counts, at the
                                                 // last group epoch bump
    std::map<std::string, std::string> static_members;  // instance id -> member id
    // The members' regular expressions and the topics each matched when last resolved.
    struct ResolvedRegex {
        std::shared_ptr<const TopicRegex> regex;
        std::set<std::string> topics;
        int64_t resolved_ms = 0;
        int64_t topics_changed_wall_ms = 0;  // when `topics` last changed (its record's time)
    };
    std::map<std::string, ResolvedRegex> regexes;
    bool dead = false;
    // What the records written last said (consumer_records.h), to write only changes.
    int32_t persisted_group_epoch = -1;
    int32_t persisted_assignment_epoch = -1;
    std::map<std::string, int64_t> persisted_regexes;  // pattern -> topics_changed_wall_ms
    // Members put or removed since the records were last taken (and cleared there).
    std::set<std::string>& changed_members() { return changed_members_; }

    const std::map<std::string, ConsumerMember>& members() const { return members_; }
    const ConsumerMember* member(const std::string& member_id) const;
    // Adds or replaces the member, keeping the owners in step.
    void put(ConsumerMember member);
    // Removes the member (its partitions become free) and its target. False when unknown.
    bool remove(const std::string& member_id, int64_t now_wall_ms);
    // Whether a member other than `member_id` owns the partition (assigned or being revoked).
    bool owned_elsewhere(const std::string& topic, int32_t partition,
                         const std::string& member_id) const;
    // Every topic some member subscribes to, by name or through its regular expression. From
    // counts kept by put() and remove(): a heartbeat must not walk every member (a group of
    // 1,000 idle members spent 3.5% of a core doing that, 200 heartbeats a second).
    std::set<std::string> subscribed_topic_names() const;
    // The regular expressions members use, with how many use each.
    const std::map<std::string, int>& regex_users() const { return regex_refs_; }
    // One member's topics: its names and what its regular expression matched.
    std::set<std::string> subscription_of(const ConsumerMember& m) const;

    // "Empty", "Assigning", "Reconciling" or "Stable" (or "Dead").
    const char* state() const;

    // Group
    protocol::ListedGroup listed() const override;
    protocol::DescribedGroup described() const override;
    bool is_dead() const override { return dead; }
    size_t member_count() const override { return members_.size(); }
    std::optional<int64_t> empty_since() const override;
    protocol::ErrorCode validate_offset_commit(int32_t member_epoch, const std::string& member_id,
                                               const std::optional<std::string>& group_instance_id,
                                               bool transactional, int16_t api_version,
                                               int64_t now_ms) override;
    protocol::ErrorCode validate_delete() const override;
    protocol::ErrorCode validate_offset_delete() const override;
    std::set<std::string> subscribed_topics() const override { return subscribed_topic_names(); }
    void take_records(GroupRecords& out, const TopicView& topics, bool everything) override;

    // OffsetFetch v9+ from a member: NONE, UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH. A fetch
    // without a member id (member epoch -1: an admin client) is always answered.
    protocol::ErrorCode validate_offset_fetch(const std::optional<std::string>& member_id,
                                              int32_t member_epoch) const;

  private:
    void forget_owner(const ConsumerMember& m);
    void record_owner(const ConsumerMember& m);
    void count_subscription(const ConsumerMember& m, int delta);

    std::map<std::string, ConsumerMember> members_;
    std::map<std::pair<std::string, int32_t>, std::string> owners_;  // (topic, partition) -> member
    std::map<std::string, int> name_refs_;   // subscribed topic name -> members naming it
    std::map<std::string, int> regex_refs_;  // pattern -> members using it
    std::set<std::string> changed_members_;
    int64_t empty_since_wall_ms_ = 0;
};

}  // namespace skiff::broker::group::consumer
