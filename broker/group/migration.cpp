#include "broker/group/migration.h"

#include <algorithm>
#include <cctype>

#include "broker/group/embedded_consumer_protocol.h"
#include "storage/log_config.h"

namespace skiff::broker::group {

using protocol::ErrorCode;

MigrationPolicy parse_migration_policy(const std::string& value) {
    std::string v = value;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    if (v == "upgrade")
        return {true, false};
    if (v == "downgrade")
        return {false, true};
    if (v == "disabled")
        return {false, false};
    return {true, true};
}

Expected<std::unique_ptr<consumer::ConsumerGroup>, std::string> to_consumer_group(
    ClassicGroup& g, const TopicView& topics, int64_t now_ms, Deferred& deferred) {
    auto c = std::make_unique<consumer::ConsumerGroup>(g.group_id(), storage::wall_clock_ms());
    c->group_epoch = g.generation_id;
    c->assignment_epoch = g.generation_id;
    for (const auto& [id, cm] : g.members) {
        const auto* metadata = g.protocol_name ? cm.metadata_for(*g.protocol_name) : nullptr;
        if (!metadata && !cm.protocols.empty())
            metadata = &cm.protocols.front().second;
        if (!metadata)
            return unexpected("member " + id + " has no subscription");
        auto subscription = decode_subscription(*metadata);
        if (!subscription)
            return unexpected("member " + id + "'s subscription: " + subscription.error().message);
        auto assigned = decode_assignment(cm.assignment);
        if (!assigned)
            return unexpected("member " + id + "'s assignment: " + assigned.error().message);
        consumer::ConsumerMember m;
        m.member_id = id;
        m.instance_id = cm.group_instance_id;
        m.rack_id = subscription->rack_id;
        m.client_id = cm.client_id;
        m.client_host = cm.client_host;
        m.rebalance_timeout_ms = cm.rebalance_timeout_ms;
        m.subscribed_topic_names = subscription->topics;
        std::sort(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
        m.subscribed_topic_names.erase(
            std::unique(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end()),
            m.subscribed_topic_names.end());
        m.classic = consumer::ClassicMembership{cm.session_timeout_ms, cm.protocols};
        m.state = consumer::MemberState::stable;
        m.member_epoch = g.generation_id;
        m.previous_member_epoch = g.generation_id;
        // What the last generation gave it, as far as the topics still exist.
        for (const auto& [topic, partitions] : *assigned)
            if (auto n = topics.size ? topics.size(topic) : std::nullopt)
                for (int32_t p : partitions)
                    if (p >= 0 && p < *n)
                        m.assigned[topic].insert(p);
        m.session_deadline_ms = now_ms + cm.session_timeout_ms;
        c->target[id] = m.assigned;
        c->put(std::move(m));
    }
    for (const auto& name : c->subscribed_topic_names())
        if (auto n = topics.size ? topics.size(name) : std::nullopt)
            c->topic_sizes[name] = *n;
    // Nothing can fail from here: tell the waiting members to join again.
    for (auto& [id, cm] : g.members) {
        if (cm.awaiting_join) {
            JoinResult r;
            r.error = ErrorCode::rebalance_in_progress;
            r.member_id = id;
            deferred.push_back([cb = std::move(cm.awaiting_join), r] { cb(r); });
            cm.awaiting_join = nullptr;
        }
        if (cm.awaiting_sync) {
            SyncResult r;
            r.error = ErrorCode::rebalance_in_progress;
            deferred.push_back([cb = std::move(cm.awaiting_sync), r] { cb(r); });
            cm.awaiting_sync = nullptr;
        }
    }
    return c;
}

bool only_classic_members(const consumer::ConsumerGroup& g) {
    if (g.members().empty())
        return false;
    return std::all_of(g.members().begin(), g.members().end(),
                       [](const auto& m) { return m.second.classic.has_value(); });
}

std::unique_ptr<ClassicGroup> to_classic_group(const consumer::ConsumerGroup& g, int64_t now_ms) {
    auto c = std::make_unique<ClassicGroup>(g.group_id(), storage::wall_clock_ms());
    c->state = ClassicGroupState::stable;
    c->generation_id = g.group_epoch;
    c->protocol_type = "consumer";
    for (const auto& [id, m] : g.members()) {
        ClassicMember cm;
        cm.member_id = id;
        cm.group_instance_id = m.instance_id;
        cm.client_id = m.client_id;
        cm.client_host = m.client_host;
        cm.session_timeout_ms = m.classic->session_timeout_ms;
        cm.rebalance_timeout_ms = m.rebalance_timeout_ms;
        cm.protocol_type = "consumer";
        cm.protocols = m.classic->protocols;
        const auto t = g.target.find(id);
        const int16_t version =
            cm.protocols.empty() ? 0 : subscription_version(cm.protocols.front().second);
        cm.assignment =
            encode_assignment(t == g.target.end() ? TopicPartitionSets{} : t->second, version);
        cm.session_deadline_ms = now_ms + cm.session_timeout_ms;
        if (cm.group_instance_id)
            c->static_members[*cm.group_instance_id] = id;
        c->members.emplace(id, std::move(cm));
    }
    c->protocol_name = c->select_protocol();
    if (!c->members.empty())
        c->leader_id = c->members.begin()->first;
    return c;
}

}  // namespace skiff::broker::group
