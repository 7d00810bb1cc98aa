// Classic members in a consumer group: Kafka's GroupMetadataManager classicGroupJoinToConsumer
// Group, classicGroupSyncToConsumerGroup, classicGroupHeartbeatToConsumerGroup and
// classicGroupLeaveToConsumerGroup. See consumer_protocol.h.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/group/consumer/consumer_protocol.h"
#include "broker/group/consumer/reconciliation.h"
#include "broker/group/embedded_consumer_protocol.h"
#include "storage/log_config.h"

namespace skiff::broker::group::consumer {

using protocol::ErrorCode;

namespace {

constexpr const char* kConsumerProtocolType = "consumer";

JoinResult join_error(ErrorCode e, std::string member_id) {
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

}  // namespace

ConsumerProtocol::ClassicFound ConsumerProtocol::find_classic_member(
    const ConsumerGroup& g, const std::string& member_id,
    const std::optional<std::string>& instance_id) const {
    ClassicFound f;
    if (instance_id) {
        auto s = g.static_members.find(*instance_id);
        if (s == g.static_members.end()) {
            f.error = ErrorCode::unknown_member_id;
            return f;
        }
        if (s->second != member_id) {
            f.error = ErrorCode::fenced_instance_id;
            return f;
        }
    }
    f.member = g.member(member_id);
    // A consumer-protocol member's id in a classic request is not that member's to use.
    if (!f.member || !f.member->classic) {
        f.member = nullptr;
        f.error = ErrorCode::unknown_member_id;
    }
    return f;
}

void ConsumerProtocol::classic_join(ConsumerGroup& g, const JoinParams& p, const TopicView& topics,
                                    const JoinCallback& done, Deferred& deferred) {
    auto reply = [&](JoinResult r) { deferred.push_back([done, r = std::move(r)] { done(r); }); };
    if (p.protocol_type != kConsumerProtocolType || p.protocols.empty())
        return reply(join_error(ErrorCode::inconsistent_group_protocol, p.member_id));
    // Every protocol carries the same subscription; the first is read.
    auto subscription = decode_subscription(p.protocols.front().second);
    if (!subscription)
        return reply(join_error(ErrorCode::inconsistent_group_protocol, p.member_id));

    std::string member_id = p.member_id;
    const bool unknown = member_id.empty();
    if (unknown)
        member_id = new_member_id();
    const ConsumerMember* existing = unknown ? nullptr : g.member(member_id);
    if (existing && !existing->classic)
        return reply(join_error(ErrorCode::unknown_member_id, p.member_id));
    // Static members: the instance id names the member; a restarted one (no member id) takes
    // its old place, its epoch and partitions with it.
    std::optional<ConsumerMember> replaced;
    if (p.group_instance_id) {
        auto s = g.static_members.find(*p.group_instance_id);
        if (s != g.static_members.end() && s->second != member_id) {
            if (!unknown)
                return reply(join_error(ErrorCode::fenced_instance_id, p.member_id));
            if (const ConsumerMember* old = g.member(s->second)) {
                replaced = *old;
                Assignment target =
                    g.target.count(old->member_id) ? g.target[old->member_id] : Assignment{};
                g.remove(old->member_id, storage::wall_clock_ms());
                g.target[member_id] = std::move(target);
            }
        }
    } else if (unknown && p.require_known_member_id) {
        // The MEMBER_ID_REQUIRED round trip: nothing is kept until it joins with the id.
        return reply(join_error(ErrorCode::member_id_required, member_id));
    }
    const bool is_new = !existing && !replaced;
    if (is_new && static_cast<int64_t>(g.members().size()) >= config_.max_size)
        return reply(join_error(ErrorCode::group_max_size_reached, member_id));

    ConsumerMember m = replaced ? *replaced : existing ? *existing : ConsumerMember{};
    m.member_id = member_id;
    m.instance_id = p.group_instance_id;
    if (subscription->rack_id)
        m.rack_id = subscription->rack_id;
    m.rebalance_timeout_ms = p.rebalance_timeout_ms;
    m.server_assignor.reset();
    std::vector<std::string> names = subscription->topics;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    const bool changed = is_new || names != m.subscribed_topic_names || m.subscribed_topic_regex;
    m.subscribed_topic_names = std::move(names);
    m.subscribed_topic_regex.reset();
    m.client_id = p.client_id;
    m.client_host = p.client_host;
    m.classic = ClassicMembership{p.session_timeout_ms, p.protocols};
    const int64_t now = now_();
    m.session_deadline_ms = now + p.session_timeout_ms;
    m.classic_join_deadline_ms = 0;
    m.classic_sync_deadline_ms = now + p.rebalance_timeout_ms;
    g.put(m);

    maybe_bump(g, changed, topics);
    if (g.group_epoch > g.assignment_epoch)
        compute_target(g);
    const MemberState before = m.state;
    const auto target = g.target.find(m.member_id);
    // What it owns is what its subscription says (an eager client revoked everything first).
    m = reconcile(
        m, g.assignment_epoch, target == g.target.end() ? Assignment{} : target->second,
        Assignment(subscription->owned_partitions.begin(), subscription->owned_partitions.end()),
        [&](const std::string& topic, int32_t partition, const std::string& id) {
            return g.owned_elsewhere(topic, partition, id);
        });
    if (m.state == MemberState::unrevoked_partitions && before != MemberState::unrevoked_partitions)
        m.revocation_deadline_ms = now + m.rebalance_timeout_ms;
    g.put(m);

    JoinResult r;
    r.member_id = m.member_id;
    r.generation_id = m.member_epoch;
    r.protocol_type = kConsumerProtocolType;
    r.protocol_name = p.protocols.front().first;
    // No leader: the coordinator assigns; the member syncs to learn its partitions.
    reply(std::move(r));
}

void ConsumerProtocol::await_rejoin(ConsumerMember& m) const {
    if (m.classic_join_deadline_ms == 0)
        m.classic_join_deadline_ms = now_() + m.rebalance_timeout_ms;
}

SyncResult ConsumerProtocol::classic_sync(ConsumerGroup& g, const SyncParams& p) {
    ClassicFound f = find_classic_member(g, p.member_id, p.group_instance_id);
    if (!f.member)
        return sync_error(f.error);
    ConsumerMember m = *f.member;
    if (p.generation_id != m.member_epoch)
        return sync_error(ErrorCode::illegal_generation);
    if ((p.protocol_type && *p.protocol_type != kConsumerProtocolType) ||
        (p.protocol_name && *p.protocol_name != m.classic->protocols.front().first))
        return sync_error(ErrorCode::inconsistent_group_protocol);
    if (g.group_epoch > m.member_epoch && m.state != MemberState::unrevoked_partitions) {
        await_rejoin(m);
        g.put(std::move(m));
        return sync_error(ErrorCode::rebalance_in_progress);
    }
    m.session_deadline_ms = now_() + m.classic->session_timeout_ms;
    m.classic_sync_deadline_ms = 0;
    SyncResult r;
    r.protocol_type = kConsumerProtocolType;
    r.protocol_name = m.classic->protocols.front().first;
    r.assignment =
        encode_assignment(m.assigned, subscription_version(m.classic->protocols.front().second));
    g.put(std::move(m));
    return r;
}

ErrorCode ConsumerProtocol::classic_heartbeat(ConsumerGroup& g, int32_t generation_id,
                                              const std::string& member_id,
                                              const std::optional<std::string>& instance_id) {
    ClassicFound f = find_classic_member(g, member_id, instance_id);
    if (!f.member)
        return f.error;
    if (generation_id != f.member->member_epoch)
        return ErrorCode::illegal_generation;
    ConsumerMember m = *f.member;
    m.session_deadline_ms = now_() + m.classic->session_timeout_ms;
    // It joins again when the group moved on, when it must give partitions up, or when the
    // partitions it waits for are free now.
    bool waiting = false;
    if (m.state == MemberState::unreleased_partitions)
        if (auto t = g.target.find(m.member_id); t != g.target.end())
            for (const auto& [topic, partitions] : t->second)
                for (int32_t partition : partitions)
                    waiting |= g.owned_elsewhere(topic, partition, m.member_id);
    const bool rejoin = m.member_epoch < g.group_epoch ||
                        m.state == MemberState::unrevoked_partitions ||
                        (m.state == MemberState::unreleased_partitions && !waiting);
    if (rejoin)
        await_rejoin(m);
    g.put(std::move(m));
    return rejoin ? ErrorCode::rebalance_in_progress : ErrorCode::none;
}

ErrorCode ConsumerProtocol::classic_leave(ConsumerGroup& g, const std::string& member_id,
                                          const std::optional<std::string>& instance_id) {
    std::string id = member_id;
    if (instance_id && member_id.empty()) {
        // An admin removing a static member by its instance id.
        auto s = g.static_members.find(*instance_id);
        if (s == g.static_members.end())
            return ErrorCode::unknown_member_id;
        id = s->second;
    }
    ClassicFound f = find_classic_member(g, id, instance_id);
    if (!f.member)
        return f.error;
    spdlog::info("group {}: classic member {} left", g.group_id(), id);
    remove_member(g, id);
    return ErrorCode::none;
}

}  // namespace skiff::broker::group::consumer
