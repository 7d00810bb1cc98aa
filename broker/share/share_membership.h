// The seam between a share group's membership (broker/group/share/: ShareGroupHeartbeat, the
// group coordinator) and its share-partitions (broker/share/: ShareFetch, ShareAcknowledge, the
// acquisition locks and their state in __share_group_state). ShareFetch and ShareAcknowledge
// ask it whether a member is one, and what the group's settings are; the membership side tells
// the share-partitions when a member leaves (its acquired records are released, its share
// session goes) and when a group is deleted (its share-partition state goes).
//
// Thread-safety: implementations may be called from any I/O thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "broker/share/share_group_config.h"
#include "protocol/error_code.h"

namespace skiff::broker::share {

class ShareMembership {
  public:
    virtual ~ShareMembership() = default;

    // NONE when `member_id` is a member of share group `group_id` now; GROUP_ID_NOT_FOUND when
    // there is no share group of that id (or the id is another type's group), UNKNOWN_MEMBER_ID
    // when the group has no such member. Kafka's ShareFetch / ShareAcknowledge answer these.
    virtual protocol::ErrorCode check_member(const std::string& group_id,
                                             const std::string& member_id) const = 0;

    // The group's settings now: the broker defaults with the group's own configs applied (a
    // group without configs, or an unknown one, gets the defaults).
    virtual ShareGroupConfig config(const std::string& group_id) const = 0;

    // Called (after the membership's own lock is released) when a member leaves the group on its
    // own (a heartbeat with epoch -1: the client is closing, its final ShareAcknowledge may be on
    // its way), when one is fenced (session timeout: the client is gone; member_left when
    // member_fenced is not set), and when a group is deleted. Set once, at start-up.
    struct Listener {
        std::function<void(const std::string& group_id, const std::string& member_id)> member_left;
        std::function<void(const std::string& group_id)> group_deleted;
        std::function<void(const std::string& group_id, const std::string& member_id)>
            member_fenced;
    };
    virtual void set_listener(Listener listener) = 0;

    // For the admin APIs (DescribeShareGroupOffsets, AlterShareGroupOffsets,
    // DeleteShareGroupOffsets: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP): the number of members of
    // share group `group_id` now, or nullopt when there is no share group of that id (none, or
    // another type's group). Added after the seam was cut, with a default that knows of no
    // share group until the membership side overrides it.
    virtual std::optional<int32_t> share_group_size(const std::string& group_id) const {
        (void)group_id;
        return std::nullopt;
    }
};

}  // namespace skiff::broker::share
