#include "broker/group/classic/classic_protocol.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "storage/log_config.h"

namespace skiff::broker::group {

using protocol::ErrorCode;

ClassicProtocol::ClassicProtocol(ClassicConfig config, GroupRegistry& groups, Clock now)
    : config_(config), groups_(groups), now_(std::move(now)) {}

JoinResult ClassicProtocol::join_error(ErrorCode e, std::string member_id) {
    JoinResult r;
    r.error = e;
    r.member_id = std::move(member_id);
    return r;
}

SyncResult ClassicProtocol::sync_error(ErrorCode e) {
    SyncResult r;
    r.error = e;
    return r;
}

std::string ClassicProtocol::new_member_id(const std::string& client_id) {
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(random_()),
                  static_cast<unsigned long long>(random_()));
    return client_id + "-" + std::string(hex, 8) + "-" + std::string(hex + 8, 4) + "-" +
           std::string(hex + 12, 4) + "-" + std::string(hex + 16, 4) + "-" +
           std::string(hex + 20, 12);
}

// Kafka's classicGroupJoin: checks common to every join, then the new-member path (no member
// id yet) or the known-member path.
void ClassicProtocol::join(const JoinParams& p, const JoinCallback& done, Deferred& deferred) {
    auto reply = [&](JoinResult r) { deferred.push_back([done, r = std::move(r)] { done(r); }); };
    if (p.group_id.empty())
        return reply(join_error(ErrorCode::invalid_group_id, p.member_id));
    if (p.session_timeout_ms < config_.min_session_timeout_ms ||
        p.session_timeout_ms > config_.max_session_timeout_ms)
        return reply(join_error(ErrorCode::invalid_session_timeout, p.member_id));
    auto* found = groups_.find_as<ClassicGroup>(p.group_id);
    if (!found) {
        if (!p.member_id.empty())
            return reply(join_error(ErrorCode::unknown_member_id, p.member_id));
        found = &groups_.add(std::make_unique<ClassicGroup>(p.group_id, storage::wall_clock_ms()));
    }
    ClassicGroup& g = *found;
    auto existing = g.members.find(p.member_id);
    // A restarted static member (no member id yet) stands for the member bound to its instance.
    const std::string* static_id =
        p.member_id.empty() ? g.static_member_id(p.group_instance_id) : nullptr;
    const bool known = existing != g.members.end() || static_id != nullptr;
    if (g.state == ClassicGroupState::dead)
        return reply(join_error(ErrorCode::coordinator_not_available, p.member_id));
    // A group's only member may change protocols; anyone else must share one with the group.
    if (!g.supports_protocols(p.protocol_type, p.protocols) && !(known && g.members.size() == 1))
        return reply(join_error(ErrorCode::inconsistent_group_protocol, p.member_id));
    if (static_id)
        return replace_static_member(g, *static_id, p, done, deferred);
    if (p.member_id.empty())
        return join_new_member(g, p, done, deferred);
    if (g.pending_members.erase(p.member_id) > 0)  // second join after MEMBER_ID_REQUIRED
        return add_member(g, p, p.member_id, done, deferred);
    if (g.fenced(p.group_instance_id, p.member_id))
        return reply(join_error(ErrorCode::fenced_instance_id, p.member_id));
    if (!known)
        return reply(join_error(ErrorCode::unknown_member_id, p.member_id));
    join_known_member(g, existing->second, p, done, deferred);
}

void ClassicProtocol::join_new_member(ClassicGroup& g, const JoinParams& p,
                                      const JoinCallback& done, Deferred& deferred) {
    std::string id = new_member_id(p.client_id);
    // A static member's instance id already identifies it: no MEMBER_ID_REQUIRED round trip
    // (KIP-345). One whose instance is bound to a member was handled by join().
    if (p.group_instance_id)
        return add_member(g, p, id, done, deferred);
    if (p.require_known_member_id) {
        // v4+: the client must come back with this id, so an id is never handed to a client
        // that does not know it (KIP-394).
        g.pending_members[id] = now() + p.session_timeout_ms;
        deferred.push_back([done, r = join_error(ErrorCode::member_id_required, id)] { done(r); });
        return;
    }
    add_member(g, p, id, done, deferred);
}

