// One member of a KIP-848 consumer group (Kafka's ConsumerGroupMember): who it is, what it
// subscribes to, and where it stands in reconciling its assignment with the group's target.
//
// A member's assignment moves towards its target assignment in steps the client acknowledges
// (reconciliation.h): partitions it must give up are first pending revocation, and only once
// its heartbeat no longer lists them as owned can another member be given them. Until then the
// other member waits for them as "unreleased".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/group/consumer/assignor.h"

namespace skiff::broker::group::consumer {

// Kafka's MemberState.
enum class MemberState {
    stable,                 // holds its whole target assignment (of its epoch)
    unrevoked_partitions,   // must revoke partitions before it moves to the next epoch
    unreleased_partitions,  // in the target epoch, waiting for partitions others still own
};
const char* state_name(MemberState state);

// A member epoch of -2 in a heartbeat: a static member leaving for a moment (it keeps its place
// and assignment until its session times out); -1: a member leaving for good.
inline constexpr int32_t kLeaveGroupEpoch = -1;
inline constexpr int32_t kLeaveGroupStaticEpoch = -2;

// A member that speaks the classic protocol (JoinGroup, SyncGroup, Heartbeat) in a consumer
// group, during an online migration (classic_members.h): its session timeout and the protocols
// of its JoinGroup (name, ConsumerProtocolSubscription metadata), in its order of preference.
struct ClassicMembership {
    int32_t session_timeout_ms = 0;
    std::vector<std::pair<std::string, std::vector<std::byte>>> protocols;
    friend bool operator==(const ClassicMembership&, const ClassicMembership&) = default;
};

struct ConsumerMember {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    std::string client_id;
    std::string client_host;
    int32_t rebalance_timeout_ms = 0;
    std::vector<std::string> subscribed_topic_names;    // as the client sent them, sorted
    std::optional<std::string> subscribed_topic_regex;  // v1 (topic_regex.h)
    std::optional<std::string> server_assignor;         // null: the group's default
    std::optional<ClassicMembership> classic;           // null: a consumer-protocol member

    MemberState state = MemberState::stable;
    int32_t member_epoch = 0;
    int32_t previous_member_epoch = 0;
    Assignment assigned;            // what it may consume now
    Assignment pending_revocation;  // what it must give up before moving on

    int64_t session_deadline_ms = 0;     // removed when the clock passes this without a heartbeat
    int64_t revocation_deadline_ms = 0;  // while unrevoked_partitions: fenced after this
    // A classic member, as Kafka times it: removed when it sends no SyncGroup within its
    // rebalance timeout of its JoinGroup, or no JoinGroup within it of being told to rejoin,
    // however it keeps heartbeating (0: not waiting for one).
    int64_t classic_sync_deadline_ms = 0;
    int64_t classic_join_deadline_ms = 0;
};

}  // namespace skiff::broker::group::consumer
