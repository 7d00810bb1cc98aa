#include "broker/group/group.h"

#include <algorithm>

namespace skiff::broker::group {

const char* state_name(GroupState state) {
    switch (state) {
        case GroupState::empty:
            return "Empty";
        case GroupState::preparing_rebalance:
            return "PreparingRebalance";
        case GroupState::completing_rebalance:
            return "CompletingRebalance";
        case GroupState::stable:
            return "Stable";
        case GroupState::dead:
            return "Dead";
    }
    return "Unknown";
}

bool Member::supports(const std::string& protocol) const {
    return metadata_for(protocol) != nullptr;
}

const std::vector<std::byte>* Member::metadata_for(const std::string& protocol) const {
    for (const auto& [name, metadata] : protocols)
        if (name == protocol)
            return &metadata;
    return nullptr;
}

bool Group::all_members_joined() const {
    if (!pending_members.empty())
        return false;
    return std::all_of(members.begin(), members.end(),
                       [](const auto& m) { return static_cast<bool>(m.second.awaiting_join); });
}

std::optional<std::string> Group::select_protocol() const {
    if (members.empty())
        return std::nullopt;
    // Candidates in the order of the leader (or any member): supported by everyone.
    auto first = members.find(leader_id);
    const Member& reference = first != members.end() ? first->second : members.begin()->second;
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

bool Group::supports_protocols(const std::string& type, const ProtocolList& protocols) const {
    if (members.empty())
        return !type.empty() && !protocols.empty();
    if (type != protocol_type)
        return false;
    return std::any_of(protocols.begin(), protocols.end(), [&](const auto& p) {
        return std::all_of(members.begin(), members.end(),
                           [&](const auto& m) { return m.second.supports(p.first); });
    });
}

int32_t Group::max_rebalance_timeout_ms() const {
    int32_t result = 0;
    for (const auto& [id, m] : members)
        result = std::max(result, m.rebalance_timeout_ms);
    return result;
}

}  // namespace skiff::broker::group
