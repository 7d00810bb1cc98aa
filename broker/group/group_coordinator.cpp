#include "broker/group/group_coordinator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <cstdio>
#include <set>

#include "broker/error_mapping.h"
#include "broker/group/consumer_subscription.h"
#include "broker/net/spawn.h"
#include "broker/net/use_tuple.h"
#include "storage/log_config.h"

namespace skiff::broker::group {
namespace {

using protocol::ErrorCode;
constexpr int64_t kOffsetExpiryCheckMs = 60000;

JoinResult join_error(ErrorCode e, std::string member_id = {}) {
    JoinResult r;
    r.error = e;
    r.member_id = std::move(member_id);
    return r;
}

SyncResult sync_error(ErrorCode e) {
    SyncResult r;
    r.error = e;
    return r;
}

std::string member_list(const Group& g) {
    std::string out;
    for (const auto& [id, m] : g.members) {
        if (!out.empty())
            out += ", ";
        out += id;
    }
    return out;
}

// The member bound to a group.instance.id, or nullptr.
const std::string* static_member_id(const Group& g, const std::optional<std::string>& instance_id) {
    if (!instance_id)
        return nullptr;
    auto it = g.static_members.find(*instance_id);
    if (it == g.static_members.end() || !g.members.count(it->second))
        return nullptr;
    return &it->second;
}

// What a TxnOffsetCommit answers when its append failed: a stale producer epoch as such, any
// other failure as the coordinator being unavailable (retriable, like a plain commit's).
ErrorCode store_error(storage::StorageErrc e) {
    return e == storage::StorageErrc::invalid_producer_epoch ? ErrorCode::invalid_producer_epoch
                                                             : ErrorCode::coordinator_not_available;
}

// A static member's request must carry the member id currently bound to its instance id.
bool fenced(const Group& g, const std::optional<std::string>& instance_id,
            const std::string& member_id) {
    if (!instance_id)
        return false;
    auto it = g.static_members.find(*instance_id);
    return it != g.static_members.end() && it->second != member_id;
}

}  // namespace

GroupCoordinator::GroupCoordinator(CoordinatorConfig config, OffsetStore& offsets, Clock clock)
    : config_(config), offsets_(offsets), clock_(std::move(clock)) {}

int64_t GroupCoordinator::steady_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void GroupCoordinator::start(const asio::any_io_executor& executor,
                             std::function<void()> on_failure) {
    auto loop = [this, executor]() -> asio::awaitable<void> {
        asio::steady_timer timer(executor);
        for (;;) {
            timer.expires_after(std::chrono::milliseconds(kTickMs));
            auto [ec] = co_await timer.async_wait(use_tuple);
            if (ec == asio::error::operation_aborted)
                co_return;
            tick();
        }
    };
    // A tick that throws would stop session and rebalance expiry for good: stop the broker.
    spawn(executor, loop, "the group coordinator's timer loop",
          {.on_failure = std::move(on_failure)});
}

std::string GroupCoordinator::new_member_id(const std::string& client_id) {
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(random_()),
                  static_cast<unsigned long long>(random_()));
    return client_id + "-" + std::string(hex, 8) + "-" + std::string(hex + 8, 4) + "-" +
           std::string(hex + 12, 4) + "-" + std::string(hex + 16, 4) + "-" +
           std::string(hex + 20, 12);
}

// Kafka's GroupCoordinator.handleJoinGroup: checks common to every join, then the new-member
// path (no member id yet) or the known-member path.
void GroupCoordinator::join(const JoinParams& p, const JoinCallback& done) {
    Deferred deferred;
    {
        std::lock_guard lock(mutex_);
        join_locked(p, done, deferred);
    }
    for (auto& f : deferred)
        f();
}

