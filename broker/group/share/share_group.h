// One KIP-932 share group (Kafka's ShareGroup): its epochs, its members and the target
// assignment the simple assignor computed. Share groups have no revocation step: a partition
// may be read by several members at once (the share-partition's acquisition locks keep each
// record with one member), so a member holds its target assignment as soon as it heartbeats,
// and its epoch moves straight to the assignment epoch.
//
//   group epoch       bumped whenever the membership, a subscription or the partitions of a
//                     subscribed topic change;
//   assignment epoch  the group epoch the target assignment was computed for;
//   member epoch      each member's; the assignment epoch after its next heartbeat.
//
// States as Kafka's ShareGroupState: Empty (no members), Stable, Dead (deleted).
//
// Not thread-safe: the GroupCoordinator guards every group with its mutex.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/group/consumer/assignor.h"
#include "broker/group/group.h"

namespace skiff::broker::group::share {

using consumer::Assignment;

inline constexpr int32_t kLeaveGroupEpoch = -1;

struct ShareMember {
    std::string member_id;
    std::optional<std::string> rack_id;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;  // sorted, unique
    int32_t member_epoch = 0;
    int32_t previous_member_epoch = 0;
    Assignment assigned;
    int64_t session_deadline_ms = 0;  // removed when the clock passes this without a heartbeat
};

class ShareGroup final : public Group {
  public:
    static constexpr GroupType kType = GroupType::share;

    ShareGroup(std::string id, int64_t empty_since_wall_ms)
        : Group(kType, std::move(id)), empty_since_wall_ms_(empty_since_wall_ms) {}

    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::map<std::string, Assignment> target;    // member id -> target assignment
    std::map<std::string, int32_t> topic_sizes;  // subscribed topics' partition counts
    bool dead = false;
    // What the records written last said (share_records.h), to write only changes.
    int32_t persisted_group_epoch = -1;
    int32_t persisted_assignment_epoch = -1;
    std::set<std::string>& changed_members() { return changed_members_; }

    const std::map<std::string, ShareMember>& members() const { return members_; }
    const ShareMember* member(const std::string& member_id) const;
    void put(ShareMember member);
    // Removes the member and its target. False when unknown.
    bool remove(const std::string& member_id, int64_t now_wall_ms);
    // Every topic some member subscribes to, from counts kept by put() and remove().
    std::set<std::string> subscribed_topic_names() const;

    const char* state() const;  // "Empty", "Stable" or "Dead"

    // Group
    protocol::ListedGroup listed() const override;
    protocol::DescribedGroup described() const override;
    bool is_dead() const override { return dead; }
    size_t member_count() const override { return members_.size(); }
    std::optional<int64_t> empty_since() const override;
    protocol::ErrorCode validate_offset_commit(int32_t generation_id, const std::string& member_id,
                                               const std::optional<std::string>& group_instance_id,
                                               bool transactional, int16_t api_version,
                                               int64_t now_ms) override;
    protocol::ErrorCode validate_delete() const override;
    protocol::ErrorCode validate_offset_delete() const override;
    std::set<std::string> subscribed_topics() const override { return subscribed_topic_names(); }
    void take_records(GroupRecords& out, const TopicView& topics, bool everything) override;

  private:
    std::map<std::string, ShareMember> members_;
    std::map<std::string, int> name_refs_;  // subscribed topic name -> members naming it
    std::set<std::string> changed_members_;
    int64_t empty_since_wall_ms_ = 0;
};

}  // namespace skiff::broker::group::share