void ClassicProtocol::join_known_member(ClassicGroup& g, ClassicMember& m, const JoinParams& p,
                                        const JoinCallback& done, Deferred& deferred) {
    switch (g.state) {
        case ClassicGroupState::preparing_rebalance:
            if (m.awaiting_join)
                deferred.push_back(
                    [old = m.awaiting_join] { old(join_error(ErrorCode::rebalance_in_progress)); });
            update_member(m, p, done);
            maybe_complete_join(g, deferred);
            return;
        case ClassicGroupState::completing_rebalance:
        case ClassicGroupState::stable:
            if (m.protocols == p.protocols && (g.state == ClassicGroupState::completing_rebalance ||
                                               m.member_id != g.leader_id)) {
                // Nothing changed: hand the current generation back.
                m.session_deadline_ms = now() + m.session_timeout_ms;
                deferred.push_back([done, r = join_result_for(g, m)] { done(r); });
                return;
            }
            update_member(m, p, done);
            prepare_rebalance(g, "member " + m.member_id + " rejoined", deferred);
            return;
        case ClassicGroupState::empty:
        case ClassicGroupState::dead:
            deferred.push_back(
                [done, r = join_error(ErrorCode::unknown_member_id, p.member_id)] { done(r); });
            return;
    }
}

// Kafka's updateStaticMemberAndRebalance (KIP-345). A static member that restarted (it sends no
// LeaveGroup on close) comes back with its group.instance.id and no member id. It takes over
// its previous incarnation's place under a new member id: same assignment, and the old id is
// fenced from now on (FENCED_INSTANCE_ID). A Stable group does not rebalance for it unless the
// protocol the group would choose changes; the answer names the current leader, so a
// restarted leader does not compute an assignment a Stable group would never hand out.
// old_id is a copy on purpose: callers pass the g.static_members entry this rebinds.
// NOLINTNEXTLINE(performance-unnecessary-value-param): the copy is needed, see above
void ClassicProtocol::replace_static_member(ClassicGroup& g, std::string old_id,
                                            const JoinParams& p, const JoinCallback& done,
                                            Deferred& deferred) {
    const std::string old_leader = g.leader_id;
    auto node = g.members.extract(old_id);
    ClassicMember m = std::move(node.mapped());
    // Whatever the old incarnation still waits for, it must not get (it is a duplicate).
    if (m.awaiting_join)
        deferred.push_back([cb = std::move(m.awaiting_join), old_id] {
            cb(join_error(ErrorCode::fenced_instance_id, old_id));
        });
    if (m.awaiting_sync)
        deferred.push_back(
            [cb = std::move(m.awaiting_sync)] { cb(sync_error(ErrorCode::fenced_instance_id)); });
    m.awaiting_join = nullptr;
    m.awaiting_sync = nullptr;
    const std::string id = new_member_id(p.client_id);
    spdlog::info("group {}: static member {} restarted: member {} replaces {}", g.group_id(),
                 *p.group_instance_id, id, old_id);
    m.member_id = id;
    update_member(m, p, nullptr);
    if (g.leader_id == old_id)
        g.leader_id = id;
    g.static_members[*p.group_instance_id] = id;
    ++g.member_changes;
    ClassicMember& member = g.members[id] = std::move(m);
    switch (g.state) {
        case ClassicGroupState::stable:
            if (g.select_protocol() == g.protocol_name) {
                JoinResult r = join_result_for(g, member);
                if (p.supports_skip_assignment) {
                    // v9+ (KIP-814): the leader learns it leads and who the members are, and
                    // is told not to assign (the group keeps its assignment).
                    r.skip_assignment = g.leader_id == id;
                } else {
                    r.leader = old_leader;
                    r.members.clear();
                }
                deferred.push_back([done, r = std::move(r)] { done(r); });
                return;
            }
            member.awaiting_join = done;
            prepare_rebalance(g, "static member " + id + " rejoined with other protocols",
                              deferred);
            return;
        case ClassicGroupState::completing_rebalance:
            // The leader may be assigning to the old member id, which the new one could not
            // sync with: start over.
            member.awaiting_join = done;
            prepare_rebalance(g, "static member " + id + " rejoined", deferred);
            return;
        case ClassicGroupState::preparing_rebalance:
            member.awaiting_join = done;
            maybe_complete_join(g, deferred);
            return;
        case ClassicGroupState::empty:
        case ClassicGroupState::dead:  // not with a member in it; answer as for any unknown member
            g.members.erase(id);
            g.static_members.erase(*p.group_instance_id);
            deferred.push_back(
                [done, r = join_error(ErrorCode::unknown_member_id, p.member_id)] { done(r); });
            return;
    }
}

