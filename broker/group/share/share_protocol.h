// The share group protocol's requests (Kafka's GroupMetadataManager shareGroup* paths):
// ShareGroupHeartbeat and ShareGroupDescribe over the share groups of the registry, and their
// session deadlines. The GroupCoordinator forwards to it under its mutex.
//
// One heartbeat: validate the request (Kafka's throwIfShareGroupHeartbeatRequestIsInvalid); find
// or create the group (a group id another type holds: GROUP_ID_NOT_FOUND) and the member (epoch
// 0 joins with the member id the client generated, -1 leaves, any other epoch must be the
// member's: FENCED_MEMBER_EPOCH, or UNKNOWN_MEMBER_ID for a member the group does not have);
// apply its subscription; bump the group epoch when the membership, a subscription or a
// subscribed topic's partitions changed; compute the target assignment with the simple
// assignor; hand the member its target at the assignment epoch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/group/group.h"
#include "broker/group/group_registry.h"
#include "broker/group/share/share_group.h"
#include "broker/group/topic_view.h"

namespace skiff::broker::group::share {

struct ShareConfig {
    int32_t heartbeat_interval_ms = 5000;  // group.share.heartbeat.interval.ms
    int32_t session_timeout_ms = 45000;    // group.share.session.timeout.ms
    int32_t max_size = 200;                // group.share.max.size
};

struct HeartbeatParams {
    std::string group_id;
    std::string member_id;
    int32_t member_epoch = 0;
    std::optional<std::string> rack_id;
    std::optional<std::vector<std::string>> subscribed_topic_names;  // null: unchanged
    std::string client_id;
    std::string client_host;
    // The group's own share.session.timeout.ms / share.heartbeat.interval.ms, when set.
    std::optional<int32_t> session_timeout_ms;
    std::optional<int32_t> heartbeat_interval_ms;
};

struct HeartbeatResult {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    std::optional<std::string> error_message;
    std::string member_id;
    int32_t member_epoch = 0;
    int32_t heartbeat_interval_ms = 0;
    std::optional<Assignment> assignment;  // sent when it changed, or to a joining member
    bool left = false;                     // the member left (epoch -1)
};

struct DescribedShareGroup {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::vector<ShareMember> members;
};

inline constexpr const char* kSimpleAssignorName = "simple";

class ShareProtocol {
  public:
    ShareProtocol(ShareConfig config, GroupRegistry& groups, Clock now);

    HeartbeatResult heartbeat(const HeartbeatParams& p, const TopicView& topics);
    DescribedShareGroup describe(const std::string& group_id) const;
    // Expires members whose session deadline passed; their ids in `expired` (group, member).
    void tick(int64_t now_ms, std::vector<std::pair<std::string, std::string>>& expired);
    const ShareConfig& config() const { return config_; }

  private:
    void maybe_bump(ShareGroup& g, bool changed, const TopicView& topics);
    void compute_target(ShareGroup& g);
    void remove_member(ShareGroup& g, const std::string& member_id);

    ShareConfig config_;
    GroupRegistry& groups_;
    Clock now_;
};

}  // namespace skiff::broker::group::share
