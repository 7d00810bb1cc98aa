#include "broker/group/classic/classic_records.h"

#include "storage/log_config.h"

namespace skiff::broker::group {

void take_classic_changes(ClassicGroup& g, GroupRecords& out, bool everything) {
    // Kafka writes the group at the end of a generation's sync and when it empties; a group that
    // never had a generation (a simple consumer's commits created it) is known from its offsets.
    const bool persisted_state = g.state == ClassicGroupState::stable ||
                                 (g.state == ClassicGroupState::empty && g.generation_id > 0);
    if (!persisted_state)
        return;
    const ClassicGroup::Persisted now{g.state, g.generation_id, g.members.size(), g.member_changes};
    if (!everything && g.persisted == now)
        return;
    GroupMetadataValue v;
    v.protocol_type = g.protocol_type;
    v.generation = g.generation_id;
    v.protocol = g.protocol_name;
    if (!g.leader_id.empty())
        v.leader = g.leader_id;
    v.current_state_timestamp =
        g.state == ClassicGroupState::empty ? g.empty_since_wall_ms : storage::wall_clock_ms();
    for (const auto& [id, m] : g.members) {
        GroupMetadataMember gm;
        gm.member_id = id;
        gm.group_instance_id = m.group_instance_id;
        gm.client_id = m.client_id;
        gm.client_host = m.client_host;
        gm.rebalance_timeout = m.rebalance_timeout_ms;
        gm.session_timeout = m.session_timeout_ms;
        if (g.protocol_name)
            if (const auto* metadata = m.metadata_for(*g.protocol_name))
                gm.subscription = *metadata;
        gm.assignment = m.assignment;
        v.members.push_back(std::move(gm));
    }
    out.push_back({encode_record(GroupMetadataKey{g.group_id()}, GroupMetadataKey::kVersion),
                   encode_record(v, GroupMetadataValue::kVersion)});
    g.persisted = now;
}

Expected<std::unique_ptr<ClassicGroup>, std::string> restore_classic_group(
    const std::string& group_id, std::span<const std::byte> value, int64_t now_ms) {
    auto v = decode_record<GroupMetadataValue>(value);
    if (!v)
        return unexpected("group " + group_id +
                          ": unreadable GroupMetadata value: " + v.error().message);
    auto g = std::make_unique<ClassicGroup>(group_id, v->current_state_timestamp > 0
                                                          ? v->current_state_timestamp
                                                          : storage::wall_clock_ms());
    g->generation_id = v->generation;
    g->protocol_type = v->protocol_type;
    g->protocol_name = v->protocol;
    g->leader_id = v->leader.value_or("");
    for (auto& gm : v->members) {
        ClassicMember m;
        m.member_id = gm.member_id;
        m.group_instance_id = gm.group_instance_id;
        m.client_id = std::move(gm.client_id);
        m.client_host = std::move(gm.client_host);
        m.session_timeout_ms = gm.session_timeout;
        m.rebalance_timeout_ms =
            gm.rebalance_timeout >= 0 ? gm.rebalance_timeout : gm.session_timeout;
        m.protocol_type = v->protocol_type;
        if (v->protocol)
            m.protocols.emplace_back(*v->protocol, std::move(gm.subscription));
        m.assignment = std::move(gm.assignment);
        m.session_deadline_ms = now_ms + m.session_timeout_ms;
        if (m.group_instance_id)
            g->static_members[*m.group_instance_id] = m.member_id;
        g->members.emplace(gm.member_id, std::move(m));
    }
    g->state = g->members.empty() ? ClassicGroupState::empty : ClassicGroupState::stable;
    g->persisted =
        ClassicGroup::Persisted{g->state, g->generation_id, g->members.size(), g->member_changes};
    return g;
}

void ClassicGroup::take_records(GroupRecords& out, const TopicView&, bool everything) {
    take_classic_changes(*this, out, everything);
}

}  // namespace skiff::broker::group
