#include "broker/group/consumer/reconciliation.h"

#include <set>

namespace skiff::broker::group::consumer {
namespace {

// Whether the client still owns any of `revoking`. Without an owned list, it is assumed to.
bool still_owns_any(const Assignment& revoking, const std::optional<Assignment>& owned) {
    if (revoking.empty())
        return false;
    if (!owned)
        return true;
    for (const auto& [topic, partitions] : revoking) {
        auto it = owned->find(topic);
        if (it == owned->end())
            continue;
        for (int32_t p : partitions)
            if (it->second.count(p) > 0)
                return true;
    }
    return false;
}

ConsumerMember next_assignment(const ConsumerMember& member, int32_t target_epoch,
                               const Assignment& target, const std::optional<Assignment>& owned,
                               const OwnedElsewhere& owned_elsewhere) {
    Assignment kept;
    Assignment revoking;
    Assignment gained;
    bool unreleased = false;
    std::set<std::string> topics;
    for (const auto& [topic, _] : target)
        topics.insert(topic);
    for (const auto& [topic, _] : member.assigned)
        topics.insert(topic);
    static const std::set<int32_t> kNone;
    for (const auto& topic : topics) {
        auto t = target.find(topic);
        auto c = member.assigned.find(topic);
        const auto& wanted = t == target.end() ? kNone : t->second;
        const auto& current = c == member.assigned.end() ? kNone : c->second;
        for (int32_t p : current)
            (wanted.count(p) > 0 ? kept : revoking)[topic].insert(p);
        for (int32_t p : wanted) {
            if (current.count(p) > 0)
                continue;
            if (owned_elsewhere(topic, p, member.member_id))
                unreleased = true;
            else
                gained[topic].insert(p);
        }
    }
    ConsumerMember next = member;
    if (still_owns_any(revoking, owned)) {
        // Revoke first, in the current epoch.
        next.state = MemberState::unrevoked_partitions;
        next.assigned = std::move(kept);
        next.pending_revocation = std::move(revoking);
        return next;
    }
    for (auto& [topic, partitions] : gained)
        kept[topic].insert(partitions.begin(), partitions.end());
    next.state = unreleased ? MemberState::unreleased_partitions : MemberState::stable;
    if (next.member_epoch != target_epoch) {
        next.previous_member_epoch = next.member_epoch;
        next.member_epoch = target_epoch;
    }
    next.assigned = std::move(kept);
    next.pending_revocation.clear();
    return next;
}

}  // namespace

bool is_subset(const Assignment& part, const Assignment& whole) {
    for (const auto& [topic, partitions] : part) {
        if (partitions.empty())
            continue;
        auto it = whole.find(topic);
        if (it == whole.end())
            return false;
        for (int32_t p : partitions)
            if (it->second.count(p) == 0)
                return false;
    }
    return true;
}

ConsumerMember reconcile(const ConsumerMember& member, int32_t target_epoch,
                         const Assignment& target, const std::optional<Assignment>& owned,
                         const OwnedElsewhere& owned_elsewhere) {
    switch (member.state) {
        case MemberState::stable:
            if (member.member_epoch == target_epoch)
                return member;
            break;
        case MemberState::unrevoked_partitions:
            if (still_owns_any(member.pending_revocation, owned))
                return member;
            break;
        case MemberState::unreleased_partitions:
            break;
    }
    return next_assignment(member, target_epoch, target, owned, owned_elsewhere);
}

}  // namespace skiff::broker::group::consumer
