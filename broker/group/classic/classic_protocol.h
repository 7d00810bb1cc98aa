// The classic group protocol's requests (Kafka's GroupMetadataManager classicGroup* paths):
// JoinGroup, SyncGroup, Heartbeat and LeaveGroup over the classic groups of the registry, and
// the deadlines of those groups (session timeouts, the end of a join phase, pending member ids,
// the initial rebalance delay). The GroupCoordinator forwards to it under its mutex.
//
// A JoinGroup that must wait (until the join phase ends) or a follower's SyncGroup (until the
// leader's) hands in a callback; it is called exactly once, possibly right away, possibly later
// from another member's request or from tick(). Every answer goes to `deferred`, which the
// coordinator runs after releasing its lock.
//
// Split in two files: classic_protocol.cpp, what each request does; classic_rebalance.cpp, the
// membership changes and the join phase they start or end, and tick().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "broker/group/classic/classic_group.h"
#include "broker/group/group.h"
#include "broker/group/group_registry.h"

namespace skiff::broker::group {

struct ClassicConfig {
    int64_t initial_rebalance_delay_ms = 3000;
    int32_t min_session_timeout_ms = 1;
    int32_t max_session_timeout_ms = 1800000;
};

struct JoinParams {
    std::string group_id;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    int32_t session_timeout_ms = 0;
    int32_t rebalance_timeout_ms = 0;
    std::string protocol_type;
    ProtocolList protocols;
    bool require_known_member_id = false;   // JoinGroup v4+: MEMBER_ID_REQUIRED round trip
    bool supports_skip_assignment = false;  // JoinGroup v9+ (KIP-814), see replace_static_member
};

struct SyncParams {
    std::string group_id;
    int32_t generation_id = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    std::map<std::string, std::vector<std::byte>> assignments;  // leader only
};

class ClassicProtocol {
  public:
    // `groups` and `now` outlive this; `now` is the coordinator's clock.
    ClassicProtocol(ClassicConfig config, GroupRegistry& groups, Clock now);

    void join(const JoinParams& p, const JoinCallback& done, Deferred& deferred);
    void sync(const SyncParams& p, SyncCallback done, Deferred& deferred);
    protocol::ErrorCode heartbeat(const std::string& group_id, int32_t generation_id,
                                  const std::string& member_id,
                                  const std::optional<std::string>& group_instance_id);
    protocol::ErrorCode leave(const std::string& group_id, const std::string& member_id,
                              const std::optional<std::string>& group_instance_id,
                              Deferred& deferred);
    // The deadlines that passed by `now_ms`, in every classic group.
    void tick(int64_t now_ms, Deferred& deferred);
    // Starts a rebalance of `g` (a group just converted from a consumer group, migration.h).
    void rebalance(ClassicGroup& g, const std::string& reason, Deferred& deferred) {
        prepare_rebalance(g, reason, deferred);
    }

  private:
    int64_t now() const { return now_(); }
    std::string new_member_id(const std::string& client_id);
    static JoinResult join_error(protocol::ErrorCode e, std::string member_id = {});
    static SyncResult sync_error(protocol::ErrorCode e);
    // JoinGroup's answer to member `m` of the current generation: the member list for the leader.
    static JoinResult join_result_for(const ClassicGroup& g, const ClassicMember& m);

    // classic_protocol.cpp
    void join_new_member(ClassicGroup& g, const JoinParams& p, const JoinCallback& done,
                         Deferred& deferred);
    void join_known_member(ClassicGroup& g, ClassicMember& m, const JoinParams& p,
                           const JoinCallback& done, Deferred& deferred);
    // old_id is a copy on purpose: callers pass an entry of g.static_members, which this rebinds.
    void replace_static_member(ClassicGroup& g, std::string old_id, const JoinParams& p,
                               const JoinCallback& done, Deferred& deferred);

    // classic_rebalance.cpp
    void add_member(ClassicGroup& g, const JoinParams& p, const std::string& member_id,
                    JoinCallback done, Deferred& deferred);
    void update_member(ClassicMember& m, const JoinParams& p, JoinCallback done);
    // member_id is a copy on purpose: callers pass keys of g's maps, which this erases.
    void remove_member(ClassicGroup& g, std::string member_id, protocol::ErrorCode why,
                       Deferred& deferred);
    void prepare_rebalance(ClassicGroup& g, const std::string& reason, Deferred& deferred);
    void maybe_complete_join(ClassicGroup& g, Deferred& deferred);
    void complete_join(ClassicGroup& g, Deferred& deferred);
    void tick_group(ClassicGroup& g, int64_t now_ms, Deferred& deferred);

    ClassicConfig config_;
    GroupRegistry& groups_;
    Clock now_;
    std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace skiff::broker::group