void GroupCoordinator::join_locked(const JoinParams& p, const JoinCallback& done,
                                   Deferred& deferred) {
    auto reply = [&](JoinResult r) { deferred.push_back([done, r = std::move(r)] { done(r); }); };
    if (p.group_id.empty())
        return reply(join_error(ErrorCode::invalid_group_id, p.member_id));
    if (p.session_timeout_ms < config_.min_session_timeout_ms ||
        p.session_timeout_ms > config_.max_session_timeout_ms)
        return reply(join_error(ErrorCode::invalid_session_timeout, p.member_id));
    auto it = groups_.find(p.group_id);
    if (it == groups_.end()) {
        if (!p.member_id.empty())
            return reply(join_error(ErrorCode::unknown_member_id, p.member_id));
        it = groups_.emplace(p.group_id, Group{}).first;
        it->second.group_id = p.group_id;
        it->second.empty_since_wall_ms = storage::wall_clock_ms();
    }
    Group& g = it->second;
    auto existing = g.members.find(p.member_id);
    // A restarted static member (no member id yet) stands for the member bound to its instance.
    const std::string* static_id =
        p.member_id.empty() ? static_member_id(g, p.group_instance_id) : nullptr;
    const bool known = existing != g.members.end() || static_id != nullptr;
    if (g.state == GroupState::dead)
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
    if (fenced(g, p.group_instance_id, p.member_id))
        return reply(join_error(ErrorCode::fenced_instance_id, p.member_id));
    if (!known)
        return reply(join_error(ErrorCode::unknown_member_id, p.member_id));
    join_known_member(g, existing->second, p, done, deferred);
}

