// The membership changes of a classic group and the join phase they start or end: Kafka's
// prepareRebalance / onCompleteJoin, and the deadlines tick() enforces.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/group/classic/classic_protocol.h"
#include "storage/log_config.h"

namespace skiff::broker::group {
namespace {

using protocol::ErrorCode;

std::string member_list(const ClassicGroup& g) {
    std::string out;
    for (const auto& [id, m] : g.members) {
        if (!out.empty())
            out += ", ";
        out += id;
    }
    return out;
}

}  // namespace

void ClassicProtocol::add_member(ClassicGroup& g, const JoinParams& p, const std::string& member_id,
                                 JoinCallback done, Deferred& deferred) {
    if (g.members.empty())
        g.protocol_type = p.protocol_type;
    ClassicMember m;
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
    if (g.state == ClassicGroupState::preparing_rebalance) {
        if (g.initial_delay)  // more members are coming: wait a little longer, within limits
            g.rebalance_deadline_ms =
                std::min(now() + config_.initial_rebalance_delay_ms, g.initial_delay_limit_ms);
        maybe_complete_join(g, deferred);
    } else {
        prepare_rebalance(g, "member " + member_id + " joined", deferred);
    }
}

void ClassicProtocol::update_member(ClassicMember& m, const JoinParams& p, JoinCallback done) {
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
void ClassicProtocol::remove_member(ClassicGroup& g, std::string member_id, ErrorCode why,
                                    Deferred& deferred) {
    auto it = g.members.find(member_id);
    if (it == g.members.end())
        return;
    ClassicMember& m = it->second;
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
        case ClassicGroupState::stable:
        case ClassicGroupState::completing_rebalance:
            prepare_rebalance(g, "member " + member_id + " left", deferred);
            break;
        case ClassicGroupState::preparing_rebalance:
            maybe_complete_join(g, deferred);
            break;
        default:
            break;
    }
}

void ClassicProtocol::prepare_rebalance(ClassicGroup& g, const std::string& reason,
                                        Deferred& deferred) {
    if (g.state == ClassicGroupState::completing_rebalance) {
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
    if (g.state == ClassicGroupState::empty && config_.initial_rebalance_delay_ms > 0) {
        g.initial_delay = true;
        g.initial_delay_limit_ms = t + rebalance_timeout;
        g.rebalance_deadline_ms =
            std::min(t + config_.initial_rebalance_delay_ms, g.initial_delay_limit_ms);
    } else {
        g.initial_delay = false;
        g.rebalance_deadline_ms = t + rebalance_timeout;
    }
    spdlog::info("group {}: preparing to rebalance ({}) from {} at generation {}", g.group_id(),
                 reason, state_name(g.state), g.generation_id);
    g.state = ClassicGroupState::preparing_rebalance;
    maybe_complete_join(g, deferred);
}

void ClassicProtocol::maybe_complete_join(ClassicGroup& g, Deferred& deferred) {
    if (g.state == ClassicGroupState::preparing_rebalance && !g.initial_delay &&
        g.all_members_joined())
        complete_join(g, deferred);
}

void ClassicProtocol::complete_join(ClassicGroup& g, Deferred& deferred) {
    // Dynamic members that did not rejoin in time are out of the new generation. Static ones
    // stay, with their last metadata, until their session times out (Kafka's onCompleteJoin):
    // a restarting static member must find its place when it comes back.
    std::vector<std::string> missing;
    for (const auto& [id, m] : g.members)
        if (!m.awaiting_join && !m.group_instance_id)
            missing.push_back(id);
    for (const auto& id : missing) {
        spdlog::info("group {}: member {} did not rejoin in time and was removed", g.group_id(),
                     id);
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
                         g.group_id());
            return;
        }
        g.leader_id = first == g.members.end() ? std::string{} : first->first;
    }
    ++g.generation_id;
    if (g.members.empty()) {
        g.state = ClassicGroupState::empty;
        g.protocol_name.reset();
        g.leader_id.clear();
        g.empty_since_wall_ms = storage::wall_clock_ms();
        spdlog::info("group {}: generation {} is empty", g.group_id(), g.generation_id);
        return;
    }
    g.protocol_name = g.select_protocol();
    if (!g.protocol_name)  // cannot happen after the join-time check; be safe anyway
        g.protocol_name = g.members.at(g.leader_id).protocols.front().first;
    g.state = ClassicGroupState::completing_rebalance;
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
        g.group_id(), g.generation_id, *g.protocol_name, g.leader_id, g.members.size(),
        member_list(g));
}

JoinResult ClassicProtocol::join_result_for(const ClassicGroup& g, const ClassicMember& m) {
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

void ClassicProtocol::tick(int64_t now_ms, Deferred& deferred) {
    groups_.for_each_of<ClassicGroup>([&](ClassicGroup& g) { tick_group(g, now_ms, deferred); });
}

void ClassicProtocol::tick_group(ClassicGroup& g, int64_t now_ms, Deferred& deferred) {
    for (auto p = g.pending_members.begin(); p != g.pending_members.end();) {
        if (now_ms >= p->second) {
            p = g.pending_members.erase(p);
            maybe_complete_join(g, deferred);
        } else {
            ++p;
        }
    }
    std::vector<std::string> expired;
    for (const auto& [id, m] : g.members)
        if (!m.awaiting_join && !m.awaiting_sync && now_ms >= m.session_deadline_ms)
            expired.push_back(id);
    for (const auto& id : expired) {
        spdlog::info("group {}: member {} expired after its session timeout of {} ms", g.group_id(),
                     id, g.members.at(id).session_timeout_ms);
        remove_member(g, id, ErrorCode::unknown_member_id, deferred);
    }
    if (g.state == ClassicGroupState::preparing_rebalance && now_ms >= g.rebalance_deadline_ms)
        complete_join(g, deferred);
}

}  // namespace skiff::broker::group
