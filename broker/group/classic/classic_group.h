// One group of the classic group protocol (Kafka's ClassicGroup, formerly GroupMetadata): its
// state, its generation, its members and what each member is waiting for.
//
//   Empty ──join──▶ PreparingRebalance ──all rejoined / timeout──▶ CompletingRebalance
//     ▲                 ▲        │ (no member left)                    │ leader's SyncGroup
//     │                 │        ▼                                     ▼
//     └─────────────────┴──── Empty                      Stable ◀──────┘
//   A join, a leave or an expired member in CompletingRebalance or Stable goes back to
//   PreparingRebalance, except a static member (group.instance.id) restarting in Stable: it
//   takes over its old place and assignment (KIP-345). Dead: the group was deleted; its object
//   is dropped right after.
//
// Plain data plus the decisions that need no clock or lock (protocol choice, "has everyone
// rejoined", who may commit); the transitions are ClassicProtocol's (classic_protocol.h). Not
// thread-safe: the GroupCoordinator owns every group and guards them with its mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "broker/group/group.h"
#include "protocol/error_code.h"
#include "protocol/join_group.h"

namespace skiff::broker::group {

enum class ClassicGroupState { empty, preparing_rebalance, completing_rebalance, stable, dead };

// Kafka's names, as DescribeGroups and ListGroups report them.
const char* state_name(ClassicGroupState state);

struct JoinResult {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    int32_t generation_id = -1;
    std::string protocol_type;
    std::optional<std::string> protocol_name;
    std::string leader;
    std::string member_id;
    std::vector<protocol::JoinGroupResponseMember> members;  // filled for the leader only
    bool skip_assignment = false;  // JoinGroup v9+: a restarted static leader, see ClassicProtocol
};
using JoinCallback = std::function<void(JoinResult)>;

struct SyncResult {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    std::string protocol_type;
    std::optional<std::string> protocol_name;
    std::vector<std::byte> assignment;
};
using SyncCallback = std::function<void(SyncResult)>;

// (protocol name, metadata) in the member's order of preference.
using ProtocolList = std::vector<std::pair<std::string, std::vector<std::byte>>>;

struct ClassicMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    int32_t session_timeout_ms = 0;
    int32_t rebalance_timeout_ms = 0;
    std::string protocol_type;
    ProtocolList protocols;
    std::vector<std::byte> assignment;
    int64_t session_deadline_ms = 0;  // evicted when the clock passes this without a heartbeat
    JoinCallback awaiting_join;       // set while its JoinGroup waits for the rebalance
    SyncCallback awaiting_sync;       // set while its SyncGroup waits for the leader

    bool supports(const std::string& protocol) const;
    const std::vector<std::byte>* metadata_for(const std::string& protocol) const;
};

class ClassicGroup final : public Group {
  public:
    static constexpr GroupType kType = GroupType::classic;

    ClassicGroup(std::string id, int64_t empty_since_ms)
        : Group(kType, std::move(id)), empty_since_wall_ms(empty_since_ms) {}

    ClassicGroupState state = ClassicGroupState::empty;
    int32_t generation_id = 0;
    std::string protocol_type;
    std::optional<std::string> protocol_name;  // chosen at the end of each join phase
    std::string leader_id;
    std::map<std::string, ClassicMember> members;
    // Member ids handed out with MEMBER_ID_REQUIRED, not yet used to join; each expires at its
    // deadline. The join phase waits for them as for members, as Kafka does.
    std::map<std::string, int64_t> pending_members;
    std::map<std::string, std::string> static_members;  // group.instance.id -> member id
    int64_t rebalance_deadline_ms = 0;                  // end of the join phase
    // While the first rebalance of an empty group waits group.initial.rebalance.delay.ms for
    // more members: the latest the phase may be extended to.
    bool initial_delay = false;
    int64_t initial_delay_limit_ms = 0;
    int64_t empty_since_wall_ms = 0;  // for offsets.retention.minutes
    // Bumped when a member is replaced without a new generation (a static member's restart), so
    // that the group's record is written again (classic_records.h).
    uint32_t member_changes = 0;
    // What the record written last said, to write only changes.
    struct Persisted {
        ClassicGroupState state;
        int32_t generation_id;
        size_t members;
        uint32_t member_changes;
        friend bool operator==(const Persisted&, const Persisted&) = default;
    };
    std::optional<Persisted> persisted;

    bool all_members_joined() const;
    // Protocols every member supports, each member voting for its favourite among them; the
    // most voted wins (ties: the leader's preference order). nullopt when there is none.
    std::optional<std::string> select_protocol() const;
    // Whether a joining member with these protocols shares at least one with every member.
    bool supports_protocols(const std::string& type, const ProtocolList& protocols) const;
    int32_t max_rebalance_timeout_ms() const;
    // The member bound to a group.instance.id, or nullptr.
    const std::string* static_member_id(const std::optional<std::string>& instance_id) const;
    // A static member's request must carry the member id currently bound to its instance id.
    bool fenced(const std::optional<std::string>& instance_id, const std::string& member_id) const;

    // Group
    protocol::ListedGroup listed() const override;
    protocol::DescribedGroup described() const override;
    bool is_dead() const override { return state == ClassicGroupState::dead; }
    size_t member_count() const override { return members.size(); }
    std::optional<int64_t> empty_since() const override;
    protocol::ErrorCode validate_offset_commit(int32_t generation, const std::string& member_id,
                                               const std::optional<std::string>& group_instance_id,
                                               bool transactional, int16_t api_version,
                                               int64_t now_ms) override;
    protocol::ErrorCode validate_delete() const override;
    protocol::ErrorCode validate_offset_delete() const override;
    std::set<std::string> subscribed_topics() const override;
    void take_records(GroupRecords& out, const TopicView& topics, bool everything) override;
};

}  // namespace skiff::broker::group