void GroupCoordinator::join_new_member(Group& g, const JoinParams& p, const JoinCallback& done,
                                       Deferred& deferred) {
    std::string id = new_member_id(p.client_id);
    // A static member's instance id already identifies it: no MEMBER_ID_REQUIRED round trip
    // (KIP-345). One whose instance is bound to a member was handled by join_locked.
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

void GroupCoordinator::join_known_member(Group& g, Member& m, const JoinParams& p,
                                         const JoinCallback& done, Deferred& deferred) {
    switch (g.state) {
        case GroupState::preparing_rebalance:
            if (m.awaiting_join)
                deferred.push_back(
                    [old = m.awaiting_join] { old(join_error(ErrorCode::rebalance_in_progress)); });
            update_member(g, m, p, done);
            maybe_complete_join(g, deferred);
            return;
        case GroupState::completing_rebalance:
        case GroupState::stable:
            if (m.protocols == p.protocols &&
                (g.state == GroupState::completing_rebalance || m.member_id != g.leader_id)) {
                // Nothing changed: hand the current generation back.
                m.session_deadline_ms = now() + m.session_timeout_ms;
                deferred.push_back([done, r = join_result_for(g, m)] { done(r); });
                return;
            }
            update_member(g, m, p, done);
            prepare_rebalance(g, "member " + m.member_id + " rejoined", deferred);
            return;
        case GroupState::empty:
        case GroupState::dead:
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
void GroupCoordinator::replace_static_member(Group& g, std::string old_id, const JoinParams& p,
                                             const JoinCallback& done, Deferred& deferred) {
    const std::string old_leader = g.leader_id;
    auto node = g.members.extract(old_id);
    Member m = std::move(node.mapped());
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
    spdlog::info("group {}: static member {} restarted: member {} replaces {}", g.group_id,
                 *p.group_instance_id, id, old_id);
    m.member_id = id;
    update_member(g, m, p, nullptr);
    if (g.leader_id == old_id)
        g.leader_id = id;
    g.static_members[*p.group_instance_id] = id;
    Member& member = g.members[id] = std::move(m);
    switch (g.state) {
        case GroupState::stable:
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
        case GroupState::completing_rebalance:
            // The leader may be assigning to the old member id, which the new one could not
            // sync with: start over.
            member.awaiting_join = done;
            prepare_rebalance(g, "static member " + id + " rejoined", deferred);
            return;
        case GroupState::preparing_rebalance:
            member.awaiting_join = done;
            maybe_complete_join(g, deferred);
            return;
        case GroupState::empty:
        case GroupState::dead:  // not with a member in it; answer as for any unknown member
            g.members.erase(id);
            g.static_members.erase(*p.group_instance_id);
            deferred.push_back(
                [done, r = join_error(ErrorCode::unknown_member_id, p.member_id)] { done(r); });
            return;
    }
}

void GroupCoordinator::add_member(Group& g, const JoinParams& p, const std::string& member_id,
                                  JoinCallback done, Deferred& deferred) {
    if (g.members.empty())
        g.protocol_type = p.protocol_type;
    Member m;
    m.member_id = member_id;
    m.group_instance_id = p.group_instance_id;
    m.client_id = p.client_id;
    m.client_host = p.client_host;
    m.session_timeout_ms = p.session_timeout_ms;
    m.rebalance_timeout_ms = p.rebalance_timeout_ms;
    m.protocol_type = p.protocol_type;
    m.protocols = p.protocols;
    m.session_deadline_ms = now() + p.session_timeout_ms;
    m.awaiting_join = std::move(done);
    if (p.group_instance_id)
        g.static_members[*p.group_instance_id] = member_id;
    g.members[member_id] = std::move(m);
    if (g.state == GroupState::preparing_rebalance) {
        if (g.initial_delay)  // more members are coming: wait a little longer, within limits
            g.rebalance_deadline_ms =
                std::min(now() + config_.initial_rebalance_delay_ms, g.initial_delay_limit_ms);
        maybe_complete_join(g, deferred);
    } else {
        prepare_rebalance(g, "member " + member_id + " joined", deferred);
    }
}

void GroupCoordinator::update_member(Group& g, Member& m, const JoinParams& p, JoinCallback done) {
    (void)g;
    m.session_timeout_ms = p.session_timeout_ms;
    m.rebalance_timeout_ms = p.rebalance_timeout_ms;
    m.protocols = p.protocols;
    m.client_id = p.client_id;
    m.client_host = p.client_host;
    m.session_deadline_ms = now() + p.session_timeout_ms;
    m.awaiting_join = std::move(done);
}

// member_id is taken by value, not by reference: callers pass s->second of g.static_members or
// keys of g.members, and both entries are erased below before member_id is last used.
// NOLINTNEXTLINE(performance-unnecessary-value-param): the copy is needed, see above
void GroupCoordinator::remove_member(Group& g, std::string member_id, ErrorCode why,
                                     Deferred& deferred) {
    auto it = g.members.find(member_id);
    if (it == g.members.end())
        return;
    Member& m = it->second;
    if (m.awaiting_join)
        deferred.push_back(
            [cb = m.awaiting_join, why, member_id] { cb(join_error(why, member_id)); });
    if (m.awaiting_sync)
        deferred.push_back([cb = m.awaiting_sync, why] { cb(sync_error(why)); });
    if (m.group_instance_id) {
        auto s = g.static_members.find(*m.group_instance_id);
        if (s != g.static_members.end() && s->second == member_id)
            g.static_members.erase(s);
    }
    g.members.erase(it);
    if (g.leader_id == member_id)
        g.leader_id.clear();
    switch (g.state) {
        case GroupState::stable:
        case GroupState::completing_rebalance:
            prepare_rebalance(g, "member " + member_id + " left", deferred);
            break;
        case GroupState::preparing_rebalance:
            maybe_complete_join(g, deferred);
            break;
        default:
            break;
    }
}

void GroupCoordinator::prepare_rebalance(Group& g, const std::string& reason, Deferred& deferred) {
    if (g.state == GroupState::completing_rebalance) {
        // Members waiting for an assignment of the old generation must rejoin instead.
        for (auto& [id, m] : g.members) {
            if (m.awaiting_sync) {
                deferred.push_back([cb = std::move(m.awaiting_sync)] {
                    cb(sync_error(ErrorCode::rebalance_in_progress));
                });
                m.awaiting_sync = nullptr;
            }
        }
    }
    const int64_t t = now();
    const int64_t rebalance_timeout = g.max_rebalance_timeout_ms();
    if (g.state == GroupState::empty && config_.initial_rebalance_delay_ms > 0) {
        g.initial_delay = true;
        g.initial_delay_limit_ms = t + rebalance_timeout;
        g.rebalance_deadline_ms =
            std::min(t + config_.initial_rebalance_delay_ms, g.initial_delay_limit_ms);
    } else {
        g.initial_delay = false;
        g.rebalance_deadline_ms = t + rebalance_timeout;
    }
    spdlog::info("group {}: preparing to rebalance ({}) from {} at generation {}", g.group_id,
                 reason, state_name(g.state), g.generation_id);
    g.state = GroupState::preparing_rebalance;
    maybe_complete_join(g, deferred);
}

void GroupCoordinator::maybe_complete_join(Group& g, Deferred& deferred) {
    if (g.state == GroupState::preparing_rebalance && !g.initial_delay && g.all_members_joined())
        complete_join(g, deferred);
}

void GroupCoordinator::complete_join(Group& g, Deferred& deferred) {
    // Dynamic members that did not rejoin in time are out of the new generation. Static ones
    // stay, with their last metadata, until their session times out (Kafka's onCompleteJoin):
    // a restarting static member must find its place when it comes back.
    std::vector<std::string> missing;
    for (const auto& [id, m] : g.members)
        if (!m.awaiting_join && !m.group_instance_id)
            missing.push_back(id);
    for (const auto& id : missing) {
        spdlog::info("group {}: member {} did not rejoin in time and was removed", g.group_id, id);
        g.members.erase(id);
    }
    g.initial_delay = false;
    // The leader must be a member that gets this JoinGroup answer.
    auto joined = [&](const std::string& id) {
        auto it = g.members.find(id);
        return it != g.members.end() && static_cast<bool>(it->second.awaiting_join);
    };
    if (!joined(g.leader_id)) {
        auto first = std::find_if(g.members.begin(), g.members.end(), [](const auto& m) {
            return static_cast<bool>(m.second.awaiting_join);
        });
        if (first == g.members.end() && !g.members.empty()) {
            // Only static members that did not rejoin: wait another rebalance timeout, until
            // they rejoin or their sessions expire (as Kafka does).
            g.rebalance_deadline_ms = now() + g.max_rebalance_timeout_ms();
            spdlog::info("group {}: no member rejoined; waiting for the static members",
                         g.group_id);
            return;
        }
        g.leader_id = first == g.members.end() ? std::string{} : first->first;
    }
    ++g.generation_id;
    if (g.members.empty()) {
        g.state = GroupState::empty;
        g.protocol_name.reset();
        g.leader_id.clear();
        g.empty_since_wall_ms = storage::wall_clock_ms();
        spdlog::info("group {}: generation {} is empty", g.group_id, g.generation_id);
        return;
    }
    g.protocol_name = g.select_protocol();
    if (!g.protocol_name)  // cannot happen after the join-time check; be safe anyway
        g.protocol_name = g.members.at(g.leader_id).protocols.front().first;
    g.state = GroupState::completing_rebalance;
    const int64_t t = now();
    for (auto& [id, m] : g.members) {
        m.assignment.clear();
        m.session_deadline_ms = t + m.session_timeout_ms;
        if (!m.awaiting_join)
            continue;  // a static member that did not rejoin (yet)
        deferred.push_back([cb = std::move(m.awaiting_join), r = join_result_for(g, m)] { cb(r); });
        m.awaiting_join = nullptr;
    }
    spdlog::info(
        "group {}: rebalanced to generation {} with protocol {}, leader {}, {} member(s): {}",
        g.group_id, g.generation_id, *g.protocol_name, g.leader_id, g.members.size(),
        member_list(g));
}

JoinResult GroupCoordinator::join_result_for(const Group& g, const Member& m) const {
    JoinResult r;
    r.generation_id = g.generation_id;
    r.protocol_type = g.protocol_type;
    r.protocol_name = g.protocol_name;
    r.leader = g.leader_id;
    r.member_id = m.member_id;
    if (m.member_id == g.leader_id && g.protocol_name) {
        for (const auto& [id, other] : g.members) {
            protocol::JoinGroupResponseMember jm;
            jm.member_id = id;
            jm.group_instance_id = other.group_instance_id;
            if (const auto* md = other.metadata_for(*g.protocol_name))
                jm.metadata = *md;
            r.members.push_back(std::move(jm));
        }
    }
    return r;
}

void GroupCoordinator::sync(const SyncParams& p, SyncCallback done) {
    Deferred deferred;
    auto reply = [&](SyncResult r) { deferred.push_back([done, r = std::move(r)] { done(r); }); };
    {
        std::lock_guard lock(mutex_);
        auto it = groups_.find(p.group_id);
        if (it == groups_.end()) {
            reply(sync_error(ErrorCode::unknown_member_id));
        } else {
            Group& g = it->second;
            auto mit = g.members.find(p.member_id);
            if (g.state == GroupState::dead) {
                reply(sync_error(ErrorCode::coordinator_not_available));
            } else if (fenced(g, p.group_instance_id, p.member_id)) {
                reply(sync_error(ErrorCode::fenced_instance_id));
            } else if (mit == g.members.end()) {  // NOLINT(bugprone-branch-clone): the order of
                // the checks matters; the empty-group case at the end answers the same code
                reply(sync_error(ErrorCode::unknown_member_id));
            } else if (p.generation_id != g.generation_id) {
                reply(sync_error(ErrorCode::illegal_generation));
            } else if ((p.protocol_type && *p.protocol_type != g.protocol_type) ||
                       (p.protocol_name && *p.protocol_name != g.protocol_name)) {
                reply(sync_error(ErrorCode::inconsistent_group_protocol));
            } else if (g.state == GroupState::preparing_rebalance) {
                reply(sync_error(ErrorCode::rebalance_in_progress));
            } else if (g.state == GroupState::stable) {
                Member& m = mit->second;
                m.session_deadline_ms = now() + m.session_timeout_ms;
                reply({ErrorCode::none, g.protocol_type, g.protocol_name, m.assignment});
            } else if (g.state == GroupState::completing_rebalance) {
                Member& m = mit->second;
                m.session_deadline_ms = now() + m.session_timeout_ms;
                if (m.awaiting_sync)
                    deferred.push_back([old = m.awaiting_sync] {
                        old(sync_error(ErrorCode::rebalance_in_progress));
                    });
                m.awaiting_sync = done;
                if (m.member_id == g.leader_id) {
                    for (auto& [id, member] : g.members) {
                        auto a = p.assignments.find(id);
                        member.assignment =
                            a == p.assignments.end() ? std::vector<std::byte>{} : a->second;
                    }
                    g.state = GroupState::stable;
                    for (auto& [id, member] : g.members) {
                        if (!member.awaiting_sync)
                            continue;
                        SyncResult r{ErrorCode::none, g.protocol_type, g.protocol_name,
                                     member.assignment};
                        deferred.push_back(
                            [cb = std::move(member.awaiting_sync), r = std::move(r)] { cb(r); });
                        member.awaiting_sync = nullptr;
                    }
                    spdlog::info("group {}: generation {} is stable with {} member(s)", g.group_id,
                                 g.generation_id, g.members.size());
                }
            } else {  // empty
                reply(sync_error(ErrorCode::unknown_member_id));
            }
        }
    }
    for (auto& f : deferred)
        f();
}

ErrorCode GroupCoordinator::heartbeat(const std::string& group_id, int32_t generation_id,
                                      const std::string& member_id,
                                      const std::optional<std::string>& group_instance_id) {
    std::lock_guard lock(mutex_);
    auto it = groups_.find(group_id);
    if (it == groups_.end())
        return ErrorCode::unknown_member_id;
    Group& g = it->second;
    if (g.state == GroupState::dead)
        return ErrorCode::coordinator_not_available;
    if (fenced(g, group_instance_id, member_id))
        return ErrorCode::fenced_instance_id;
    auto m = g.members.find(member_id);
    if (m == g.members.end())
        return ErrorCode::unknown_member_id;
    m->second.session_deadline_ms = now() + m->second.session_timeout_ms;
    if (g.state == GroupState::preparing_rebalance)
        return ErrorCode::rebalance_in_progress;
    if (generation_id != g.generation_id)
        return ErrorCode::illegal_generation;
    return ErrorCode::none;
}

ErrorCode GroupCoordinator::leave(const std::string& group_id, const std::string& member_id,
                                  const std::optional<std::string>& group_instance_id) {
    Deferred deferred;
    ErrorCode result = ErrorCode::none;
    {
        std::lock_guard lock(mutex_);
        auto it = groups_.find(group_id);
        if (it == groups_.end())
            return ErrorCode::unknown_member_id;
        Group& g = it->second;
        std::string id = member_id;
        if (g.state == GroupState::dead) {
            result = ErrorCode::coordinator_not_available;
        } else if (group_instance_id) {
            auto s = g.static_members.find(*group_instance_id);
            if (s == g.static_members.end())
                result = ErrorCode::unknown_member_id;
            else if (!member_id.empty() && s->second != member_id)
                result = ErrorCode::fenced_instance_id;
            else
                id = s->second;
        }
        if (result == ErrorCode::none) {
            if (g.pending_members.erase(id) > 0) {
                maybe_complete_join(g, deferred);
            } else if (!g.members.count(id)) {
                result = ErrorCode::unknown_member_id;
            } else {
                spdlog::info("group {}: member {} left", g.group_id, id);
                remove_member(g, id, ErrorCode::unknown_member_id, deferred);
            }
        }
    }
    for (auto& f : deferred)
        f();
    return result;
}

ErrorCode GroupCoordinator::validate_commit(const std::string& group_id, int32_t generation_id,
                                            const std::string& member_id,
                                            const std::optional<std::string>& group_instance_id) {
    std::lock_guard lock(mutex_);
    return validate_commit_locked(group_id, generation_id, member_id, group_instance_id, false);
}

ErrorCode GroupCoordinator::validate_commit_locked(
    const std::string& group_id, int32_t generation_id, const std::string& member_id,
    const std::optional<std::string>& group_instance_id, bool transactional) {
    if (group_id.empty())
        return ErrorCode::invalid_group_id;
    auto it = groups_.find(group_id);
    if (it == groups_.end()) {
        if (generation_id >= 0)
            return ErrorCode::illegal_generation;
        Group g;
        g.group_id = group_id;
        g.empty_since_wall_ms = storage::wall_clock_ms();
        groups_.emplace(group_id, std::move(g));
        return ErrorCode::none;
    }
    Group& g = it->second;
    if (g.state == GroupState::dead)
        return ErrorCode::coordinator_not_available;
    if (generation_id < 0 && g.state == GroupState::empty)
        return ErrorCode::none;
    // A transactional commit without generation and member (TxnOffsetCommit v0-2, or a producer
    // that does not pass the consumer's group metadata) is accepted whatever the group's state:
    // the transaction coordinator vouches for the producer (Kafka's ClassicGroup).
    if (transactional && generation_id < 0 && member_id.empty() && !group_instance_id)
        return ErrorCode::none;
    if (fenced(g, group_instance_id, member_id))
        return ErrorCode::fenced_instance_id;
    auto m = g.members.find(member_id);
    if (m == g.members.end())
        return ErrorCode::unknown_member_id;
    if (generation_id != g.generation_id)
        return ErrorCode::illegal_generation;
    if (!transactional && g.state == GroupState::completing_rebalance)
        return ErrorCode::rebalance_in_progress;
    m->second.session_deadline_ms = now() + m->second.session_timeout_ms;
    return ErrorCode::none;
}

ErrorCode GroupCoordinator::txn_offset_commit(const TxnCommitParams& params,
                                              const GroupOffsets& offsets) {
    {
        std::lock_guard lock(mutex_);
        ErrorCode e = validate_commit_locked(params.group_id, params.generation_id,
                                             params.member_id, params.group_instance_id, true);
        if (e != ErrorCode::none)
            return e;
    }
    if (offsets.empty())
        return ErrorCode::none;
    auto written = offsets_.commit_transactional(params.group_id, params.producer_id,
                                                 params.producer_epoch, offsets);
    if (!written) {
        spdlog::warn("transactional offset commit of group {} (producer {} epoch {}) failed: {}",
                     params.group_id, params.producer_id, params.producer_epoch,
                     written.error().message);
        return store_error(written.error().code);
    }
    return ErrorCode::none;
}

ErrorCode GroupCoordinator::complete_transaction(int64_t producer_id, int16_t producer_epoch,
                                                 int32_t coordinator_epoch, bool commit) {
    auto done =
        offsets_.complete_transaction(producer_id, producer_epoch, coordinator_epoch, commit);
    if (!done) {
        spdlog::warn("{} marker of producer {} epoch {} on {} failed: {}",
                     commit ? "COMMIT" : "ABORT", producer_id, producer_epoch, kOffsetsTopic,
                     done.error().message);
        return to_error_code(done.error().code);
    }
    return ErrorCode::none;
}

bool GroupCoordinator::has_pending(const std::string& group,
                                   const storage::TopicPartition& tp) const {
    return offsets_.has_pending(group, tp);
}

void GroupCoordinator::tick() {
    Deferred deferred;
    bool check_offsets = false;
    {
        std::lock_guard lock(mutex_);
        const int64_t t = now();
        for (auto& [group_id, g] : groups_) {
            for (auto p = g.pending_members.begin(); p != g.pending_members.end();) {
                if (t >= p->second) {
                    p = g.pending_members.erase(p);
                    maybe_complete_join(g, deferred);
                } else {
                    ++p;
                }
            }
            std::vector<std::string> expired;
            for (const auto& [id, m] : g.members)
                if (!m.awaiting_join && !m.awaiting_sync && t >= m.session_deadline_ms)
                    expired.push_back(id);
            for (const auto& id : expired) {
                spdlog::info("group {}: member {} expired after its session timeout of {} ms",
                             group_id, id, g.members.at(id).session_timeout_ms);
                remove_member(g, id, ErrorCode::unknown_member_id, deferred);
            }
            if (g.state == GroupState::preparing_rebalance && t >= g.rebalance_deadline_ms)
                complete_join(g, deferred);
        }
        if (t >= next_expiry_check_ms_) {
            next_expiry_check_ms_ = t + kOffsetExpiryCheckMs;
            check_offsets = true;
        }
    }
    for (auto& f : deferred)
        f();
    if (check_offsets)
        expire_offsets();
}

void GroupCoordinator::expire_offsets() {
    std::map<std::string, int64_t> empty_since;
    std::vector<std::string> active;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [id, g] : groups_) {
            if (g.state == GroupState::empty)
                empty_since[id] = g.empty_since_wall_ms;
            else
                active.push_back(id);
        }
    }
    const int64_t wall = storage::wall_clock_ms();
    size_t n = offsets_.expire([&](const std::string& group, const CommittedOffset& c) {
        if (std::find(active.begin(), active.end(), group) != active.end())
            return false;
        int64_t since = c.commit_timestamp_ms;
        if (auto e = empty_since.find(group); e != empty_since.end())
            since = std::max(since, e->second);
        return wall - since > config_.offsets_retention_ms;
    });
    if (n > 0)
        spdlog::info("expired {} committed offset(s) of empty groups (offsets.retention.minutes)",
                     n);
}

protocol::DescribedGroup GroupCoordinator::describe(const std::string& group_id) const {
    protocol::DescribedGroup d;
    d.group_id = group_id;
    std::lock_guard lock(mutex_);
    auto it = groups_.find(group_id);
    if (it == groups_.end()) {
        d.group_state = offsets_.group_offsets(group_id).empty() ? "Dead" : "Empty";
        return d;
    }
    const Group& g = it->second;
    d.group_state = state_name(g.state);
    d.protocol_type = g.protocol_type;
    const bool stable = g.state == GroupState::stable;
    if (stable && g.protocol_name)
        d.protocol_data = *g.protocol_name;
    for (const auto& [id, m] : g.members) {
        protocol::DescribedGroupMember dm;
        dm.member_id = id;
        dm.group_instance_id = m.group_instance_id;
        dm.client_id = m.client_id;
        dm.client_host = m.client_host;
        if (stable && g.protocol_name) {
            if (const auto* md = m.metadata_for(*g.protocol_name))
                dm.member_metadata = *md;
            dm.member_assignment = m.assignment;
        }
        d.members.push_back(std::move(dm));
    }
    return d;
}

std::vector<protocol::ListedGroup> GroupCoordinator::list() const {
    std::vector<protocol::ListedGroup> out;
    auto with_offsets = offsets_.groups();
    std::lock_guard lock(mutex_);
    for (const auto& [id, g] : groups_)
        if (g.state != GroupState::dead)
            out.push_back({id, g.protocol_type, state_name(g.state)});
    for (const auto& id : with_offsets)
        if (!groups_.count(id))
            out.push_back({id, "", state_name(GroupState::empty)});
    return out;
}

ErrorCode GroupCoordinator::delete_group(const std::string& group_id) {
    // Kafka expires each member at its session deadline; the periodic tick may come up to
    // kTickMs later. A deletion that arrives after the last member's deadline (librdkafka's
    // 0081_admin deletes a group of static members exactly one session timeout after closing
    // them) must find the group empty, so the deadlines are checked first.
    tick();
    {
        std::lock_guard lock(mutex_);
        auto it = groups_.find(group_id);
        if (it != groups_.end()) {
            if (it->second.state != GroupState::empty || !it->second.pending_members.empty())
                return ErrorCode::non_empty_group;
            groups_.erase(it);
        } else if (offsets_.group_offsets(group_id).empty()) {
            return ErrorCode::group_id_not_found;
        }
    }
    auto removed = offsets_.remove(group_id);
    if (!removed) {
        spdlog::error("deleting the offsets of group {} failed: {}", group_id, removed.error());
        return ErrorCode::kafka_storage_error;
    }
    spdlog::info("group {} deleted with {} committed offset(s)", group_id, *removed);
    return ErrorCode::none;
}

GroupCoordinator::OffsetDeleteResult GroupCoordinator::delete_offsets(
    const std::string& group_id, const std::vector<storage::TopicPartition>& partitions) {
    OffsetDeleteResult result;
    std::vector<storage::TopicPartition> eligible;
    {
        std::lock_guard lock(mutex_);
        auto it = groups_.find(group_id);
        if (it == groups_.end() || it->second.state == GroupState::empty) {
            if (it == groups_.end() && offsets_.group_offsets(group_id).empty()) {
                result.error = ErrorCode::group_id_not_found;
                return result;
            }
            eligible = partitions;
        } else if (it->second.state == GroupState::dead) {
            result.error = ErrorCode::group_id_not_found;
            return result;
        } else if (it->second.protocol_type != "consumer") {
            result.error = ErrorCode::non_empty_group;
            return result;
        } else {
            // Kafka's isSubscribedToTopic: the union of the members' subscriptions under the
            // group's protocol; a member whose metadata cannot be read subscribes to nothing.
            const Group& g = it->second;
            std::set<std::string> subscribed;
            for (const auto& [id, member] : g.members) {
                const auto* metadata =
                    g.protocol_name ? member.metadata_for(*g.protocol_name) : nullptr;
                if (!metadata && !member.protocols.empty())
                    metadata = &member.protocols.front().second;
                if (!metadata)
                    continue;
                if (auto topics = subscribed_topics(*metadata))
                    subscribed.merge(*topics);
            }
            for (const auto& tp : partitions) {
                if (subscribed.contains(tp.topic))
                    result.partitions[tp] = ErrorCode::group_subscribed_to_topic;
                else
                    eligible.push_back(tp);
            }
        }
    }
    if (!eligible.empty()) {
        auto removed = offsets_.remove(group_id, eligible);
        const ErrorCode outcome = removed ? ErrorCode::none : ErrorCode::kafka_storage_error;
        if (!removed)
            spdlog::error("deleting offsets of group {} failed: {}", group_id, removed.error());
        for (const auto& tp : eligible)
            result.partitions[tp] = outcome;
    }
    return result;
}

std::optional<GroupState> GroupCoordinator::state(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    auto it = groups_.find(group_id);
    if (it == groups_.end())
        return std::nullopt;
    return it->second.state;
}

int32_t GroupCoordinator::generation(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    auto it = groups_.find(group_id);
    return it == groups_.end() ? -1 : it->second.generation_id;
}

}  // namespace skiff::broker::group