void ClassicProtocol::sync(const SyncParams& p, SyncCallback done, Deferred& deferred) {
    auto reply = [&](SyncResult r) { deferred.push_back([done, r = std::move(r)] { done(r); }); };
    auto* found = groups_.find_as<ClassicGroup>(p.group_id);
    if (!found)
        return reply(sync_error(ErrorCode::unknown_member_id));
    ClassicGroup& g = *found;
    auto mit = g.members.find(p.member_id);
    if (g.state == ClassicGroupState::dead)
        return reply(sync_error(ErrorCode::coordinator_not_available));
    if (g.fenced(p.group_instance_id, p.member_id))
        return reply(sync_error(ErrorCode::fenced_instance_id));
    if (mit == g.members.end())
        return reply(sync_error(ErrorCode::unknown_member_id));
    if (p.generation_id != g.generation_id)
        return reply(sync_error(ErrorCode::illegal_generation));
    if ((p.protocol_type && *p.protocol_type != g.protocol_type) ||
        (p.protocol_name && *p.protocol_name != g.protocol_name))
        return reply(sync_error(ErrorCode::inconsistent_group_protocol));
    ClassicMember& m = mit->second;
    switch (g.state) {
        case ClassicGroupState::preparing_rebalance:
            return reply(sync_error(ErrorCode::rebalance_in_progress));
        case ClassicGroupState::stable:
            m.session_deadline_ms = now() + m.session_timeout_ms;
            return reply({ErrorCode::none, g.protocol_type, g.protocol_name, m.assignment});
        case ClassicGroupState::completing_rebalance:
            break;
        case ClassicGroupState::empty:
        case ClassicGroupState::dead:
            return reply(sync_error(ErrorCode::unknown_member_id));
    }
    // CompletingRebalance: followers wait for the leader, whose SyncGroup carries everyone's
    // assignment and makes the generation Stable.
    m.session_deadline_ms = now() + m.session_timeout_ms;
    if (m.awaiting_sync)
        deferred.push_back(
            [old = m.awaiting_sync] { old(sync_error(ErrorCode::rebalance_in_progress)); });
    m.awaiting_sync = std::move(done);
    if (m.member_id != g.leader_id)
        return;
    for (auto& [id, member] : g.members) {
        auto a = p.assignments.find(id);
        member.assignment = a == p.assignments.end() ? std::vector<std::byte>{} : a->second;
    }
    g.state = ClassicGroupState::stable;
    for (auto& [id, member] : g.members) {
        if (!member.awaiting_sync)
            continue;
        SyncResult r{ErrorCode::none, g.protocol_type, g.protocol_name, member.assignment};
        deferred.push_back([cb = std::move(member.awaiting_sync), r = std::move(r)] { cb(r); });
        member.awaiting_sync = nullptr;
    }
    spdlog::info("group {}: generation {} is stable with {} member(s)", g.group_id(),
                 g.generation_id, g.members.size());
}

ErrorCode ClassicProtocol::heartbeat(const std::string& group_id, int32_t generation_id,
                                     const std::string& member_id,
                                     const std::optional<std::string>& group_instance_id) {
    auto* found = groups_.find_as<ClassicGroup>(group_id);
    if (!found)
        return ErrorCode::unknown_member_id;
    ClassicGroup& g = *found;
    if (g.state == ClassicGroupState::dead)
        return ErrorCode::coordinator_not_available;
    if (g.fenced(group_instance_id, member_id))
        return ErrorCode::fenced_instance_id;
    auto m = g.members.find(member_id);
    if (m == g.members.end())
        return ErrorCode::unknown_member_id;
    m->second.session_deadline_ms = now() + m->second.session_timeout_ms;
    if (g.state == ClassicGroupState::preparing_rebalance)
        return ErrorCode::rebalance_in_progress;
    if (generation_id != g.generation_id)
        return ErrorCode::illegal_generation;
    return ErrorCode::none;
}

ErrorCode ClassicProtocol::leave(const std::string& group_id, const std::string& member_id,
                                 const std::optional<std::string>& group_instance_id,
                                 Deferred& deferred) {
    auto* found = groups_.find_as<ClassicGroup>(group_id);
    if (!found)
        return ErrorCode::unknown_member_id;
    ClassicGroup& g = *found;
    if (g.state == ClassicGroupState::dead)
        return ErrorCode::coordinator_not_available;
    std::string id = member_id;
    if (group_instance_id) {
        auto s = g.static_members.find(*group_instance_id);
        if (s == g.static_members.end())
            return ErrorCode::unknown_member_id;
        if (!member_id.empty() && s->second != member_id)
            return ErrorCode::fenced_instance_id;
        id = s->second;
    }
    if (g.pending_members.erase(id) > 0) {
        maybe_complete_join(g, deferred);
        return ErrorCode::none;
    }
    if (!g.members.count(id))
        return ErrorCode::unknown_member_id;
    spdlog::info("group {}: member {} left", g.group_id(), id);
    remove_member(g, id, ErrorCode::unknown_member_id, deferred);
    return ErrorCode::none;
}

}  // namespace skiff::broker::group
