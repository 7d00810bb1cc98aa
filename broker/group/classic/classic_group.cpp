#include "broker/group/classic/classic_group.h"

#include <algorithm>

#include "broker/group/consumer_subscription.h"

namespace skiff::broker::group {

using protocol::ErrorCode;

const char* state_name(ClassicGroupState state) {
    switch (state) {
        case ClassicGroupState::empty:
            return "Empty";
        case ClassicGroupState::preparing_rebalance:
            return "PreparingRebalance";
        case ClassicGroupState::completing_rebalance:
            return "CompletingRebalance";
        case ClassicGroupState::stable:
            return "Stable";
        case ClassicGroupState::dead:
            return "Dead";
    }
    return "Unknown";
}

bool ClassicMember::supports(const std::string& protocol) const {
    return metadata_for(protocol) != nullptr;
}

const std::vector<std::byte>* ClassicMember::metadata_for(const std::string& protocol) const {
    for (const auto& [name, metadata] : protocols)
        if (name == protocol)
            return &metadata;
    return nullptr;
}

bool ClassicGroup::all_members_joined() const {
    if (!pending_members.empty())
        return false;
    return std::all_of(members.begin(), members.end(),
                       [](const auto& m) { return static_cast<bool>(m.second.awaiting_join); });
}

std::optional<std::string> ClassicGroup::select_protocol() const {
    if (members.empty())
        return std::nullopt;
    // Candidates in the order of the leader (or any member): supported by everyone.
    auto first = members.find(leader_id);
    const ClassicMember& reference =
        first != members.end() ? first->second : members.begin()->second;
    std::vector<std::string> candidates;
    for (const auto& protocol : reference.protocols) {
        // A named reference, not a structured binding: clang 14 rejects capturing a binding.
        const std::string& name = protocol.first;
        bool everyone = std::all_of(members.begin(), members.end(),
                                    [&](const auto& m) { return m.second.supports(name); });
        if (everyone)
            candidates.push_back(name);
    }
    if (candidates.empty())
        return std::nullopt;
    std::map<std::string, int> votes;
    for (const auto& [id, member] : members) {
        for (const auto& [name, metadata] : member.protocols) {
            if (std::find(candidates.begin(), candidates.end(), name) != candidates.end()) {
                ++votes[name];
                break;
            }
        }
    }
    std::string best = candidates.front();
    for (const auto& c : candidates)
        if (votes[c] > votes[best])
            best = c;
    return best;
}

bool ClassicGroup::supports_protocols(const std::string& type,
                                      const ProtocolList& protocols) const {
    if (members.empty())
        return !type.empty() && !protocols.empty();
    if (type != protocol_type)
        return false;
    return std::any_of(protocols.begin(), protocols.end(), [&](const auto& p) {
        return std::all_of(members.begin(), members.end(),
                           [&](const auto& m) { return m.second.supports(p.first); });
    });
}

int32_t ClassicGroup::max_rebalance_timeout_ms() const {
    int32_t result = 0;
    for (const auto& [id, m] : members)
        result = std::max(result, m.rebalance_timeout_ms);
    return result;
}

const std::string* ClassicGroup::static_member_id(
    const std::optional<std::string>& instance_id) const {
    if (!instance_id)
        return nullptr;
    auto it = static_members.find(*instance_id);
    if (it == static_members.end() || !members.count(it->second))
        return nullptr;
    return &it->second;
}

bool ClassicGroup::fenced(const std::optional<std::string>& instance_id,
                          const std::string& member_id) const {
    if (!instance_id)
        return false;
    auto it = static_members.find(*instance_id);
    return it != static_members.end() && it->second != member_id;
}

protocol::ListedGroup ClassicGroup::listed() const {
    return {group_id(), protocol_type, state_name(state), std::string(type_name(type()))};
}

protocol::DescribedGroup ClassicGroup::described() const {
    protocol::DescribedGroup d;
    d.group_id = group_id();
    d.group_state = state_name(state);
    d.protocol_type = protocol_type;
    // Metadata and assignments belong to a generation: shown only once it is Stable.
    const bool stable = state == ClassicGroupState::stable;
    if (stable && protocol_name)
        d.protocol_data = *protocol_name;
    for (const auto& [id, m] : members) {
        protocol::DescribedGroupMember dm;
        dm.member_id = id;
        dm.group_instance_id = m.group_instance_id;
        dm.client_id = m.client_id;
        dm.client_host = m.client_host;
        if (stable && protocol_name) {
            if (const auto* md = m.metadata_for(*protocol_name))
                dm.member_metadata = *md;
            dm.member_assignment = m.assignment;
        }
        d.members.push_back(std::move(dm));
    }
    return d;
}

std::optional<int64_t> ClassicGroup::empty_since() const {
    if (state != ClassicGroupState::empty)
        return std::nullopt;
    return empty_since_wall_ms;
}

// Kafka's ClassicGroup.validateOffsetCommit: a "simple" commit with generation -1 only while
// the group has no members; otherwise a member of the current generation, not during
// CompletingRebalance (its assignment is not known yet).
ErrorCode ClassicGroup::validate_offset_commit(int32_t generation, const std::string& member_id,
                                               const std::optional<std::string>& group_instance_id,
                                               bool transactional, int16_t /*api_version*/,
                                               int64_t now_ms) {
    if (state == ClassicGroupState::dead)
        return ErrorCode::coordinator_not_available;
    if (generation < 0 && state == ClassicGroupState::empty)
        return ErrorCode::none;
    // A transactional commit without generation and member (TxnOffsetCommit v0-2, or a producer
    // that does not pass the consumer's group metadata) is accepted whatever the group's state:
    // the transaction coordinator vouches for the producer (Kafka's ClassicGroup).
    if (transactional && generation < 0 && member_id.empty() && !group_instance_id)
        return ErrorCode::none;
    if (fenced(group_instance_id, member_id))
        return ErrorCode::fenced_instance_id;
    auto m = members.find(member_id);
    if (m == members.end())
        return ErrorCode::unknown_member_id;
    if (generation != generation_id)
        return ErrorCode::illegal_generation;
    if (!transactional && state == ClassicGroupState::completing_rebalance)
        return ErrorCode::rebalance_in_progress;
    m->second.session_deadline_ms = now_ms + m->second.session_timeout_ms;
    return ErrorCode::none;
}

ErrorCode ClassicGroup::validate_delete() const {
    if (state != ClassicGroupState::empty || !pending_members.empty())
        return ErrorCode::non_empty_group;
    return ErrorCode::none;
}

// Only a "consumer" group's metadata says what its members subscribe to; another protocol
// type's offsets stay while it has members.
ErrorCode ClassicGroup::validate_offset_delete() const {
    if (state == ClassicGroupState::dead)
        return ErrorCode::group_id_not_found;
    if (protocol_type != "consumer")
        return ErrorCode::non_empty_group;
    return ErrorCode::none;
}

// Kafka's isSubscribedToTopic: the union of the members' subscriptions under the group's
// protocol; a member whose metadata cannot be read subscribes to nothing.
std::set<std::string> ClassicGroup::subscribed_topics() const {
    std::set<std::string> subscribed;
    for (const auto& [id, member] : members) {
        const auto* metadata = protocol_name ? member.metadata_for(*protocol_name) : nullptr;
        if (!metadata && !member.protocols.empty())
            metadata = &member.protocols.front().second;
        if (!metadata)
            continue;
        if (auto topics = group::subscribed_topics(*metadata))
            subscribed.merge(*topics);
    }
    return subscribed;
}

}  // namespace skiff::broker::group
