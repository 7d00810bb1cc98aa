// What the coordinator needs of a group, whatever protocol its members speak (Kafka's
// group-coordinator Group interface). Each group type is an implementation in a folder of its
// own, with its own requests: classic/ (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and
// consumer/ (KIP-848's ConsumerGroupHeartbeat); a KIP-932 share group will be one more. The
// coordinator's shared work (routing by group id, listing, describing, deletion, offset commits
// and their expiry) applies to each unchanged.
//
// Not thread-safe: the GroupCoordinator owns every group and calls these under its mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/record_codec.h"
#include "broker/group/topic_view.h"
#include "protocol/describe_groups.h"
#include "protocol/error_code.h"
#include "protocol/list_groups.h"

namespace skiff::broker::group {

// ListGroups v5's group_type: "classic", "consumer" (KIP-848), "share" (KIP-932).
enum class GroupType { classic, consumer, share };
std::string_view type_name(GroupType type);

// Answers decided under the coordinator's mutex, run once it is released: they post to the
// waiting connections, which must never happen with the lock held.
using Deferred = std::vector<std::function<void()>>;
// Monotonic milliseconds, for session and rebalance deadlines.
using Clock = std::function<int64_t()>;

class Group {
  public:
    virtual ~Group() = default;
    Group(const Group&) = delete;
    Group& operator=(const Group&) = delete;

    GroupType type() const { return type_; }
    const std::string& group_id() const { return group_id_; }

    // ListGroups' row and DescribeGroups' answer for this group.
    virtual protocol::ListedGroup listed() const = 0;
    virtual protocol::DescribedGroup described() const = 0;
    // A dead group is being deleted: ListGroups leaves it out and requests for it are refused.
    virtual bool is_dead() const = 0;
    // How many members it has now (the skiff_group_members metric).
    virtual size_t member_count() const = 0;
    // Wall-clock ms since the group has had no members, nullopt while it has some: its
    // committed offsets start to age (offsets.retention.minutes) only once it is empty.
    virtual std::optional<int64_t> empty_since() const = 0;
    bool is_empty() const { return empty_since().has_value(); }

    // Whether a member may commit offsets now, NONE or the error every partition gets. May
    // extend the member's session (a commit shows it is alive). `generation_id` is the member
    // epoch of a consumer group's member (OffsetCommit v9 renamed the field). `transactional`:
    // from TxnOffsetCommit, whose producer the transaction coordinator already vouched for.
    // `api_version`: the OffsetCommit version (a consumer group's members must use v9+).
    virtual protocol::ErrorCode validate_offset_commit(
        int32_t generation_id, const std::string& member_id,
        const std::optional<std::string>& group_instance_id, bool transactional,
        int16_t api_version, int64_t now_ms) = 0;
    // DeleteGroups: NONE when the group may go, else NON_EMPTY_GROUP.
    virtual protocol::ErrorCode validate_delete() const = 0;
    // OffsetDelete on a group that is not empty: NONE when the offsets of topics no member
    // subscribes to (subscribed_topics) may go, else the error of the whole request.
    virtual protocol::ErrorCode validate_offset_delete() const = 0;
    virtual std::set<std::string> subscribed_topics() const = 0;

    // The records of __consumer_offsets (record_codec.h, in Kafka's format for the type) for what
    // changed in the group since the last call; `everything`: its whole state. Cheap when
    // nothing changed: the coordinator asks after every request and every tick.
    virtual void take_records(GroupRecords& out, const TopicView& topics, bool everything) = 0;

  protected:
    Group(GroupType type, std::string group_id) : type_(type), group_id_(std::move(group_id)) {}

  private:
    GroupType type_;
    std::string group_id_;
};

}  // namespace skiff::broker::group
